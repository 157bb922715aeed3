#!/usr/bin/env bash
# Here (no GPU), ~8 min: the candidate bundle out/gpu27s.tgz for call 1: main's table with the entries session 26's
# H100 call A chose (table_after.sh's rule on bench/results/h100_2026-12-06_session26_pingpong_transposed_*), built
# by prepare_gpu.py, then the committed table restored. The table is never committed from H100 timings.
set -euo pipefail
cd "$(dirname "$0")/../../.."
git diff --quiet plugin/tuning/h200.json || { echo "build_candidate: plugin/tuning/h200.json has changes" >&2; exit 1; }
trap 'git checkout -q plugin/tuning/h200.json' EXIT
D=$(mktemp -d)
R=bench/results/h100_2026-12-06_session26_pingpong_transposed
cp ${R}_tune.json $D/tune.json; cp ${R}_random.json $D/random.json
cp ${R}_memcheck.txt $D/memcheck.txt; cp ${R}_racecheck.txt $D/racecheck.txt
bash bench/plans/table_after.sh $D _pp_m2_tr _pp_n2_tr 64x64_s8_c1_pp_tr 256x64x64_s4_c1_pp_tr 2>&1 | grep -v '^\[tune\] n'
python3 bench/prepare_gpu.py --out out/gpu27s --stock --amortized --variants donated pipelined || true
tar czf out/gpu27s.tgz -C out gpu27s
