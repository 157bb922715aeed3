#!/usr/bin/env bash
# Here (no GPU): the plan of the H100 re-tune (out/p35.tgz): for each of the 88 ResNet-50 problems (batch 8 and 256,
# f16 and bf16) the kernel of the H200 table and of session 33's candidate table (the H200 table with the entries
# the table rule picked from the H100 tunes of sessions 26, 32 and 33), each also for the other 16-bit type
# (--cross-dtype). Every one of them already won a tune on some card; the H100 table takes the fastest on the H100.
source "$(dirname "$0")/../lib.sh"
set -e
git diff --quiet plugin/tuning/h200.json || { echo "build_h100_tune: plugin/tuning/h200.json has changes" >&2; exit 1; }
# Session 33's candidate table, as build_candidate.sh makes it, kept beside the plan (the committed table restored).
trap 'git checkout -q plugin/tuning/h200.json' EXIT
candidate_table > /dev/null
cp plugin/tuning/h200.json out/cand33_table.json
git checkout -q plugin/tuning/h200.json
rm -rf out/tune35
python3 -m iree_cutlass.tune build --out out/tune35 --families sm80 sm90 sm90_gemm --batches 8 256 --dtypes f16 bf16 \
  --tables plugin/tuning/h200.json out/cand33_table.json --cross-dtype --jobs 2
cp out/cand33_table.json out/tune35/
tar czf out/p35.tgz -C out tune35
echo "[build_h100_tune] done at $(git rev-parse --short HEAD)"
