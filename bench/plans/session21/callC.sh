#!/usr/bin/env bash
# GPU call C (session 21): why the sm90_gemm family's own prologue (plugin/sm90_gemm.cuh run<>) lost 1.5-6 us per
# launch against call H's `device` mode. The stock ping-pong 128x128 GEMM on the four 1x1 layers' GEMMs: the
# adapter's launch, then gemm_bench -DWRAPPED=1 with WRAPPED_PROLOGUE 0 (the family's), 1 (+ a __syncthreads
# before operator()), 2 (+ scratch at the start of shared memory, only the kernel's shared memory launched), 3 (call
# H's `device` sequence), three interleaved rounds. ~30 s. The variants were removed after this call measured them
# (all within 0.5 us): check out f049ea0's bench/cutlass_gemm to rerun it. Build first (here):
# bash bench/plans/session20/build_f.sh
# carry: out/wrap20
source "$(dirname "$0")/../lib.sh"
card
SHAPES="200704 128 512 50176 256 1024 12544 512 2048 12544 2048 512"
T gemm
for round in 1 2 3; do
  timeout 40 out/wrap20/pp_128x128_c1x1 pp_128x128_c1x1 $SHAPES 2>&1 | sed "s/^/round $round /" >> $OUT/gemm.txt
  for prologue in 0 1 2 3; do
    WRAPPED_PROLOGUE=$prologue timeout 40 out/wrap20/pp_128x128_wrapped pp_128x128_prologue$prologue $SHAPES 2>&1 \
      | sed "s/^/round $round /" >> $OUT/gemm.txt
  done
done
T done
