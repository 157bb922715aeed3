#!/usr/bin/env bash
# GPU call (session 31), H200 only, ~400 s: both pending H200 tunes in one call, without the whole checks (a table
# that takes kernels from either needs a new bundle, checked in a later call with session25/callF.sh):
#   1. session 26's plan (the ping-pong transposed kernels) into $OUT/a/tune.json (session27/call2.sh, ~80 s);
#   2. the swapped CUTLASS GEMM kernels of build_sw.sh, their random numerics and sanitizers into $OUT/sw
#      (call_sw.sh).
# Build first (here): bench/plans/session26/build_a.sh, bench/plans/session31/build_sw.sh
# carry: out/p26a.tgz out/p31.tgz
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || {
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; exit 0; }
here="$(dirname "$0")"
bash "$here/../session27/call2.sh"
mkdir -p "$OUT/sw"
OUT="$OUT/sw" bash "$here/call_sw.sh"
