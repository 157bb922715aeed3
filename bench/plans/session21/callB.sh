#!/usr/bin/env bash
# GPU call B (session 21, not yet run: device loans were paused): the sm90_gemm family (CUTLASS's own Hopper GEMM
# kernels behind IREE's ABI, plugin/sm90_gemm.cuh) on an H200. Every batch-256 1x1 layer's shipped kernel beside
# the family's ping-pong 128x128, 128x64 and 2x1-cluster ping-pong 128x128 kernels and cuDNN (CUDA graphs); then
# their numerics on 16 random plain-GEMM problems, memcheck and racecheck. ~300 s. Then, here:
#   bash bench/plans/table_after.sh DIR iree_cutlass_gemm_     (DIR: what the call returned)
# Build first (here): bash bench/plans/session21/build_b.sh
# carry: out/gemm21 out/rand21 out/san21
source "$(dirname "$0")/../lib.sh"
tune_call out/gemm21 240 out/rand21 out/san21
