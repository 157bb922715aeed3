#!/usr/bin/env bash
# Here (no GPU), before call B: the halo-tile kernels (sm90 `halo_blocks`, `_tr_hl`) of the 3x3 C = K = 64 layer
# beside its shipped kernel, batch 8 and 256, f16 and bf16 (out/tune25); the halo kernels and the shipped ones on
# the five problems of seed 25's 200 random ones that a halo kernel computes (2x2 and 3x3 filters, padding 0-2, K
# up to 200: out/rand25); the halo kernels on the layer at batch 2 for the sanitizers (out/san25). ~10 min.
source "$(dirname "$0")/../lib.sh"
set -e
rm -rf out/tune25 out/rand25 out/san25
iree-cutlass-tune build --out out/tune25 --families sm90 --batches 8 256 --dtypes f16 bf16 --jobs 2 \
  --only _h56_w56_c64_k64_r3_s3_ --candidates _tr_hl _b2_hl
iree-cutlass-tune build --out out/rand25 --families sm90 --random 200 --seed 25 --channel-multiple 8 --jobs 2 \
  --only n4_h6_w39_c64_k200_r2_s2_ n2_h25_w30_c8_k128_r2_s2_ n3_h4_w35_c64_k80_r2_s2_ n3_h16_w31_c24_k40_r3_s3_ \
  n1_h28_w16_c48_k104_r2_s2_ --candidates _tr_hl _b2_hl
iree-cutlass-tune build --out out/san25 --families sm90 --batches 2 --dtypes f16 bf16 --jobs 2 \
  --only _h56_w56_c64_k64_r3_s3_ --candidates _tr_hl _b2_hl
tar czf out/p25.tgz -C out tune25 rand25 san25
# The bf16 256-pixel halo kernel (`..._bf16_256x64x64_s2_c1_tr_hl`) runs on none of seed 25's problems, so
# `table --valid-in` could not admit it (the table kept the bf16 entries): seeds 37 and 49 hold nine problems the
# 256-pixel two-stage halo kernels compute, four of them bf16 (out/rand25b, out/rand25c; carried in out/p25b.tgz).
iree-cutlass-tune build --out out/rand25b --families sm90 --random 200 --seed 37 --channel-multiple 8 --jobs 2 \
  --only n2_h31_w22_c48_k192_r2_s2_ n2_h37_w32_c64_k64_r3_s3_ n1_h35_w21_c40_k56_r3_s3_ n3_h8_w36_c40_k40_r3_s3_ \
  n3_h32_w22_c40_k176_r2_s2_ --candidates _tr_hl _b2_hl
iree-cutlass-tune build --out out/rand25c --families sm90 --random 200 --seed 49 --channel-multiple 8 --jobs 2 \
  --only n2_h36_w36_c8_k176_r2_s2_ n1_h39_w39_c48_k24_r3_s3_ n1_h34_w19_c40_k40_r3_s3_ n1_h32_w25_c48_k48_r3_s3_ \
  --candidates _tr_hl _b2_hl
tar czf out/p25b.tgz -C out rand25b rand25c
echo "[build_b] done at $(git rev-parse --short HEAD)"
