#!/usr/bin/env bash
# GPU call B (session 23). On any card: the first sm90_gemm kernels run inside IREE (out/gpu_gemm: two plain-GEMM
# layers at batch 8 and 256, f16 and bf16, compiled with --iree-cutlass-kernels=sm90_gemm; numerics, then ours
# beside cuDNN and XLA), ~40 s. On an H200 only: call A's tuning (all nine sm90_gemm tiles beside the shipped
# kernels and cuDNN, their random numerics, memcheck and racecheck) for the H200 table, ~70 s.
# Build (here): python3 bench/prepare_gpu.py --out out/gpu_gemm --kernels sm90_gemm --no-cnn --batches 8 256 \
#   --dtypes f16 bf16 --only s1_1x1_64_64 s4_1x1_2048_512; bash bench/plans/session23/build_a.sh
# Afterwards (here), on an H200's results: bash bench/plans/table_after.sh DIR iree_cutlass_gemm_
# The plans travel packed (the working tree's limit): tar czf out/p23.tgz -C out tune23 rand23 san23
# carry: out/gpu_gemm .whl out/p23.tgz
source "$(dirname "$0")/../lib.sh"
tar xzf out/p23.tgz -C out
T iree
timeout 120 bash bench/gpu_check.sh --bundle out/gpu_gemm --bench --bench-dtypes f16 bf16 2>&1 | tail -14
mv $OUT/gpu_check.json $OUT/gpu_gemm_check.json 2>/dev/null
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || { echo "not an H200: no tuning"; exit 0; }
tune_call out/tune23 200 out/rand23 out/san23
