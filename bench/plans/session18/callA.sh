#!/usr/bin/env bash
# GPU call A (session 18): the warpgroup-offset kernels (out/tune_o) beside each batch-256 layer's shipped kernel
# and cuDNN, f16 and bf16, CUDA graphs; their numerics and the shipped kernels' on seed 24's 24 random odd problems
# (out/rand_o); memcheck and racecheck over them on batch-2 layers (out/san_o). ~520 s. Build first: build_all.sh.
# carry: out/tune_o out/rand_o out/san_o
source "$(dirname "$0")/../lib.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv
T tune
timeout 290 python3 -m iree_cutlass.tune measure --plan out/tune_o --graph --with-cudnn --out $OUT/tune.json 2>&1 | tail -46
numerics_and_sanitizers out/rand_o out/san_o
T done
