#!/usr/bin/env bash
# GPU call (session 36), the first of a landing; carries only the small plans, so the tree may grow without this
# call passing 64 MiB (session 34's call.sh, which also carries the candidate bundle and the IREE wheel, sat within
# 0.7 MB of it).
# On an H200 (~320 s): the three pending H200 tunes (session 33's call2.sh: $OUT/a, $OUT/sw, $OUT/sw2), then the
# clipped-tap tune against the H200 table (session 35's call_h200.sh: $OUT/clip). Then, on the warm machine,
# call_h200_check.sh (the candidate bundle's check and its sanitizers).
# On another card (77 s on an H100 in session 36): call_h100.sh (the memory-bound 1x1 tune: $OUT/tune.json,
# random.json, memcheck.txt, racecheck.txt), then call_prof.sh (Nsight Compute beside cuDNN: $OUT/prof).
# carry: out/p26a.tgz out/p31.tgz out/p33.tgz out/p35ct_tune.tgz out/tune36m.tgz out/prof36.tgz
here="$(dirname "$0")"
source "$here/../lib.sh"
if on_h200; then
  bash "$here/../session33/call2.sh"
  bash "$here/../session35/call_h200.sh"
else
  bash "$here/call_h100.sh"
  if (( SECONDS < 430 )); then bash "$here/call_prof.sh"; fi
fi
