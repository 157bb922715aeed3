#!/usr/bin/env bash
# After call A (here, no GPU): the tuning table from A's measurements.
#   bash bench/plans/session15/table_after_A.sh DIR     # DIR: what call A returned (tune.json, random.json,
#                                                       # memcheck.txt, racecheck.txt)
# A new kernel is chosen only where it beats the shipped kernel measured in the same run by more than 1%, ran
# validly on the random problems (every run of it there), and, for the ring, thread-store and warpgroup-release
# kernels (new code), ran clean in both sanitizer logs. The other type's kernels (--cross-dtype) are shipped code; call C's sanitizers
# cover whatever the new table ships.
set -euo pipefail
cd "$(dirname "$0")/../../.."
D=${1:?usage: table_after_A.sh DIR}
skip=$(python3 bench/sanitizer_logs.py --logs "$D/memcheck.txt" "$D/racecheck.txt" --unverified-in "$D/tune.json" \
  --only _e1 _ts _wr)
echo "[after A] $(wc -w <<<"$skip") ring, thread-store or release kernels not shown clean by the sanitizers: never chosen"
iree-cutlass-tune table --results "$D/tune.json" --card h200 --min-gain 0.01 --valid-in "$D/random.json" \
  ${skip:+--skip $skip}
git --no-pager diff --stat plugin/tuning/h200.json
echo "[after A] next: commit the table, then rebuild call C's bundle from the commit:"
echo "  python3 bench/prepare_gpu.py --out out/gpu --stock --amortized --variants donated pipelined; tar czf out/gpu.tgz -C out gpu"
