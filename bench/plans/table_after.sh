#!/usr/bin/env bash
# After a tuning call (here, no GPU): the tuning table from that call's measurements of one kind of kernel.
#   bash bench/plans/table_after.sh SUFFIX DIR     # SUFFIX: the entry-point part naming the new kernels (_wp, _o);
#                                                  # DIR: what the call returned (tune.json, random.json,
#                                                  # memcheck.txt, racecheck.txt)
# A new kernel is chosen only where it beats the shipped kernel measured in the same run by more than 1%, ran
# validly in every run on the random problems, and ran clean in both sanitizer logs.
set -euo pipefail
cd "$(dirname "$0")/../.."
SUFFIX=${1:?usage: table_after.sh SUFFIX DIR}
D=${2:?usage: table_after.sh SUFFIX DIR}
skip=$(python3 bench/sanitizer_logs.py --logs "$D/memcheck.txt" "$D/racecheck.txt" --unverified-in "$D/tune.json" \
  --only "$SUFFIX")
echo "[table_after] $(wc -w <<<"$skip") $SUFFIX kernels not shown clean by the sanitizers: never chosen"
iree-cutlass-tune table --results "$D/tune.json" --card h200 --min-gain 0.01 --valid-in "$D/random.json" \
  ${skip:+--skip $skip}
git --no-pager diff --stat plugin/tuning/h200.json
echo "[table_after] next: commit the table, rebuild the whole check's bundle from the commit and run it:"
echo "  python3 bench/prepare_gpu.py --out out/gpu --stock --amortized --variants donated pipelined; tar czf out/gpu.tgz -C out gpu"
echo "  then bench/plans/session15/callC.sh (carry out/gpu.tgz and the runtime wheel)"
