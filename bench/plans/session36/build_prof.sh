#!/usr/bin/env bash
# Here (no GPU), ~2 min: the H100 table's kernel alone for each memory-bound batch-256 f16 1x1 layer (PROF_KEYS),
# into out/prof36 and out/prof36.tgz, for call_prof.sh to profile beside cuDNN.
set -euo pipefail
cd "$(dirname "$0")/../../.."
source bench/plans/session36/prof_layers.sh
rm -rf out/prof36
python3 -m iree_cutlass.tune build --out out/prof36 --card h100 --families sm90 sm90_gemm --batches 256 \
  --dtypes f16 --only "${PROF_KEYS[@]}" --candidates no_candidate_but_the_shipped_kernel
tar czf out/prof36.tgz -C out prof36
ls -la out/prof36.tgz
