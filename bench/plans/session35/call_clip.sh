#!/usr/bin/env bash
# GPU call (session 35): the clipped-tap kernels (build_clip.sh, out/p35ct.tgz). On an H100: their tune beside each
# padded 3x3 problem's H100-table kernel and cuDNN (CUDA graphs) into $OUT/clip/tune.json, ~110 s; their numerics on
# 60 random padded problems (random.json) and memcheck and racecheck over them at batch 2 (memcheck.txt,
# racecheck.txt). On an H200 it stops first: session34/call.sh comes first there.
# carry: out/p35ct.tgz
here="$(dirname "$0")"
source "$here/../lib.sh"
card
on_h200 && { echo "an H200: run bench/plans/session34/call.sh first"; exit 1; }
tar xzf out/p35ct.tgz -C out
mkdir -p "$OUT/clip"
T clip tune
tune_measure out/tune35ct 260 clip/tune.json
numerics_and_sanitizers out/rand35ct out/san35ct
T done
