#!/usr/bin/env bash
# GPU call (session 35) for an H200, ~550 s: session 33's call1.sh (the three pending H200 tunes into $OUT/a,
# $OUT/sw, $OUT/sw2, then the candidate bundle's batch-256 check into $OUT/cand), then the clipped-tap tune
# (build_clip.sh's tune35ct: each padded 3x3 problem's kernel beside clipped-tap twins) into $OUT/clip. The
# candidate bundle's sanitizers ran on an H100 in session 34. On another card it prints the card and stops.
# carry: out/p26a.tgz out/p31.tgz out/p33.tgz out/gpu33c.tgz out/p35ct_tune.tgz .whl (tune35ct alone: with the
# random and sanitizer plans the carry passes 64 MiB)
here="$(dirname "$0")"
source "$here/../lib.sh"
card
on_h200 || exit 0
bash "$here/../session33/call1.sh"
tar xzf out/p35ct_tune.tgz -C out
mkdir -p "$OUT/clip"
T clip tune
tune_measure out/tune35ct 70 clip/tune.json
T done
