#!/usr/bin/env bash
# Here (no GPU): the swapped CUTLASS GEMM kernels (sm90_gemm `swapped`: dx^T = w x dy^T, tiles of channels by
# pixels, a 2-CTA cluster multicasting the dy tile, as cuDNN's kernels on these layers are) beside each shipped
# kernel on the four batch-256 plain-GEMM layers still slower than cuDNN on the H200 (session 25's check: 1x1
# 512<-2048 and 2048<-512 at 7x7, 1024<-512 and 1024<-256 at 14x14), f16 and bf16 (out/tune31); the same kernels
# on one random plain GEMM of each type (out/rand31, also the sanitizer plan).
source "$(dirname "$0")/../lib.sh"
set -e
LAYERS=(_h7_w7_c512_k2048_r1_s1_ _h7_w7_c2048_k512_r1_s1_ _h14_w14_c1024_k512_r1_s1_ _h14_w14_c1024_k256_r1_s1_)
RANDOM_GEMMS=(n3_h21_w11_c136_k64_r1_s1_p21_q11_pad0x0_str1x1_f16 n3_h2_w30_c160_k80_r1_s1_p2_q30_pad0x0_str1x1_bf16)
rm -rf out/tune31 out/rand31
python3 -m iree_cutlass.tune build --out out/tune31 --families sm90_gemm --batches 256 --dtypes f16 bf16 --jobs 2 \
  --only "${LAYERS[@]}" --candidates "${SWAPPED_CANDIDATES[@]}"
python3 -m iree_cutlass.tune build --out out/rand31 --families sm90_gemm --random 200 --seed 25 --channel-multiple 8 \
  --jobs 2 --only "${RANDOM_GEMMS[@]}" --candidates "${SWAPPED_CANDIDATES[@]}"
tar czf out/p31.tgz -C out tune31 rand31
echo "[build_sw] done at $(git rev-parse --short HEAD)"
