#!/usr/bin/env bash
# GPU call (session 35), H200 only, ~40 s: run on the warm H200 right after bench/plans/session34/call.sh (the two
# carries together pass 64 MiB). The clipped-tap tune against the H200 table (build_clip.sh's tune35ct_h200: each
# padded 3x3 problem's H200-table kernel beside the clipped-tap twins, cuDNN, CUDA graphs) into $OUT/clip/tune.json.
# Its kernels' numerics and sanitizers ran on an H100 in session 35 (h100_2026-12-07_session35_clip_*).
# carry: out/p35ct_tune.tgz
here="$(dirname "$0")"
source "$here/../lib.sh"
card
on_h200 || { echo "not an H200: the H200 table takes H200 timings only"; exit 1; }
unpack_archive p35ct_tune
mkdir -p "$OUT/clip"
T clip tune
tune_measure out/tune35ct_h200 70 clip/tune.json
T done
