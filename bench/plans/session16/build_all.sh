#!/usr/bin/env bash
# Builds what session 16's GPU calls carry, from the committed tree (run here, no GPU): the decode-ahead A/B of
# every f16 batch-256 layer's shipped kernel and two batch-8 ones (kernel_variants `decode_late`), and the GPU-check
# bundle of the new header.
set -euo pipefail
cd "$(dirname "$0")/../../.."
rm -rf out/var16 out/gpu out/gpu.tgz
TAGS=$(python3 -c "
from iree_cutlass.workloads import resnet50_layers
print(' '.join(l.tag for l in resnet50_layers(batches=(256,), dtypes=('f16',))))")
python3 bench/kernel_variants.py build --out out/var16 --tags $TAGS s4_3x3_512_512_n8_f16 s3_1x1_1024_256_n8_f16 \
  --variants decode_late --jobs 2
# IREE 3.13 cannot compile the bf16 CNN gradient itself (its own codegen, a known limit): a failed case is
# reported, not fatal.
python3 bench/prepare_gpu.py --out out/gpu --stock --amortized --variants donated pipelined || true
tar czf out/gpu.tgz -C out gpu
echo "[build_all] done at $(git rev-parse --short HEAD)"
