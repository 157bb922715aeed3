#!/usr/bin/env bash
# Here (no GPU), seconds where the kernel cache has the kernels: the grid A/B plans (bench/grid_ab.py). Each batch-256
# 1x1 layer's table kernel (f16 and bf16), and every sm90 one also launched on 96, 108, 120 and 126 CTAs instead of
# one per SM: out/grid38h.tgz from the H100 table, out/grid38.tgz from the H200 table.
source "$(dirname "$0")/../lib.sh"
set -e
for plan in grid38h:h100 grid38:h200; do
  name=${plan%%:*}
  rm -rf "out/$name"
  python3 -m iree_cutlass.tune build --out "out/$name" --card "${plan#*:}" --families sm90 sm90_gemm --batches 256 \
    --dtypes f16 bf16 --only _r1_s1_ --candidates no_candidate_but_the_shipped_kernel
  python3 bench/grid_ab.py --plan "out/$name" --ctas 96 108 120 126
  tar czf "out/$name.tgz" -C out "$name"
done
echo "[build_grid] done at $(git rev-parse --short HEAD)"
