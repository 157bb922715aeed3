#!/usr/bin/env bash
# Here (no GPU): an H100 plan (out/tune37p.tgz; 16 kernels to compile, seconds where the kernel cache has them) that
# times, in one run, the kernels that sessions 36 and 37 measured only in different runs on two write-heavy 1x1
# layers (f16 and bf16, batch 256):
# - 256<-64 at 56x56: the table's kernel (session 36's thread-store `256x64x64_s4_c1_tr_ts` for bf16), the one it
#   replaced (`128x64x64_s8_c1_pp_tr`) and session 37's best 256-channel flat tiles;
# - 512<-128 at 28x28: the table's `256x64x64_s4_c1_n2_tr_b2`, the one it replaced (`256x64x64_s4_c1_pp_n2_tr`)
#   and `128x256x64_s4_c1_e1_fl`, which beat the replaced one by 1.8-2.8% in both of session 37's runs.
# Every candidate was checked on random problems and under memcheck and racecheck in sessions 36 and 37.
source "$(dirname "$0")/../lib.sh"
set -e
source bench/plans/session36/prof_layers.sh
NAMES=()
for dtype in f16 bf16; do
  for tile in 128x64x64_s8_c1_pp_tr 256x64x64_s4_c1_tr_ts 256x64x64_s4_c1_pp_n2_tr 256x64x64_s4_c1_n2_tr_b2 \
              128x256x64_s4_c1_e1_fl 128x256x64_s3_c1_fl 128x256x64_s8_c1_rk1_fl 128x256x64_s8_c1_rk1_e2_fl; do
    NAMES+=("iree_cutlass_dgrad_sm90_${dtype}_${tile}")
  done
done
rm -rf out/tune37p
python3 -m iree_cutlass.tune build --out out/tune37p --card h100 --families sm90 --batches 256 --dtypes f16 bf16 \
  --jobs 2 --only "${PROF_KEYS[1]}" "${PROF_KEYS[3]}" --candidates "${NAMES[@]}"
tar czf out/tune37p.tgz -C out tune37p
echo "[build_pair] done at $(git rev-parse --short HEAD)"
