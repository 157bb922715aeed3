#!/usr/bin/env bash
# GPU call B (session 22): the sm90_gemm family with its Params read as constant data (out/gemm22, this header)
# against session 21's per-CTA copy (out/gemm21), each beside every batch-256 1x1 layer's shipped kernel and cuDNN
# (CUDA graphs), new then old; then the new kernels' numerics on the 16
# random plain GEMMs (seed 25), memcheck and racecheck. ~300 s on any card; on an H200, afterwards (here):
#   bash bench/plans/table_after.sh DIR iree_cutlass_gemm_      (DIR: tune.json = the new kernels' pass)
# Build first (here): bash bench/plans/session22/build_a.sh (and session 21's build_b.sh for out/gemm21)
# carry: out/gemm22 out/rand22 out/san22 out/gemm21
source "$(dirname "$0")/../lib.sh"
card
T tune new
tune_measure out/gemm22 150 tune.json
T tune old
tune_measure out/gemm21 150 tune_old.json
numerics_and_sanitizers out/rand22 out/san22
T done
