#!/usr/bin/env bash
# After call A (here, no GPU): the tuning table from A's measurements (bench/plans/table_after.sh, the ring,
# thread-store and warpgroup-release kernels new; the other type's kernels of --cross-dtype are shipped code).
#   bash bench/plans/session15/table_after_A.sh DIR
exec bash "$(dirname "$0")/../table_after.sh" "${1:?usage: table_after_A.sh DIR}" _e1 _ts _wr
