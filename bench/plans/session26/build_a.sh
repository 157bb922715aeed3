#!/usr/bin/env bash
# Here (no GPU), before call A: the ping-pong transposed kernels (`_pp_tr`, `_pp_m2_tr`, `_pp_n2_tr`; 64 channels by
# 128 or 256 pixels, 128 by 128; each warpgroup a whole tile in turns with its own staging tile) beside each
# batch-256 layer's shipped kernel and cuDNN, f16 and bf16 (out/tune26a); the same kernels on the first 60 random
# problems of seed 25 that they compute (out/rand26a); on the 3x3 128<-128 stride-2 layer at batch 2 for the
# sanitizers (out/san26a).
source "$(dirname "$0")/../lib.sh"
set -e
CANDIDATES=(_c1_pp_tr _pp_m2_tr _pp_n2_tr)   # 64 channels by 128 or 256 pixels, 128 by 128
SKIP=(_ts _wr _hl)
rm -rf out/tune26a out/rand26a out/san26a
python3 -m iree_cutlass.tune build --out out/tune26a --families sm90 --batches 256 --dtypes f16 bf16 --jobs 2 \
  --candidates "${CANDIDATES[@]}" --skip "${SKIP[@]}"
python3 -m iree_cutlass.tune build --out out/rand26a --families sm90 --random 60 --seed 25 --channel-multiple 8 \
  --jobs 2 --candidates "${CANDIDATES[@]}" --skip "${SKIP[@]}"
python3 -m iree_cutlass.tune build --out out/san26a --families sm90 --batches 2 --dtypes f16 bf16 --jobs 2 \
  --only _c128_k128_r3_s3_p28 --candidates "${CANDIDATES[@]}" --skip "${SKIP[@]}"
tar czf out/p26a.tgz -C out tune26a rand26a san26a
echo "[build_a] done at $(git rev-parse --short HEAD)"
