#!/usr/bin/env bash
# GPU call H (session 21): what the IREE-style launch of a stock CUTLASS GEMM costs, part by part. The adapter's
# launch, then gemm_bench -DWRAPPED=1 in each WRAPPED_MODE: device (descriptors built per CTA), hostdesc (the
# driver's descriptors, copied per CTA and fenced), in_place (every CTA on one host-written Params in global
# memory), in_place_acquire (and the tensormap acquires), param (Params as a kernel parameter, <<<>>> launch).
# Three rounds, interleaved. ~40 s. Build first (here): bash bench/plans/session20/build_f.sh
# carry: out/wrap20
source "$(dirname "$0")/../lib.sh"
card
SHAPES="200704 128 512 50176 256 1024 12544 512 2048 12544 2048 512"
T gemm
for round in 1 2 3; do
  timeout 40 out/wrap20/pp_128x128_c1x1 pp_128x128_c1x1 $SHAPES 2>&1 | sed "s/^/round $round /" | tee -a $OUT/gemm.txt
  for mode in device hostdesc in_place in_place_acquire param; do
    WRAPPED_MODE=$mode timeout 40 out/wrap20/pp_128x128_wrapped pp_128x128_$mode $SHAPES 2>&1 \
      | sed "s/^/round $round /" | tee -a $OUT/gemm.txt
  done
done
T done
