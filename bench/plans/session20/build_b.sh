#!/usr/bin/env bash
# Needs commit f24c363: the walk along M (`m_major`, `_mm`) it measures was removed in beac737.
# Builds what session 20's call B carries, from the working tree (here, no GPU, ~12 min on 2 cores):
# - out/mm20: on the 1x1 unit-stride batch-256 layers, f16 and bf16, the shipped kernel and its walk-along-M twin
#   (`--twins m_major`), ping-pong 128x128 with and without it, and a few more `_mm` kernels;
# - out/rand_mm: every `_mm` kernel of out/mm20 on seed 25's 48 random odd problems (5 plain GEMMs among them).
set -euo pipefail
cd "$(dirname "$0")/../../.."
iree-cutlass-tune build --out out/mm20 --families sm90 --batches 256 --dtypes f16 bf16 --jobs 2 \
  --only _r1_s1_p56_q56_pad0x0_str1x1 _r1_s1_p28_q28_pad0x0_str1x1 _r1_s1_p14_q14_pad0x0_str1x1 \
  _r1_s1_p7_q7_pad0x0_str1x1 --twins m_major \
  --candidates 128x128x64_s5_c1_pp_e2_wp 128x128x64_s6_c1_pp_e1_wp 128x256x64_s4_c1_e2_ws_mm \
  128x64x64_s6_c1_pp_e2_wp_mm 256x128x64_s3_c1_tr_mm 192x128x64_s4_c1_n2_tr_mm _pp_m2_e2_wp_mm
MM=$(python3 -c "
import json, sys
plan = json.load(open('out/mm20/plan.json'))
print(' '.join(sorted({c['entry'] for p in plan['problems'] for c in p['candidates'] if c['entry'].endswith('_mm')})))")
iree-cutlass-tune build --out out/rand_mm --families sm90 --random 48 --seed 25 --channel-multiple 8 \
  --dtypes f16 bf16 --jobs 2 --candidates $MM
echo "[build_b] done at $(git rev-parse --short HEAD)"
