#!/usr/bin/env bash
# Builds call B's plans (here; ~25 min on this machine's 2 cores for the tune plan, ~15 more for the random one;
# an interrupted build resumes from the kernel cache):
# - out/gemm21: every batch-256 1x1 layer (f16, bf16) with the new sm90_gemm kernels (CUTLASS's own ping-pong
#   128x128 and 128x64 GEMMs and ping-pong 128x128 on 2x1 clusters, each built for the layer's GEMM: the stock
#   configurations that won a layer in session 20) beside the shipped kernel;
# - out/rand21: the same three sm90_gemm kernels on the plain-GEMM problems among 200 random ones (seed 25:
#   16 problems, odd pixel counts and channels down to 8): numerics of their code;
# - out/san21: the same kernels on two of those problems (one f16, one bf16): memcheck and racecheck of their code
#   (the table takes a kernel code clean on any problem), within the sanitizers' time limits.
set -euo pipefail
cd "$(dirname "$0")/../../.."
python3 -m iree_cutlass.tune build --out out/gemm21 --families sm90 sm90_gemm --batches 256 --dtypes f16 bf16 \
  --only _r1_s1_p --candidates 128x128_pp_m 128x64_pp_m 128x128_pp_c2_m
python3 -m iree_cutlass.tune build --out out/rand21 --families sm90_gemm --random 200 --seed 25 \
  --channel-multiple 8 --only _r1_s1_ --candidates 128x128_pp_m 128x64_pp_m 128x128_pp_c2_m
python3 -m iree_cutlass.tune build --out out/san21 --families sm90_gemm --random 200 --seed 25 \
  --channel-multiple 8 --only n3_h21_w11_c136_k64_r1_s1_p21_q11_pad0x0_str1x1_f16 \
  n3_h2_w30_c160_k80_r1_s1_p2_q30_pad0x0_str1x1_bf16 --candidates 128x128_pp_m 128x64_pp_m 128x128_pp_c2_m
