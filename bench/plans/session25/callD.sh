#!/usr/bin/env bash
# GPU call D (session 25), any card, ~60 s: the ping-pong halo kernels beside the shipped cooperative halo kernel
# and cuDNN on the 3x3 C = K = 64 layer (CUDA graphs), their numerics on the fourteen random halo problems of
# seeds 25, 37 and 49, memcheck and racecheck at batch 2. A table entry needs the tune from an H200.
# Build first (here): bash bench/plans/session25/build_d.sh
# carry: out/p25d.tgz
source "$(dirname "$0")/../lib.sh"
tar xzf out/p25d.tgz -C out
card
T tune
tune_measure out/tune25d 120 tune.json
for plan in rand25d rand25db rand25dc; do
  T $plan
  timeout 60 python3 -m iree_cutlass.tune measure --plan out/$plan --check-only --out $OUT/$plan.json 2>&1 | tail -6
done
T memcheck
timeout 60 compute-sanitizer --tool memcheck python3 bench/sanitize_kernels.py --plan out/san25d > $OUT/memcheck.txt 2>&1
tail -2 $OUT/memcheck.txt
T racecheck
timeout 100 compute-sanitizer --tool racecheck python3 bench/sanitize_kernels.py --plan out/san25d > $OUT/racecheck.txt 2>&1
tail -2 $OUT/racecheck.txt
T done
