#!/usr/bin/env bash
# GPU call E (session 25), H200: the whole check of the bundle of main without the IREE per-call timings (every
# case's numerics through IREE and alone; kernel, cuDNN and XLA timed side by side, batch 8 and 256, f16 and bf16),
# then memcheck and racecheck over the bundle's kernels: ~300 s instead of callC.sh's ~420-585, for a session with
# little device time left. The IREE per-call figures are session 15's callC.sh's.
# carry: out/gpu.tgz .whl
source "$(dirname "$0")/../lib.sh"
tar xzf out/gpu.tgz -C out
T check
timeout 400 bash bench/gpu_check.sh --bench --bench-dtypes f16 bf16 2>&1 | tail -12
export PYTHONPATH="$PWD/python:/tmp/iree-site"
T memcheck
timeout 25 compute-sanitizer --tool memcheck python3 bench/sanitize_kernels.py --bundle out/gpu > $OUT/memcheck.txt 2>&1; tail -2 $OUT/memcheck.txt
T racecheck
timeout 25 compute-sanitizer --tool racecheck python3 bench/sanitize_kernels.py --bundle out/gpu --only _sm90_ > $OUT/racecheck.txt 2>&1; tail -2 $OUT/racecheck.txt
T done
