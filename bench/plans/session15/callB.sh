#!/usr/bin/env bash
# GPU call B: kernel variants. The memory-path ablations of the 1024<-512 and 7x7 512<-2048 layers' shipped kernels
# (no_epilogue, no_mma, loads_only, no_store), and descriptor prefetch (prefetch_desc) on six short layers. ~90 s.
# (The per-warpgroup cluster release planned here in session 14 is a config field since session 15: call A tunes
# its `_wr` twins.)
# carry: out/var14a out/var14c
set -uo pipefail
cd "$(dirname "$0")/../../.."
T() { echo "=== $(date +%T) $*"; }
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
T ablations
timeout 60 python3 bench/kernel_variants.py measure --plan out/var14a --out $OUT/ablations.json 2>&1 | tail -10
T prefetch
timeout 50 python3 bench/kernel_variants.py measure --plan out/var14c --out $OUT/prefetch.json 2>&1 | tail -12
T done
