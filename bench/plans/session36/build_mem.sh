#!/usr/bin/env bash
# Here (no GPU), ~30 min on 2 cores: an H100 plan for the memory-bound batch-256 1x1 layers (prof_layers.sh), f16
# and bf16: the transposed 64-channel kernels (ping-pong and cooperative, 128 and 256 pixels, alone and in 2-CTA
# clusters, one or two staging tiles, TMA or thread stores; no warpgroup release) beside the H100 table's kernel
# and cuDNN, into out/tune36m (out/tune36m.tgz), with their random-problem numerics (out/rand36m) and a sanitizer
# plan (out/san36m). The H100 re-tune timed only the two tables' kernels on these layers, and there the H200's
# kernels ran 13-24% slower than the transposed ping-pong ones, so the H100 may have faster transposed kernels
# that no H100 run has timed.
set -euo pipefail
cd "$(dirname "$0")/../../.."
source bench/plans/session36/prof_layers.sh
CANDIDATES=(128x64x64_s8_c1_pp_tr 128x64x64_s8_c1_pp_n2_tr 128x64x64_s8_c1_pp_m2_tr 256x64x64_s4_c1_pp_
  128x64x64_s8_c1_tr 128x64x64_s8_c1_n2_tr 256x64x64_s4_c1_tr 256x64x64_s4_c1_n2_tr)
rm -rf out/tune36m out/rand36m out/san36m
python3 -m iree_cutlass.tune build --out out/tune36m --card h100 --families sm90 sm90_gemm --batches 256 \
  --dtypes f16 bf16 --only "${PROF_KEYS[@]}" --candidates "${CANDIDATES[@]}" --skip _wr --jobs 2
# Numerics on odd shapes: the random 1x1 problems among 200 (seed 25, as session 32's GEMM plans).
python3 -m iree_cutlass.tune build --out out/rand36m --card h100 --families sm90 --random 200 --seed 25 \
  --channel-multiple 8 --only _r1_s1_ --candidates "${CANDIDATES[@]}" --skip _wr --jobs 2
# The same layers at batch 2, every kernel of the tune, for memcheck and racecheck.
python3 -m iree_cutlass.tune build --out out/san36m --card h100 --families sm90 sm90_gemm --batches 2 \
  --dtypes f16 bf16 --only "${PROF_SHAPES[@]/#/n2}" --candidates "${CANDIDATES[@]}" --skip _wr --jobs 2
tar czf out/tune36m.tgz -C out tune36m rand36m san36m
ls -la out/tune36m.tgz
