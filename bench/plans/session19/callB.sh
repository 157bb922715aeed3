#!/usr/bin/env bash
# GPU call B (session 19): how fast can the 1x1 unit-stride layers go? Those dgrads are plain GEMMs. Stock
# CUTLASS 3.x GEMM kernels (bench/cutlass_gemm, 13 configurations, f16) and cuBLAS (torch.matmul) beside cuDNN's
# dgrad, and our shipped kernels beside cuDNN, all batch 256, CUDA graphs. ~150 s.
# Build first (here): bash bench/cutlass_gemm/build.sh; iree-cutlass-tune build --out out/ship19 --families sm90
#   --batches 256 --dtypes f16 bf16 --only _r1_s1_ --candidates NONE_SUCH
# carry: out/cutlass_gemm out/ship19
source "$(dirname "$0")/../lib.sh"
card
T ours
tune_measure out/ship19 100 ours.json
T gemm
timeout 400 python3 bench/cutlass_gemm/run.py --bins out/cutlass_gemm --batch 256 --out $OUT/gemm.json 2>&1 | tail -60
T done
