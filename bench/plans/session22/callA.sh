#!/usr/bin/env bash
# GPU call A (session 22): on an H200, session 21's call B (the sm90_gemm family beside the shipped kernels and
# cuDNN, numerics, sanitizers; ~80 s). On any other card (the tool mostly lends H100s, and the table is the H200's),
# the start-cost question left open in session 21 instead: ncu of CUTLASS's adapter launch against the wrapped
# (IREE-style) launch of the same ping-pong 128x128 GEMM on 12544x2048x512, one warm launch each (the third), with
# launch, occupancy, warp-state and source-counter sections (where the wrapped kernel's warps stall). ~60 s.
# Build first (here): bash bench/plans/session21/build_b.sh; bash bench/plans/session20/build_f.sh
# carry: out/gemm21 out/rand21 out/san21 out/wrap20
source "$(dirname "$0")/../lib.sh"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  tune_call out/gemm21 240 out/rand21 out/san21
  exit
fi
card
SECTIONS="--section LaunchStats --section Occupancy --section SpeedOfLight --section WarpStateStats --section SourceCounters --section SchedulerStats"
for bin in pp_128x128_c1x1 pp_128x128_wrapped; do
  T "ncu $bin"
  timeout 120 ncu -k regex:'device_kernel|^kernel$' --launch-skip 2 --launch-count 1 $SECTIONS \
    out/wrap20/$bin $bin 12544 2048 512 > $OUT/ncu_$bin.txt 2>&1
  grep -E "Duration|Elapsed Cycles|Warp Cycles Per Issued|Stall|Registers|Threads|Waves" $OUT/ncu_$bin.txt | head -30
done
T done
