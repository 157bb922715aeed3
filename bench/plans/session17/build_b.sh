#!/usr/bin/env bash
# Builds call B's plans (here, ~15 min on 2 cores): every warp-store kernel without a cluster, with ping-pong or two CTAs an SM
# (bench/plans/session17/pingpong_warp.py) beside each batch-256 layer's shipped kernel, f16 and bf16 (out/tune18),
# on seed 23's 24 random odd problems (out/rand18), and on batch-2 layers for the sanitizers (out/san18).
set -euo pipefail
cd "$(dirname "$0")/../../.."
rm -rf out/tune18 out/rand18 out/san18
WARP=$(python3 bench/plans/session17/pingpong_warp.py)
iree-cutlass-tune build --out out/tune18 --families sm90 --batches 256 --dtypes f16 bf16 --jobs 2 --candidates $WARP
iree-cutlass-tune build --out out/rand18 --families sm90 --random 24 --seed 23 --channel-multiple 8 \
  --dtypes f16 bf16 --jobs 2 --candidates $WARP
iree-cutlass-tune build --out out/san18 --families sm90 --batches 2 --dtypes f16 bf16 --jobs 2 --candidates $WARP
echo "[build_b] done at $(git rev-parse --short HEAD)"
