#!/usr/bin/env bash
# Here (no GPU), ~9 min: the candidate bundle out/gpu33c.tgz for call1.sh. It is main's table with the entries that
# table_after_tunes.sh's rule picks from the three H100 tunes of the pending plans (session 26's ping-pong transposed
# tiles, `_128` run; session 32's swapped GEMM kernels; session 33's, build_sw2.sh), built by prepare_gpu.py; then
# the committed table is restored. The table is never committed from H100 timings: this bundle only lets one H200
# call time the likely next table beside cuDNN in the same call as the H200 tunes that decide it.
source "$(dirname "$0")/../lib.sh"
set -e
git diff --quiet plugin/tuning/h200.json || { echo "build_candidate: plugin/tuning/h200.json has changes" >&2; exit 1; }
trap 'git checkout -q plugin/tuning/h200.json' EXIT
candidate_table
python3 bench/prepare_gpu.py --out out/gpu33c --stock --amortized --variants donated pipelined || true
tar czf out/gpu33c.tgz -C out gpu33c
