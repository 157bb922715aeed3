#!/usr/bin/env bash
# GPU call A (prepared in session 17, which had no device; build first: bash bench/plans/session17/build_all.sh).
# 1. Warp stores: each batch-256 layer's shipped kernel beside the warp-store twins of it and of the kernels near
#    the best of earlier tunes (out/tune17, f16 and bf16), and cuDNN, CUDA graphs.
# 2. Decoding each tile once (`decode_once`), the decode ahead of session 16 (`decode_ahead`), and the staging
#    without its proxy fences (`no_fence`, an ablation: what the fences cost) beside the shipped kernel of every
#    f16 batch-256 layer, four bf16 and two batch-8 ones (out/var17; kernel_variants also records whether each
#    writes the shipped kernel's dx, and all of it).
# 3. The warp-store twins and the shipped kernels on seed 22's 24 random odd problems (numerics only), then memcheck
#    and racecheck over the twins on batch-2 layers.
# ~500 s of the 600 allowed; the timeouts keep each step inside its share.
# carry: out/tune17 out/var17 out/rand17 out/san17
source "$(dirname "$0")/../lib.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv
T tune
timeout 190 python3 -m iree_cutlass.tune measure --plan out/tune17 --graph --with-cudnn --out $OUT/tune.json 2>&1 | tail -48
T variants
timeout 140 python3 bench/kernel_variants.py measure --plan out/var17 --out $OUT/decode_variants.json 2>&1 | tail -3
numerics_and_sanitizers out/rand17 out/san17
T done
