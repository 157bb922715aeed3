#!/usr/bin/env bash
# Builds what session 17's first GPU call carries, from the committed tree (run here, no GPU, ~25 min on 2 cores):
# - out/var17: every f16 batch-256 layer's shipped kernel, four bf16 and two batch-8 ones, each also as the
#   kernel_variants `decode_once` and `decode_ahead` edits and the `no_fence` ablation;
# - out/tune17: the warp-store twins (bench/plans/session17/warp_twins.py) beside each batch-256 layer's shipped
#   kernel, f16 and bf16; out/rand17: those twins and the shipped kernels on seed 22's 24 random odd problems;
#   out/san17: the twins on batch-2 layers, for memcheck and racecheck.
set -euo pipefail
cd "$(dirname "$0")/../../.."
rm -rf out/var17 out/tune17 out/rand17 out/san17
TAGS=$(python3 -c "
from iree_cutlass.workloads import resnet50_layers
print(' '.join(l.tag for l in resnet50_layers(batches=(256,), dtypes=('f16',))))")
TWINS=$(python3 bench/plans/session17/warp_twins.py 0.03 4)
SHIPPED=$(python3 bench/plans/session16/shipped_names.py)
iree-cutlass-tune build --out out/tune17 --families sm90 --batches 256 --dtypes f16 bf16 --jobs 2 --candidates $TWINS
iree-cutlass-tune build --out out/rand17 --families sm90 --random 24 --seed 22 --channel-multiple 8 \
  --dtypes f16 bf16 --jobs 2 --candidates $TWINS $SHIPPED
iree-cutlass-tune build --out out/san17 --families sm90 --batches 2 --dtypes f16 bf16 --jobs 2 --candidates $TWINS
python3 bench/kernel_variants.py build --out out/var17 --tags $TAGS s1_1x1_256_64_n256_bf16 s2_3x3_128_128s2_n256_bf16 \
  s4_3x3_512_512_n256_bf16 s2_1x1_256_128_n256_bf16 s4_3x3_512_512_n8_f16 s3_1x1_1024_256_n8_f16 \
  --variants decode_once decode_ahead no_fence --jobs 2
echo "[build_all] done at $(git rev-parse --short HEAD)"
