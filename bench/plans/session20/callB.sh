#!/usr/bin/env bash
# Needs commit f24c363: the walk along M (`m_major`, `_mm`) it measures was removed in beac737.
# GPU call B (session 20): the walk along M (`m_major`, `_mm`) on the 1x1 unit-stride batch-256 layers, f16 and
# bf16, CUDA graphs: each layer's shipped kernel and its `_mm` twin, ping-pong 128x128 with and without it, and a
# few more `_mm` kernels, beside cuDNN (out/mm20); then every `_mm` kernel's numerics on seed 25's 48 random odd
# problems (out/rand_mm, check only). Sanitizers: the whole check that follows covers whatever the table ships.
# ~150 s. Build first: bash bench/plans/session20/build_b.sh. Then, from an H200 run with sanitizer logs only:
# bench/plans/table_after.sh (it ran on an H100: no table change).
# carry: out/mm20 out/rand_mm
source "$(dirname "$0")/../lib.sh"
card
T tune
tune_measure out/mm20 240 tune.json
T random
timeout 100 python3 -m iree_cutlass.tune measure --plan out/rand_mm --check-only --out $OUT/random.json 2>&1 | tail -3
T done
