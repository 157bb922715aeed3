#!/usr/bin/env bash
# After a tuning call (here, no GPU): the tuning table from that call's measurements.
#   bash bench/plans/table_after.sh DIR SUFFIX...   # DIR: what the call returned (tune.json, random.json,
#                                                   # memcheck.txt, racecheck.txt); SUFFIX: entry-point parts
#                                                   # naming the call's new kernels (_wp, _o)
# A kernel is chosen only where it beats the shipped kernel measured in the same run by more than 1% and ran
# validly in every run of it on the random problems; a new kernel (one SUFFIX names) also only where it ran clean
# in both sanitizer logs. Kernels that shipped before are shipped code: the whole check's sanitizers cover
# whatever the new table ships.
set -euo pipefail
cd "$(dirname "$0")/../.."
D=${1:?usage: table_after.sh DIR SUFFIX...}
shift
[ $# -gt 0 ] || { echo "usage: table_after.sh DIR SUFFIX..." >&2; exit 2; }
skip=$(python3 bench/sanitizer_logs.py --logs "$D/memcheck.txt" "$D/racecheck.txt" --unverified-in "$D/tune.json" \
  --only "$@")
echo "[table_after] $(wc -w <<<"$skip") new kernels ($*) not shown clean by the sanitizers: never chosen"
iree-cutlass-tune table --results "$D/tune.json" --card h200 --min-gain 0.01 --valid-in "$D/random.json" \
  ${skip:+--skip $skip}
git --no-pager diff --stat plugin/tuning/h200.json
echo "[table_after] next: commit the table, rebuild the whole check's bundle from the commit and run it:"
echo "  python3 bench/prepare_gpu.py --out out/gpu --stock --amortized --variants donated pipelined; tar czf out/gpu.tgz -C out gpu"
echo "  then bench/plans/session15/callC.sh (carry out/gpu.tgz and the runtime wheel)"
