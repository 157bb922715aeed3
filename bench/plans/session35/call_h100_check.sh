#!/usr/bin/env bash
# GPU call (session 35), H100 only: the whole check of a bundle built with the H100 table into $OUT/check/
# gpu_check.json (every case's numerics through IREE and alone; kernel, cuDNN and XLA timed side by side, f16 and
# bf16, batch 8 and 256), then memcheck and racecheck over the bundle's kernels while the call has time.
#   call_h100_check.sh gpu35h   # prepare_gpu.py --card h100 --stock --amortized --variants donated pipelined, ~340 s
#   call_h100_check.sh gpu35c   # prepare_gpu.py --card h100 --only s4_3x3_512_512: the stage-4 3x3 layers, ~40 s
# carry: out/BUNDLE.tgz (or out/BUNDLE.txz) .whl
here="$(dirname "$0")"
source "$here/../lib.sh"
bundle=${1:?usage: call_h100_check.sh BUNDLE}
card
on_h200 && { echo "an H200: run bench/plans/session34/call.sh instead"; exit 1; }
unpack_archive "$bundle"
mkdir -p "$OUT/check"
T check
OUT="$OUT/check" timeout 440 bash bench/gpu_check.sh --bundle "out/$bundle" --bench --bench-dtypes f16 bf16 2>&1 | tail -6
if (( SECONDS < 500 )); then
  sanitizer memcheck 40 memcheck.txt --bundle "out/$bundle"
  sanitizer racecheck 40 racecheck.txt --bundle "out/$bundle" --only _sm90_
fi
T done
