#!/usr/bin/env bash
# GPU call (session 36), an H100, ~60 s (call.sh runs it): build_mem.sh's tune of the transposed
# 64-channel kernels on the memory-bound 1x1 layers beside the H100 table's kernel and cuDNN (CUDA graphs) into
# $OUT/tune.json, their numerics on random 1x1 problems and memcheck and racecheck at batch 2 (lib.sh's tune_call).
# carry: out/tune36m.tgz
here="$(dirname "$0")"
source "$here/../lib.sh"
on_h200 && { echo "an H200: run bench/plans/session36/call.sh instead"; exit 1; }
tar xzf out/tune36m.tgz -C out
tune_call out/tune36m 180 out/rand36m out/san36m
