#!/usr/bin/env bash
# GPU call C: the whole GPU check of the bundle of main (rebuild it after any table change: python3
# bench/prepare_gpu.py --out out/gpu --stock --amortized --variants donated pipelined; tar czf out/gpu.tgz -C out gpu),
# then memcheck and racecheck over the bundle's kernels. ~585 s.
# carry: out/gpu.tgz .whl
set -uo pipefail
cd "$(dirname "$0")/../../.."
T() { echo "=== $(date +%T) $*"; }
tar xzf out/gpu.tgz -C out
T check
timeout 530 bash bench/gpu_check.sh --bench --bench-dtypes f16 bf16 --iree-bench --stock-targets sm_80 --iree-variants 2>&1 | tail -40
export PYTHONPATH="$PWD/python:/tmp/iree-site" PYTHONUNBUFFERED=1
T memcheck
timeout 25 compute-sanitizer --tool memcheck python3 bench/sanitize_kernels.py --bundle out/gpu > $OUT/memcheck.txt 2>&1; tail -2 $OUT/memcheck.txt
T racecheck
timeout 25 compute-sanitizer --tool racecheck python3 bench/sanitize_kernels.py --bundle out/gpu --only _sm90_ > $OUT/racecheck.txt 2>&1; tail -2 $OUT/racecheck.txt
T done
