#!/usr/bin/env bash
# GPU call A (ran at b28f7cc, whose header decoded ahead before the release; that header and its `decode_late`
# variant are gone): the decode-ahead A/B: every f16 batch-256 layer's shipped kernel and two batch-8 ones beside its
# `decode_late` twin, which decodes the next tile between tiles as before (kernel_variants also checks that both
# write the same dx, all of it). ~200 s.
# carry: out/var16
set -uo pipefail
cd "$(dirname "$0")/../../.."
T() { echo "=== $(date +%T) $*"; }
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
T variants
timeout 400 python3 bench/kernel_variants.py measure --plan out/var16 --out $OUT/decode_ahead.json 2>&1 | tail -40
T done
