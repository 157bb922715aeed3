#!/usr/bin/env bash
# GPU call (session 37), the first of a landing. Session 36's call.sh with its finished H100 half swapped for the
# pending one.
# On an H200 (~320 s): the three pending H200 tunes (session 33's call2.sh: $OUT/a, $OUT/sw, $OUT/sw2), then the
# clipped-tap tune against the H200 table (session 35's call_h200.sh: $OUT/clip). Then, on the warm machine,
# session 36's call_h200_check.sh (the candidate bundle's check and its sanitizers).
# On another card (~80 s on an H100): session 36's call_wide.sh (256-channel flat tiles on the write-heavy 1x1
# layers, tuned twice: $OUT/tune.json, $OUT/tune2.json, random numerics and sanitizers).
# carry: out/p26a.tgz out/p31.tgz out/p33.tgz out/p35ct_tune.tgz out/tune36w.tgz
here="$(dirname "$0")"
source "$here/../lib.sh"
if on_h200; then
  bash "$here/../session33/call2.sh"
  bash "$here/../session35/call_h200.sh"
else
  bash "$here/../session36/call_wide.sh"
fi
