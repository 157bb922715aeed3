#!/usr/bin/env bash
# After call A (here, no GPU): the tuning table from A's warp-store measurements.
#   bash bench/plans/session17/table_after_A.sh DIR     # DIR: what call A returned (tune.json, random.json,
#                                                       # memcheck.txt, racecheck.txt)
# A warp-store kernel is chosen only where it beats the shipped kernel measured in the same run by more than 1%,
# ran validly in every run on the random problems, and ran clean in both sanitizer logs. The decode variants are
# read from decode_variants.json by hand: a header change re-times every kernel, so it is adopted only with a
# re-tune and a whole check.
set -euo pipefail
cd "$(dirname "$0")/../../.."
D=${1:?usage: table_after_A.sh DIR}
skip=$(python3 bench/sanitizer_logs.py --logs "$D/memcheck.txt" "$D/racecheck.txt" --unverified-in "$D/tune.json" \
  --only _wp)
echo "[after A] $(wc -w <<<"$skip") warp-store kernels not shown clean by the sanitizers: never chosen"
iree-cutlass-tune table --results "$D/tune.json" --card h200 --min-gain 0.01 --valid-in "$D/random.json" \
  ${skip:+--skip $skip}
git --no-pager diff --stat plugin/tuning/h200.json
echo "[after A] next: commit the table, rebuild call C's bundle from the commit and run the whole check:"
echo "  python3 bench/prepare_gpu.py --out out/gpu --stock --amortized --variants donated pipelined; tar czf out/gpu.tgz -C out gpu"
echo "  then bench/plans/session15/callC.sh (carry out/gpu.tgz and the runtime wheel)"
