#!/usr/bin/env bash
# Here (no GPU), ~10 min on 2 cores where the kernel cache is cold: the partner-skip tune of a card's table
# (CARD, default h100; out/sp38<card>.tgz holding three plans):
# - tune38s: every batch-8 and batch-256 layer (f16, bf16) whose table kernel has a `_sp` twin (a ping-pong kernel
#   without a filter slab on a walk of one phase), the twin beside it; on the memory-bound 1x1 layers at 56x56 and
#   28x28 (session 36's prof_layers.sh) also the transposed 64-channel ping-pong kernels, alone and in 2-CTA
#   clusters, with and without the skip (kernel_variants.py's A/B on the H100 moved these by -6% to +27%);
# - rand38s: those kernels on the random one-phase problems among 200 (seed 25), numerics only;
# - san38s: those kernels on the same layers at batch 2, for memcheck and racecheck.
source "$(dirname "$0")/../lib.sh"
set -e
source bench/plans/session36/prof_layers.sh
card=${1:-h100}
out=sp38${card}
rm -rf out/$out
mkdir -p out/$out
python3 -m iree_cutlass.tune build --out out/$out/tune38s --card "$card" --families sm90 sm90_gemm --batches 8 256 \
  --dtypes f16 bf16 --candidates no_candidate_but_the_shipped_kernel --twins skip_partner --jobs 2
python3 -m iree_cutlass.tune build --out out/$out/tune38w --card "$card" --families sm90 sm90_gemm --batches 256 \
  --dtypes f16 bf16 --only "${PROF_KEYS[@]}" --candidates 128x64x64_s8_c1_pp_tr 128x64x64_s8_c1_pp_m2_tr \
  128x64x64_s8_c1_pp_n2_tr 256x64x64_s4_c1_pp_tr 256x64x64_s4_c1_pp_m2_tr 256x64x64_s4_c1_pp_n2_tr --skip _wr _ts \
  --jobs 2
# Every `_sp` kernel the two plans time, on random problems and at batch 2.
twin_checks out/$out "$card" '_sp$' rand38s san38s tune38s tune38w
tar czf out/$out.tgz -C out $out
ls -la out/$out.tgz
echo "[build_sp] done at $(git rev-parse --short HEAD)"
