#!/usr/bin/env bash
# GPU call (session 33), H200 only, ~410 s: the two pending H200 tunes (session31/call_short.sh: session 26's plan
# into $OUT/a, the swapped GEMM kernels into $OUT/sw), then the batch-256 check of main's current bundle
# (session25/callF.sh into $OUT/check), so that one H200 start gives both the table's next entries and a fresh
# side-by-side figure for the table as it stands. Elsewhere it prints the card and stops.
# carry: out/p26a.tgz out/p31.tgz out/gpu.tgz .whl
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || {
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; exit 0; }
here="$(dirname "$0")"
bash "$here/../session31/call_short.sh"
mkdir -p "$OUT/check"
OUT="$OUT/check" bash "$here/../session25/callF.sh"
