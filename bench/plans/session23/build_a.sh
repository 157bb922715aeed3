#!/usr/bin/env bash
# Builds call A's plans (here, ~40 min on 2 cores; kernels already in the cache are not rebuilt): every sm90_gemm
# tile (the three of session 22's call B and the six never measured) beside each batch-256 1x1 layer's shipped
# kernel (out/tune23), the same tiles on the 16 random plain GEMMs (seed 25, out/rand23) and on the two sanitizer
# problems (out/san23).
set -euo pipefail
cd "$(dirname "$0")/../../.."
CANDIDATES="128x128_pp_m 128x64_pp_m 128x128_pp_c2_m 64x256_pp_m 128x128_co_m 128x256_co_m 256x128_co_m
  128x256_co_c2 256x128_co_c2"
python3 -m iree_cutlass.tune build --out out/tune23 --families sm90 sm90_gemm --batches 256 --dtypes f16 bf16 \
  --only _r1_s1_p --candidates $CANDIDATES
python3 -m iree_cutlass.tune build --out out/rand23 --families sm90_gemm --random 200 --seed 25 \
  --channel-multiple 8 --only _r1_s1_ --candidates $CANDIDATES
python3 -m iree_cutlass.tune build --out out/san23 --families sm90_gemm --random 200 --seed 25 \
  --channel-multiple 8 --only n3_h21_w11_c136_k64_r1_s1_p21_q11_pad0x0_str1x1_f16 \
  n3_h2_w30_c160_k80_r1_s1_p2_q30_pad0x0_str1x1_bf16 --candidates $CANDIDATES
echo "[build_a] done at $(git rev-parse --short HEAD)"
