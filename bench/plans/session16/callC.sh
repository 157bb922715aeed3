#!/usr/bin/env bash
# GPU call C: the session-16 header against the tile loop before it (kernel_variants `old_walk`, which restores
# the consumers' old loop exactly), on every f16 batch-256 layer's shipped kernel, four bf16 ones, and the kernels
# the re-tune would ship on five layers; measured twice over, since the whole check of call A's card ran several
# layers 4-23% slower than session 15's. ~120 s.
# carry: out/var16b
set -uo pipefail
cd "$(dirname "$0")/../../.."
T() { echo "=== $(date +%T) $*"; }
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
for run in 1 2; do
  T "old_walk run $run"
  timeout 150 python3 bench/kernel_variants.py measure --plan out/var16b --out $OUT/old_walk_$run.json 2>&1 | tail -2
done
T done
