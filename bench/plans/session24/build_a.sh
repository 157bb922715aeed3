#!/usr/bin/env bash
# Builds call A's plans (here): session 23's sm90_gemm plans (out/tune23, out/rand23, out/san23; ~40 min on 2
# cores from an empty kernel cache) and each batch-256 3x3 layer's shipped kernel alone (out/ship24), packed into
# out/p24.tgz (the working tree's carry limit).
source "$(dirname "$0")/../lib.sh"
set -e
[ -f out/tune23/plan.json ] || bash bench/plans/session23/build_a.sh
python3 -m iree_cutlass.tune build --out out/ship24 --families sm90 --batches 256 --dtypes f16 bf16 \
  --only _r3_s3_ --candidates NONE_SUCH
tar czf out/p24.tgz -C out tune23 rand23 san23 ship24
echo "[build_a] done at $(git rev-parse --short HEAD): out/p24.tgz"
