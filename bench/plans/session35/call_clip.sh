#!/usr/bin/env bash
# GPU call (session 35), H100: a clipped-tap plan of build_clip.sh (`call_clip.sh ct`, out/p35ct.tgz: every padded
# 3x3 problem, ~60 s) or build_clip2.sh (`call_clip.sh c2`, out/p35c2.tgz: the wider search on the 7x7 3x3 layer,
# ~70 s). Its tune beside the H100 table's kernel and cuDNN (CUDA graphs) into $OUT/clip/tune.json, its numerics on
# random padded problems (random.json), memcheck and racecheck at batch 2 (memcheck.txt, racecheck.txt).
# carry: out/p35ct.tgz or out/p35c2.tgz
here="$(dirname "$0")"
source "$here/../lib.sh"
plan=${1:?usage: call_clip.sh ct|c2}
card
on_h200 && { echo "an H200: run bench/plans/session34/call.sh first"; exit 1; }
tar xzf "out/p35$plan.tgz" -C out
mkdir -p "$OUT/clip"
T clip tune
tune_measure "out/tune35$plan" 200 clip/tune.json
numerics_and_sanitizers "out/rand35$plan" "out/san35$plan"
T done
