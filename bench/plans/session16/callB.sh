#!/usr/bin/env bash
# GPU call B (ran at b28f7cc, whose header decoded ahead everywhere; its variants `decode_late` and
# `decode_before_release` are gone with that header): the decode-ahead A/B (every f16 batch-256 layer's shipped
# kernel and two batch-8 ones beside those two variants), then a re-tune of each batch-256 layer (f16 and bf16)
# over the candidates within 2% of the best in any earlier tune (at most 5 a layer, out/tune16) beside cuDNN, since
# the decode moved a fixed cost per tile that favoured large tiles, and those candidates' numerics on seed 21's 24
# random odd problems (check only), and memcheck and racecheck over those candidates on batch-2 layers
# (out/san16). ~400 s.
# carry: out/var16 out/tune16 out/rand16 out/san16
set -uo pipefail
cd "$(dirname "$0")/../../.."
T() { echo "=== $(date +%T) $*"; }
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
TUNE="python3 -c 'import sys; from iree_cutlass.tune import main; sys.exit(main())'"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv
T variants
timeout 150 python3 bench/kernel_variants.py measure --plan out/var16 --out $OUT/decode_ahead.json 2>&1 | tail -3
T tune
timeout 200 bash -c "$TUNE measure --plan out/tune16 --graph --with-cudnn --out $OUT/tune.json" 2>&1 | tail -48
T random
timeout 120 bash -c "$TUNE measure --plan out/rand16 --check-only --out $OUT/random.json" 2>&1 | tail -3
T memcheck
timeout 80 compute-sanitizer --tool memcheck python3 bench/sanitize_kernels.py --plan out/san16 > $OUT/memcheck.txt 2>&1; tail -2 $OUT/memcheck.txt
T racecheck
timeout 150 compute-sanitizer --tool racecheck python3 bench/sanitize_kernels.py --plan out/san16 > $OUT/racecheck.txt 2>&1; tail -2 $OUT/racecheck.txt
T done
