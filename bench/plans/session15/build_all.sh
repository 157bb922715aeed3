#!/usr/bin/env bash
# Builds everything the next session's GPU calls carry, from the committed tree (run here, no GPU).
set -euo pipefail
cd "$(dirname "$0")/../../.."
rm -rf out/tune14 out/rand14 out/san14 out/var14a out/var14c out/gpu out/gpu.tgz
iree-cutlass-tune build --out out/tune14 --families sm90 --batches 256 --dtypes f16 bf16 --jobs 2 \
  --candidates 256x128x64_s4_c1_e1 256x128x64_s4_c1_n2_e1 256x128x64_s4_c1_m2_e1 _e1_tr --skip _ts \
  --twins thread_stores wg_release --cross-dtype
# The same new kernels on random odd problems (the twins and the other type's kernels by name, so that each is
# checked where it fits). Seed 21's 24 problems give every new kernel of out/tune14 at least one (the resident-
# filter kernels fit few shapes; seed 5's 16 left four out), so that `table --valid-in` can admit any of them.
iree-cutlass-tune build --out out/rand14 --families sm90 --random 24 --seed 21 --channel-multiple 8 \
  --dtypes f16 bf16 --jobs 2 \
  --candidates _e1_tr 256x128x64_s4_c1_e1 256x128x64_s4_c1_n2_e1 256x128x64_s4_c1_m2_e1 \
  $(python3 bench/plans/session15/shipped_twins.py) --skip _ts
# For the sanitizers: every new kernel (the ring candidates, the twins of the batch-256 shipped kernels, the
# clustered candidates' warpgroup-release twins) on the smallest batch-2 layer that lists it.
iree-cutlass-tune build --out out/san14 --families sm90 --batches 2 --dtypes f16 bf16 --jobs 2 \
  --candidates 256x128x64_s4_c1_e1 256x128x64_s4_c1_n2_e1 256x128x64_s4_c1_m2_e1 _e1_tr \
  $(python3 bench/plans/session15/shipped_twins.py) --skip _ts
# IREE 3.13 cannot compile the bf16 CNN gradient itself (its own codegen, a known limit): a failed case is
# reported, not fatal.
python3 bench/prepare_gpu.py --out out/gpu --stock --amortized --variants donated pipelined || true
tar czf out/gpu.tgz -C out gpu
python3 bench/kernel_variants.py build --out out/var14a --tags s4_1x1_1024_512_n256_f16 s4_1x1_512_2048_n256_f16 \
  --variants no_epilogue no_mma loads_only no_store --jobs 2
python3 bench/kernel_variants.py build --out out/var14c --variants prefetch_desc --jobs 2
echo "[build_all] done at $(git rev-parse --short HEAD)"
