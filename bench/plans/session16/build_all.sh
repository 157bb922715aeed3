#!/usr/bin/env bash
# Builds what session 16's GPU calls carry, from the committed tree (run here, no GPU): the decode-ahead A/B of
# every f16 batch-256 layer's shipped kernel, four bf16 and two batch-8 ones (kernel_variants, for call C), the
# re-tune of the candidates near the best of earlier tunes with their random and sanitizer plans (call B; in
# session 16 they were built from b28f7cc's header, which decoded ahead everywhere), and the GPU-check bundle.
set -euo pipefail
cd "$(dirname "$0")/../../.."
rm -rf out/var16b out/tune16 out/rand16 out/san16 out/gpu out/gpu.tgz
TAGS=$(python3 -c "
from iree_cutlass.workloads import resnet50_layers
print(' '.join(l.tag for l in resnet50_layers(batches=(256,), dtypes=('f16',))))")
python3 bench/kernel_variants.py build --out out/var16b --tags $TAGS s1_1x1_256_64_n256_bf16 s2_3x3_128_128s2_n256_bf16 \
  s4_3x3_512_512_n256_bf16 s2_1x1_256_128_n256_bf16 s4_3x3_512_512_n8_f16 s3_1x1_1024_256_n8_f16 \
  --variants decode_ahead decode_ahead_all --jobs 2
NEAR=$(python3 bench/plans/session16/near_best.py 0.02 5)
SHIPPED=$(python3 bench/plans/session16/shipped_names.py)
iree-cutlass-tune build --out out/tune16 --families sm90 --batches 256 --dtypes f16 bf16 --jobs 2 --candidates $NEAR
iree-cutlass-tune build --out out/rand16 --families sm90 --random 24 --seed 21 --channel-multiple 8 \
  --dtypes f16 bf16 --jobs 2 --candidates $NEAR $SHIPPED
iree-cutlass-tune build --out out/san16 --families sm90 --batches 2 --dtypes f16 bf16 --jobs 2 --candidates $NEAR
# IREE 3.13 cannot compile the bf16 CNN gradient itself (its own codegen, a known limit): a failed case is
# reported, not fatal.
python3 bench/prepare_gpu.py --out out/gpu --stock --amortized --variants donated pipelined || true
tar czf out/gpu.tgz -C out gpu
echo "[build_all] done at $(git rev-parse --short HEAD)"
