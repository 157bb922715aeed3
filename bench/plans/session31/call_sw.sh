#!/usr/bin/env bash
# GPU call (session 31), any card (a table entry needs an H200's), ~220 s: the swapped CUTLASS GEMM kernels of
# build_sw.sh beside each shipped kernel and cuDNN on the four batch-256 plain-GEMM layers still slower than cuDNN
# (CUDA graphs, f16 and bf16) into $OUT/tune.json, then their numerics on two random plain GEMMs into
# $OUT/random.json, and memcheck and racecheck over the same plan (lib.sh's tune_call).
# Build first (here): bash bench/plans/session31/build_sw.sh
# carry: out/p31.tgz
source "$(dirname "$0")/../lib.sh"
tar xzf out/p31.tgz -C out
tune_call out/tune31 150 out/rand31 out/rand31
