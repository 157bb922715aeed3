#!/usr/bin/env bash
# Builds call B's plans (here; ~25 min on this machine's 2 cores for the tune plan, ~15 more for the random one;
# an interrupted build resumes from the kernel cache):
# (Run at e2e0bc4 for session 21's kernels, the per-CTA Params copy; on main it builds the current header.)
# - out/gemm21: every batch-256 1x1 layer (f16, bf16) with the new sm90_gemm kernels (CUTLASS's own ping-pong
#   128x128 and 128x64 GEMMs and ping-pong 128x128 on 2x1 clusters, each built for the layer's GEMM: the stock
#   configurations that won a layer in session 20) beside the shipped kernel;
# - out/rand21: the same three sm90_gemm kernels on the plain-GEMM problems among 200 random ones (seed 25:
#   16 problems, odd pixel counts and channels down to 8): numerics of their code;
# - out/san21: the same kernels on two of those problems (one f16, one bf16): memcheck and racecheck of their code
#   (the table takes a kernel code clean on any problem), within the sanitizers' time limits.
source "$(dirname "$0")/../lib.sh"
set -e
build_gemm_plans out/gemm21 out/rand21 out/san21 128x128_pp_m 128x64_pp_m 128x128_pp_c2_m
