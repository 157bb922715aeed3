#!/usr/bin/env bash
# After call_tunes.sh on an H200 (here, no GPU): the tuning table from both of its tunes, one after the other.
#   bash bench/plans/session31/table_after_tunes.sh DIR    # DIR: what the call returned (a/ and sw/)
# 1. Session 26's plan ($DIR/a/tune.json). Its kernels' numerics and sanitizers ran on an H100 in session 26, over
#    the plan with the 128-channel tiles (the `_128` files: every ping-pong transposed candidate of the plan is in
#    them; the files without `_128` lack the 128x128 ones). The new kernels are named whole or by suffix, so that
#    the shipped ping-pong halo kernels (`_pp_tr_hl...`) are not taken for new ones.
# 2. The swapped GEMM kernels ($DIR/sw), with their own random numerics and sanitizer logs from the same call.
# Each step keeps a problem's current kernel unless a kernel beats it by more than 1% in that run (table_after.sh).
set -euo pipefail
cd "$(dirname "$0")/../../.."
D=${1:?usage: table_after_tunes.sh DIR}
[ -f "$D/a/tune.json" ] && [ -f "$D/sw/tune.json" ] || {
  echo "table_after_tunes: $D lacks a/tune.json or sw/tune.json" >&2; exit 2; }
H100=bench/results/h100_2026-12-06_session26_pingpong_transposed_128
A=$(mktemp -d)
trap 'rm -rf "$A"' EXIT
cp "$D/a/tune.json" "$A/tune.json"
cp "${H100}_random.json" "$A/random.json"
cp "${H100}_memcheck.txt" "$A/memcheck.txt"
cp "${H100}_racecheck.txt" "$A/racecheck.txt"
bash bench/plans/table_after.sh "$A" _pp_m2_tr _pp_n2_tr 64x64_s8_c1_pp_tr 256x64x64_s4_c1_pp_tr 128x128x64_s5_c1_pp_tr
bash bench/plans/table_after.sh "$D/sw" _sw
