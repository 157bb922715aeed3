#!/usr/bin/env bash
# GPU call A (session 23): all nine sm90_gemm tiles (Params read as constant data) beside every batch-256 1x1
# layer's shipped kernel and cuDNN (CUDA graphs); their numerics on the 16 random plain GEMMs (seed 25), memcheck
# and racecheck; last, if time is left, session 21's per-CTA-copy kernels (out/gemm21) for the before/after.
# ~450 s on any card. Build first (here): bash bench/plans/session23/build_a.sh (and session 21's build_b.sh).
# On an H200, afterwards (here): bash bench/plans/table_after.sh DIR iree_cutlass_gemm_
# carry: out/tune23 out/rand23 out/san23 out/gemm21
source "$(dirname "$0")/../lib.sh"
tune_call out/tune23 240 out/rand23 out/san23
T tune old
tune_measure out/gemm21 100 tune_old.json
T done
