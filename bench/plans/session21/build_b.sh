#!/usr/bin/env bash
# Builds call B's plans (here; ~10 min on this machine's 2 cores for the tune plan, ~5 more for the random one):
# - out/gemm21: every batch-256 1x1 layer (f16, bf16) with the new sm90_gemm kernels (CUTLASS's own ping-pong
#   128x128 and 128x64 and cooperative 128x256 GEMMs, each built for the layer's GEMM) beside the shipped kernel;
# - out/rand21: the same three sm90_gemm kernels on the plain-GEMM problems among 200 random ones (seed 25:
#   16 problems, odd pixel counts and channels down to 8): numerics and sanitizers of their code.
set -euo pipefail
cd "$(dirname "$0")/../../.."
python3 -m iree_cutlass.tune build --out out/gemm21 --families sm90 sm90_gemm --batches 256 --dtypes f16 bf16 \
  --only _r1_s1_p --candidates 128x128_pp_m 128x64_pp_m 128x256_co_m
python3 -m iree_cutlass.tune build --out out/rand21 --families sm90_gemm --random 200 --seed 25 \
  --channel-multiple 8 --only _r1_s1_ --candidates 128x128_pp_m 128x64_pp_m 128x256_co_m
