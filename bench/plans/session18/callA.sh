#!/usr/bin/env bash
# GPU call A (session 18): the warpgroup-offset kernels (out/tune_o) beside each batch-256 layer's shipped kernel
# and cuDNN, f16 and bf16, CUDA graphs; their numerics and the shipped kernels' on seed 24's 24 random odd problems
# (out/rand_o); memcheck and racecheck over them on batch-2 layers (out/san_o). ~530 s (1372 tuning runs). Build
# first: build_all.sh. Then: bash bench/plans/table_after.sh DIR _o
# carry: out/tune_o out/rand_o out/san_o
source "$(dirname "$0")/../lib.sh"
tune_call out/tune_o 290 out/rand_o out/san_o
