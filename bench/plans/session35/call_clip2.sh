#!/usr/bin/env bash
# GPU call (session 35), H100: build_clip2.sh's wider clipped-tap search on the 7x7 3x3 512<-512 layer: the tune
# beside the H100 table's kernel and cuDNN (CUDA graphs) into $OUT/clip2/tune.json, numerics on 20 random padded
# problems, memcheck and racecheck at batch 2, ~150 s.
# carry: out/p35c2.tgz
here="$(dirname "$0")"
source "$here/../lib.sh"
card
on_h200 && { echo "an H200: run bench/plans/session34/call.sh first"; exit 1; }
tar xzf out/p35c2.tgz -C out
mkdir -p "$OUT/clip2"
T clip2 tune
tune_measure out/tune35c2 150 clip2/tune.json
numerics_and_sanitizers out/rand35c2 out/san35c2
T done
