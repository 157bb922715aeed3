#!/usr/bin/env bash
# Builds what session 18's first GPU call carries, from the committed tree (here, no GPU, ~25 min on 2 cores):
# - out/tune_o: the warpgroup-offset kernels (bench/plans/session18/offset_twins.py) beside each batch-256 layer's
#   shipped kernel, f16 and bf16;
# - out/rand_o: those and the shipped kernels on seed 24's 24 random odd problems (numerics only);
# - out/san_o: the offset kernels on batch-2 layers, for memcheck and racecheck.
set -euo pipefail
cd "$(dirname "$0")/../../.."
rm -rf out/tune_o out/rand_o out/san_o
TWINS=$(python3 bench/plans/session18/offset_twins.py 0.03 3)
OFFSET=$(tr ' ' '\n' <<<"$TWINS" | grep '_o[0-9]$' | tr '\n' ' ')
SHIPPED=$(python3 bench/plans/session16/shipped_names.py)
iree-cutlass-tune build --out out/tune_o --families sm90 --batches 256 --dtypes f16 bf16 --jobs 2 --candidates $TWINS
iree-cutlass-tune build --out out/rand_o --families sm90 --random 24 --seed 24 --channel-multiple 8 \
  --dtypes f16 bf16 --jobs 2 --candidates $OFFSET $SHIPPED
iree-cutlass-tune build --out out/san_o --families sm90 --batches 2 --dtypes f16 bf16 --jobs 2 --candidates $OFFSET
echo "[build_all] done at $(git rev-parse --short HEAD)"
