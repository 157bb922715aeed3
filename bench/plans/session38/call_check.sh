#!/usr/bin/env bash
# GPU call (session 38), an H100, ~1 min: the check of out/gpu38s, the batch-8 layers whose H100 entries session 38
# changed to partner-skipping kernels (prepare_gpu.py --card h100 --stock --no-cnn --batches 8 --only
# s2_1x1_256_512s2_n8 s3_1x1_512_1024s2_n8): their numerics through IREE and their timings beside cuDNN and XLA
# (gpu_check.sh, as session 35's call_h100_check.sh runs it, without its sanitizers: session 38's san38s already ran
# memcheck and racecheck over these kernels), into $OUT/check/gpu_check.json.
# carry: out/gpu38s.tgz .whl
here="$(dirname "$0")"
source "$here/../lib.sh"
card
tar xzf out/gpu38s.tgz -C out
mkdir -p "$OUT/check"
T check
OUT="$OUT/check" timeout 200 bash bench/gpu_check.sh --bundle out/gpu38s --bench --bench-dtypes f16 bf16 2>&1 | tail -6
T done
