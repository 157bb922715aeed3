#!/usr/bin/env bash
# GPU call (session 35), H100 only: the whole check of the bundle built with the H100 table (out/gpu35h:
# prepare_gpu.py --card h100 --stock --amortized --variants donated pipelined, at the commit of h100.json) into
# $OUT/check/gpu_check.json: every case's numerics through IREE and alone, kernel, cuDNN and XLA timed side by side
# (f16 and bf16, batch 8 and 256); then memcheck and racecheck over the bundle's kernels while the call has time.
# carry: out/gpu35h.tgz .whl
here="$(dirname "$0")"
source "$here/../lib.sh"
card
on_h200 && { echo "an H200: run bench/plans/session34/call.sh instead"; exit 1; }
tar xzf out/gpu35h.tgz -C out
mkdir -p "$OUT/check"
T check
OUT="$OUT/check" timeout 440 bash bench/gpu_check.sh --bundle out/gpu35h --bench --bench-dtypes f16 bf16 2>&1 | tail -6
if (( SECONDS < 500 )); then
  sanitizer memcheck 40 memcheck.txt --bundle out/gpu35h
  sanitizer racecheck 40 racecheck.txt --bundle out/gpu35h --only _sm90_
fi
T done
