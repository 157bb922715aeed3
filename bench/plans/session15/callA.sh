#!/usr/bin/env bash
# GPU call A (prepared in session 14, which had no device). At batch 256, f16 and bf16, beside each shipped kernel
# and cuDNN: the one-slot-ring candidates (256x128 with four stages, alone and in both clusters; transposed 192x128
# with five and 256x128 with four), the thread-store twin of every shipped kernel, the warpgroup-release twin
# (`_wr`) of every clustered one among them, and each layer's kernel from the other type's table (770 runs). Their
# numerics on 24 random odd problems (checked, not timed), memcheck and racecheck over the new kernels, and the
# cluster occupancy. Worst case ~575 s. A candidate that hangs (60 s) or faults costs itself only: measure records
# it and goes on in a fresh process.
# carry: out/tune14 out/rand14 out/san14
set -uo pipefail
cd "$(dirname "$0")/../../.."
T() { echo "=== $(date +%T) $*"; }
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
TUNE="python3 -c 'import sys; from iree_cutlass.tune import main; sys.exit(main())'"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv
T occupancy
nvcc -arch=sm_90a -o /tmp/occupancy bench/cluster_occupancy.cu && timeout 15 /tmp/occupancy | tee $OUT/occupancy.txt
T tune
timeout 180 bash -c "$TUNE measure --plan out/tune14 --graph --with-cudnn --out $OUT/tune.json" 2>&1 | tail -46
T random
timeout 120 bash -c "$TUNE measure --plan out/rand14 --check-only --out $OUT/random.json" 2>&1 | tail -3
T memcheck
timeout 80 compute-sanitizer --tool memcheck python3 bench/sanitize_kernels.py --plan out/san14 --only _e1 _ts _wr > $OUT/memcheck.txt 2>&1; tail -2 $OUT/memcheck.txt
T racecheck
timeout 150 compute-sanitizer --tool racecheck python3 bench/sanitize_kernels.py --plan out/san14 --only _e1 _ts _wr > $OUT/racecheck.txt 2>&1; tail -2 $OUT/racecheck.txt
T done
