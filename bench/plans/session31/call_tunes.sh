#!/usr/bin/env bash
# GPU call (session 31), ~400 s on an H200: both pending H200 tunes in one call, without the whole checks (a table
# that takes kernels from either needs a new bundle, checked in a later call with session25/callF.sh):
#   1. session 26's plan (the ping-pong transposed kernels) into $OUT/a/tune.json (session27/call2.sh, ~80 s);
#   2. the swapped CUTLASS GEMM kernels of build_sw.sh, their random numerics and sanitizers into $OUT/sw
#      (call_sw.sh).
# On another card (run may land an H100 for an H200 call), step 2 alone: the new kernels' numerics, sanitizers and
# same-run ratios there, for the next H200 call to build on (no table entry).
# Build first (here): bench/plans/session26/build_a.sh, bench/plans/session31/build_sw.sh
# carry: out/p26a.tgz out/p31.tgz
here="$(dirname "$0")"
bash "$here/../session27/call2.sh"   # H200 only: it returns at once elsewhere
mkdir -p "$OUT/sw"
OUT="$OUT/sw" bash "$here/call_sw.sh"
