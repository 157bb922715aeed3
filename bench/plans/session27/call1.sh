#!/usr/bin/env bash
# GPU call 1 (session 27), H200 only, ~300 s: the tune of session 26's call A on the H200 into $OUT/a/tune.json (the
# ping-pong transposed kernels beside every batch-256 layer's shipped kernel and cuDNN; its random-problem numerics
# and sanitizer logs are the H100's, bench/results/h100_2026-12-06_session26_pingpong_transposed_*: the same
# binaries, the same plans, as session 24 did with session 23's), then the
# batch-256 whole check of the candidate bundle out/gpu27s.tgz into $OUT: main's table with the ten entries that
# session 26's H100 call A chose (ping-pong transposed kernels on five layers, f16 and bf16; not committed, so its
# cases.json says dirty). Where the H200 tune of the first part picks the same kernels, the table committed from it
# is that bundle's, and the whole check is its measurement.
# Build first (here): bash bench/plans/session26/build_a.sh; bench/plans/session27/build_candidate.sh
# carry: out/p26a.tgz out/gpu27s.tgz .whl
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || {
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; exit 0; }
bash "$(dirname "$0")/call2.sh"
source "$(dirname "$0")/../lib.sh"
tar xzf out/gpu27s.tgz -C out
T check
timeout 300 bash bench/gpu_check.sh --bundle out/gpu27s --bench --bench-dtypes f16 bf16 --only n256 2>&1 | tail -6
T done
