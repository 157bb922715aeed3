#!/usr/bin/env bash
# After call_tunes.sh or call_short.sh on an H200 (here, no GPU): the tuning table from both of its tunes at once.
#   bash bench/plans/session31/table_after_tunes.sh DIR    # DIR: what the call returned (a/ and sw/; sw2/ from
#                                                          # session33/call1.sh)
# Both runs measured each problem's shipped kernel beside their candidates, and both hold the four plain-GEMM layers:
# read one after the other, a kernel the first put in the table would stand unmeasured by the second. So one
# `table` reads both (each judged against the shipped table; where both beat a kernel by more than 1%, the larger
# same-run gain wins). A new kernel is chosen only where it ran validly on the random problems and clean in both
# sanitizer logs:
#  a.  session 26's plan ($DIR/a/tune.json): its numerics and sanitizers ran on an H100 in session 26, over the plan
#      with the 128-channel tiles (the `_128` files hold every ping-pong transposed candidate of the plan; the ones
#      without `_128` lack the 128x128 ones). Its new kernels are named whole or by suffix, so that the shipped
#      ping-pong halo kernels (`_pp_tr_hl...`) are not taken for new ones;
#  sw. the swapped GEMM kernels ($DIR/sw): session 32's H100 run of the same kernels (call_sw.sh: every one valid on
#      the random plain GEMMs, memcheck and racecheck clean), and the call's own random numerics where it has them
#      (call_short.sh's H200 branch times the tunes alone).
set -euo pipefail
cd "$(dirname "$0")/../../.."
D=${1:?usage: table_after_tunes.sh DIR}
[ -f "$D/a/tune.json" ] && [ -f "$D/sw/tune.json" ] || {
  echo "table_after_tunes: $D lacks a/tune.json or sw/tune.json" >&2; exit 2; }
H100=bench/results/h100_2026-12-06_session26_pingpong_transposed_128
skip_a=$(python3 bench/sanitizer_logs.py --logs "${H100}_memcheck.txt" "${H100}_racecheck.txt" \
  --unverified-in "$D/a/tune.json" \
  --only _pp_m2_tr _pp_n2_tr 64x64_s8_c1_pp_tr 256x64x64_s4_c1_pp_tr 128x128x64_s5_c1_pp_tr)
SW=bench/results/h100_2026-12-07_session32_swapped
# sw2: session 33's run of the same five swapped kernels on three more plain-GEMM layers, where the call has it.
runs=("$D/a/tune.json" "$D/sw/tune.json")
[ -f "$D/sw2/tune.json" ] && runs+=("$D/sw2/tune.json")
skip_sw=$(python3 bench/sanitizer_logs.py --logs "${SW}_memcheck.txt" "${SW}_racecheck.txt" \
  --unverified-in "${runs[@]:1}" --only _sw)
valid_in=("${H100}_random.json" "${SW}_random.json")
[ -f "$D/sw/random.json" ] && valid_in+=("$D/sw/random.json")
echo "[table_after_tunes] not shown clean by the sanitizers, never chosen: $(wc -w <<<"$skip_a") of a," \
  "$(wc -w <<<"$skip_sw") of sw and sw2"
read -r -a skip <<<"$skip_a $skip_sw"
iree-cutlass-tune table --results "${runs[@]}" --card h200 --min-gain 0.01 \
  --valid-in "${valid_in[@]}" ${skip[0]+--skip "${skip[@]}"}
git --no-pager diff --stat plugin/tuning/h200.json
echo "[table_after_tunes] next: commit the table, rebuild the whole check's bundle from the commit and run it:"
echo "  python3 bench/prepare_gpu.py --out out/gpu --stock --amortized --variants donated pipelined"
echo "  tar czf out/gpu.tgz -C out gpu"
echo "  then bench/plans/session25/callF.sh (carry out/gpu.tgz and the runtime wheel)"
