#!/usr/bin/env bash
# GPU call F (session 20): the stock CUTLASS ping-pong 128x128 GEMM launched IREE's way (bench/cutlass_gemm/wrapped.h:
# Params built with no driver, descriptors rebuilt per CTA on the device), beside the same kernel launched by
# CUTLASS's own adapter, on the four 1x1 layers' GEMMs; then memcheck on the wrapped one (one layer). ~40 s.
# Build first (here): bash bench/plans/session20/build_f.sh
# carry: out/wrap20
source "$(dirname "$0")/../lib.sh"
card
SHAPES="200704 128 512 50176 256 1024 12544 512 2048 12544 2048 512"
T gemm
for round in 1 2; do
  for bin in pp_128x128_c1x1 pp_128x128_wrapped; do
    timeout 40 out/wrap20/$bin $bin $SHAPES 2>&1 | sed "s/^/round $round /" | tee -a $OUT/gemm.txt
  done
done
T memcheck
timeout 30 compute-sanitizer --tool memcheck out/wrap20/pp_128x128_wrapped pp_128x128_wrapped 12544 512 2048 \
  > $OUT/memcheck.txt 2>&1; tail -3 $OUT/memcheck.txt
T done
