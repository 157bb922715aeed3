#!/usr/bin/env bash
# GPU call A2 (session 15, after call A found every thread-store kernel's dx wrong and the copy was mended): the
# thread-store twin of every shipped batch-256 kernel beside it and cuDNN (out/tune15ts, CUDA graphs), their
# numerics on the 24 random problems (check only), memcheck and racecheck over them (each on its smallest random
# problem, where every twin fits one); then call B's ablations and
# descriptor prefetch (out/var14a, out/var14c). ~250 s.
# carry: out/tune15ts out/rand15ts out/var14a out/var14c
set -uo pipefail
cd "$(dirname "$0")/../../.."
T() { echo "=== $(date +%T) $*"; }
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
TUNE="python3 -c 'import sys; from iree_cutlass.tune import main; sys.exit(main())'"
T tune
timeout 150 bash -c "$TUNE measure --plan out/tune15ts --graph --with-cudnn --out $OUT/tune_ts.json" 2>&1 | tail -46
T random
timeout 90 bash -c "$TUNE measure --plan out/rand15ts --check-only --out $OUT/random_ts.json" 2>&1 | tail -3
T memcheck
timeout 60 compute-sanitizer --tool memcheck python3 bench/sanitize_kernels.py --plan out/rand15ts --only _ts > $OUT/memcheck_ts.txt 2>&1; tail -2 $OUT/memcheck_ts.txt
T racecheck
timeout 90 compute-sanitizer --tool racecheck python3 bench/sanitize_kernels.py --plan out/rand15ts --only _ts > $OUT/racecheck_ts.txt 2>&1; tail -2 $OUT/racecheck_ts.txt
T ablations
timeout 60 python3 bench/kernel_variants.py measure --plan out/var14a --out $OUT/ablations.json 2>&1 | tail -10
T prefetch
timeout 50 python3 bench/kernel_variants.py measure --plan out/var14c --out $OUT/prefetch.json 2>&1 | tail -12
T done
