#!/usr/bin/env bash
# Needs commit f24c363: the walk along M (`m_major`, `_mm`) it measures was removed in beac737.
# Builds what session 20's call D (after the whole check) carries (here, no GPU, ~5 min on 2 cores): out/cm20, on the four
# 1x1 layers where CUTLASS's ping-pong GEMM beats our kernels (7x7 512<-2048 and 2048<-512, 14x14 256<-1024,
# 28x28 128<-512; f16, batch 256), four kernels each with spatial boxes or flat pixels, walking channels or M
# fastest (`_fl`, `_mm`): CUTLASS's order is flat and along M.
set -euo pipefail
cd "$(dirname "$0")/../../.."
NAMES=""
for base in 128x128x64_s6_c1_pp_e1_wp 128x128x64_s5_c1_pp_e2_wp 128x256x64_s4_c1_e2_ws 128x128x64_s5_c1_pp_m2_e2_wp; do
  for twin in "" _mm _fl _mm_fl; do NAMES="$NAMES iree_cutlass_dgrad_sm90_f16_$base$twin"; done
done
iree-cutlass-tune build --out out/cm20 --families sm90 --batches 256 --dtypes f16 --jobs 2 \
  --only n256_h7_w7_c512_k2048_r1 n256_h7_w7_c2048_k512_r1 n256_h14_w14_c256_k1024_r1 n256_h28_w28_c128_k512_r1 \
  --candidates $NAMES
echo "[build_c] done at $(git rev-parse --short HEAD)"
