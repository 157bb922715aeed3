#!/usr/bin/env bash
# GPU call 1 (session 33), ~410 s on an H200: the two pending H200 tunes (session31/call_short.sh: session 26's plan
# into $OUT/a, the swapped GEMM kernels into $OUT/sw), then the batch-256 whole check of the candidate bundle
# (build_candidate.sh: main's table with the entries the same rule picks from the H100 tunes) into $OUT/cand:
# every batch-256 case's numerics through IREE and alone, kernel, cuDNN and XLA side by side, f16 and bf16. Where
# the H200 tunes pick the candidate's kernels, that check is the new table's measurement; where they differ, it
# still times each candidate kernel beside cuDNN on the H200.
# On another card (~220 s), the candidate check alone: the swapped GEMM kernels have never run through IREE.
# carry: out/p26a.tgz out/p31.tgz out/gpu33c.tgz .whl
here="$(dirname "$0")"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  bash "$here/../session31/call_short.sh"
fi
source "$here/../lib.sh"
tar xzf out/gpu33c.tgz -C out
mkdir -p "$OUT/cand"
T check
OUT="$OUT/cand" timeout 300 bash bench/gpu_check.sh --bundle out/gpu33c --bench --bench-dtypes f16 bf16 \
  --only n256 2>&1 | tail -6
T done
