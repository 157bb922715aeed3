#!/usr/bin/env bash
# After call A (here, no GPU): the tuning table from A's warp-store measurements (bench/plans/table_after.sh, the
# warp-store kernels new). The decode variants are read from decode_variants.json by hand: a header change re-times
# every kernel, so it is adopted only with a re-tune and a whole check.
#   bash bench/plans/session17/table_after_A.sh DIR
exec bash "$(dirname "$0")/../table_after.sh" "${1:?usage: table_after_A.sh DIR}" _wp
