#!/usr/bin/env bash
# Builds call B's plans (here, ~35 min on 2 cores): session 21's call B plans again, from the sm90_gemm header
# that reads the Params as constant data (out/gemm22, out/rand22, out/san22). Session 21's plans (out/gemm21 ...,
# the per-CTA Params copy) stay beside them for the same-call comparison.
set -euo pipefail
cd "$(dirname "$0")/../../.."
CANDIDATES="128x128_pp_m 128x64_pp_m 128x128_pp_c2_m"
python3 -m iree_cutlass.tune build --out out/gemm22 --families sm90 sm90_gemm --batches 256 --dtypes f16 bf16 \
  --only _r1_s1_p --candidates $CANDIDATES
python3 -m iree_cutlass.tune build --out out/rand22 --families sm90_gemm --random 200 --seed 25 \
  --channel-multiple 8 --only _r1_s1_ --candidates $CANDIDATES
python3 -m iree_cutlass.tune build --out out/san22 --families sm90_gemm --random 200 --seed 25 \
  --channel-multiple 8 --only n3_h21_w11_c136_k64_r1_s1_p21_q11_pad0x0_str1x1_f16 \
  n3_h2_w30_c160_k80_r1_s1_p2_q30_pad0x0_str1x1_bf16 --candidates $CANDIDATES
echo "[build_a] done at $(git rev-parse --short HEAD)"
