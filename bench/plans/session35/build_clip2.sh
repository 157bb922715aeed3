#!/usr/bin/env bash
# Here (no GPU): a wider clipped-tap search on ResNet-50's 3x3 512<-512 layer at 7x7, batch 256, where the first
# clip run (build_clip.sh) put the 128x256 cooperative tile with clipped taps in the H100 table: every clipped
# 128x256 and 256x128 candidate of the layer without thread stores, warpgroup release or a warpgroup offset (store
# rings, warpgroup and warp stores, transposed tiles, dy-sharing pairs), f16 and bf16, beside the table's kernel
# (out/tune35c2); the same kernels on the first 20 random padded problems of seed 25 (out/rand35c2, numerics) and on
# the layer at batch 2 (out/san35c2, sanitizers). out/p35c2.tgz.
source "$(dirname "$0")/../lib.sh"
set -e
mapfile -t NAMES < <(python3 - <<'PY'
from iree_cutlass.plugin.problem import DgradProblem
from iree_cutlass.plugin.select import candidate_configs
for dtype in ("f16", "bf16"):
    problem = DgradProblem(256, 7, 7, 512, 512, 3, 3, 7, 7, 1, 1, 1, 1, dtype)
    for c in candidate_configs(problem):
        if getattr(c, "clip_taps", False) and (c.tile_m, c.tile_n) in ((128, 256), (256, 128)) \
                and not (c.thread_stores or c.wg_release or c.wg_offset):
            print(c.name)
PY
)
mapfile -t RANDOM_PADDED < <(random_padded 20)
echo "[build_clip2] ${#NAMES[@]} clipped kernels, ${#RANDOM_PADDED[@]} random padded problems"
rm -rf out/tune35c2 out/rand35c2 out/san35c2
python3 -m iree_cutlass.tune build --out out/tune35c2 --families sm90 --card h100 --batches 256 --dtypes f16 bf16 \
  --jobs 2 --only _h7_w7_c512_k512_r3_s3_p7_q7_pad1x1_str1x1_ --candidates "${NAMES[@]}"
python3 -m iree_cutlass.tune build --out out/rand35c2 --families sm90 --random 200 --seed 25 --channel-multiple 8 \
  --jobs 2 --only "${RANDOM_PADDED[@]}" --candidates "${NAMES[@]}"
python3 -m iree_cutlass.tune build --out out/san35c2 --families sm90 --card h100 --batches 2 --dtypes f16 bf16 \
  --jobs 2 --only _h7_w7_c512_k512_r3_s3_p7_q7_pad1x1_str1x1_ --candidates "${NAMES[@]}"
tar czf out/p35c2.tgz -C out tune35c2 rand35c2 san35c2
echo "[build_clip2] done at $(git rev-parse --short HEAD)"
