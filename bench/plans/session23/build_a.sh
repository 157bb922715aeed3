#!/usr/bin/env bash
# Builds call A's and B's plans (here, ~40 min on 2 cores; kernels already in the cache are not rebuilt): every
# sm90_gemm tile (the three of session 22's call B and the six never measured) beside each batch-256 1x1 layer's
# shipped kernel (out/tune23), on the 16 random plain GEMMs (out/rand23) and the two sanitizer problems (out/san23).
source "$(dirname "$0")/../lib.sh"
set -e
build_gemm_plans out/tune23 out/rand23 out/san23 128x128_pp_m 128x64_pp_m 128x128_pp_c2_m 64x256_pp_m \
  128x128_co_m 128x256_co_m 256x128_co_m 128x256_co_c2 256x128_co_c2
echo "[build_a] done at $(git rev-parse --short HEAD)"
