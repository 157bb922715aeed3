#!/usr/bin/env bash
# Here (no GPU), before call D: the ping-pong halo kernels (`_pp_tr_hl`: each consumer warpgroup a whole tile in
# turns, staged in its own halo stage) of the 3x3 C = K = 64 layer beside its shipped kernel (the cooperative halo
# tile) and cuDNN, batch 8 and 256, f16 and bf16 (out/tune25d); the same kernels on the halo problems of seeds 25,
# 37 and 49 (out/rand25d{,b,c}); on the layer at batch 2 for the sanitizers (out/san25d). ~5 min.
source "$(dirname "$0")/../lib.sh"
set -e
rm -rf out/tune25d out/rand25d out/rand25db out/rand25dc out/san25d
iree-cutlass-tune build --out out/tune25d --families sm90 --batches 8 256 --dtypes f16 bf16 --jobs 2 \
  --only _h56_w56_c64_k64_r3_s3_ --candidates _pp_tr_hl
iree-cutlass-tune build --out out/rand25d --families sm90 --random 200 --seed 25 --channel-multiple 8 --jobs 2 \
  --only n4_h6_w39_c64_k200_r2_s2_ n2_h25_w30_c8_k128_r2_s2_ n3_h4_w35_c64_k80_r2_s2_ n3_h16_w31_c24_k40_r3_s3_ \
  n1_h28_w16_c48_k104_r2_s2_ --candidates _pp_tr_hl
iree-cutlass-tune build --out out/rand25db --families sm90 --random 200 --seed 37 --channel-multiple 8 --jobs 2 \
  --only n2_h31_w22_c48_k192_r2_s2_ n2_h37_w32_c64_k64_r3_s3_ n1_h35_w21_c40_k56_r3_s3_ n3_h8_w36_c40_k40_r3_s3_ \
  n3_h32_w22_c40_k176_r2_s2_ --candidates _pp_tr_hl
iree-cutlass-tune build --out out/rand25dc --families sm90 --random 200 --seed 49 --channel-multiple 8 --jobs 2 \
  --only n2_h36_w36_c8_k176_r2_s2_ n1_h39_w39_c48_k24_r3_s3_ n1_h34_w19_c40_k40_r3_s3_ n1_h32_w25_c48_k48_r3_s3_ \
  --candidates _pp_tr_hl
iree-cutlass-tune build --out out/san25d --families sm90 --batches 2 --dtypes f16 bf16 --jobs 2 \
  --only _h56_w56_c64_k64_r3_s3_ --candidates _pp_tr_hl
tar czf out/p25d.tgz -C out tune25d rand25d rand25db rand25dc san25d
echo "[build_d] done at $(git rev-parse --short HEAD)"
