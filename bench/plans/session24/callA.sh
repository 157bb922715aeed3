#!/usr/bin/env bash
# GPU call A (session 24), H200 only: all nine sm90_gemm tiles beside every batch-256 1x1 layer's shipped kernel
# and cuDNN (CUDA graphs), then each batch-256 3x3 layer's shipped kernel beside cuDNN, so that one run holds a
# kernel-only ratio for all 22 layers in both types under the table the tuning would give; then the family's
# numerics on the 16 random plain GEMMs. ~380 s. No sanitizers here (device time is short): these are the very
# binaries session 23's H100 call A ran clean under memcheck and racecheck (the same plans, out/san23), and the
# whole check runs both over whatever the table then ships.
# Build first (here): bash bench/plans/session24/build_a.sh
# Afterwards (here): copy bench/results/h100_2026-12-06_session23_gemm_{memcheck,racecheck}.txt into DIR as
#   memcheck.txt and racecheck.txt, bash bench/plans/table_after.sh DIR iree_cutlass_gemm_, then the kernel-only
#   geomean that table gives in this one run:
#   python3 bench/table_projection.py --table plugin/tuning/h200.json DIR/tune.json DIR/shipped_3x3.json
# Run as: nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || exit 0; bash <this>
# carry: out/p24.tgz
source "$(dirname "$0")/../lib.sh"
tar xzf out/p24.tgz -C out
card
T tune
tune_measure out/tune23 240 tune.json
T 3x3 shipped
tune_measure out/ship24 60 shipped_3x3.json
random_numerics out/rand23
T done
