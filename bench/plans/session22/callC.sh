#!/usr/bin/env bash
# GPU call C (session 22): call B cut to the device time left (~250 s): the new sm90_gemm kernels (out/gemm22),
# then session 21's (out/gemm21), each beside the shipped kernels and cuDNN (the tuner checks every run's dx
# against a float64 reference, output poisoned), then the new kernels on the random plain GEMMs. Results are
# written after every candidate, so a cut call keeps what it measured.
# carry: out/gemm22 out/gemm21 out/rand22
source "$(dirname "$0")/../lib.sh"
card
T tune new
tune_measure out/gemm22 100 tune.json
T tune old
tune_measure out/gemm21 80 tune_old.json
T random
timeout 60 python3 -m iree_cutlass.tune measure --plan out/rand22 --check-only --out $OUT/random.json 2>&1 | tail -3
T done
