#!/usr/bin/env bash
# Builds call B's plans (here, ~35 min on 2 cores): session 21's call B plans again, from the sm90_gemm header
# that reads the Params as constant data (out/gemm22, out/rand22, out/san22). Session 21's plans (out/gemm21 ...,
# the per-CTA Params copy) stay beside them for the same-call comparison.
source "$(dirname "$0")/../lib.sh"
set -e
build_gemm_plans out/gemm22 out/rand22 out/san22 128x128_pp_m 128x64_pp_m 128x128_pp_c2_m
echo "[build_a] done at $(git rev-parse --short HEAD)"
