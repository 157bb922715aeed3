#!/usr/bin/env bash
# GPU call B (session 23): call A's tuning (all nine sm90_gemm tiles beside the shipped kernels and cuDNN, their
# random numerics, memcheck and racecheck) on an H200 only, for the H200 table; on any other card it stops at
# once (call A already ran there). ~70 s. Afterwards (here): bash bench/plans/table_after.sh DIR iree_cutlass_gemm_
# carry: out/tune23 out/rand23 out/san23
source "$(dirname "$0")/../lib.sh"
card
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || { echo "not an H200: nothing to do"; exit 0; }
T tune
tune_measure out/tune23 200 tune.json
numerics_and_sanitizers out/rand23 out/san23
T done
