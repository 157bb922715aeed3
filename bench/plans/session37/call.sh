#!/usr/bin/env bash
# GPU call (session 37), the first of a landing. Session 36's call.sh with its finished H100 half swapped for the
# pending one.
# On an H200 (~320 s): session 36's call.sh, whose H200 half is the three pending H200 tunes (session 33's
# call2.sh: $OUT/a, $OUT/sw, $OUT/sw2), then the clipped-tap tune against the H200 table (session 35's
# call_h200.sh: $OUT/clip). Then, on the warm machine, session 36's call_h200_check.sh (the candidate bundle's check
# and its sanitizers).
# On another card (~45 s on an H100): call_pair.sh (the table's, the replaced and the 256-channel kernels of two
# write-heavy 1x1 layers in one run, twice: $OUT/pair.json, $OUT/pair2.json). Session 36's call_wide.sh, which
# this half ran first, is done (session 37).
# carry: out/p26a.tgz out/p31.tgz out/p33.tgz out/p35ct_tune.tgz out/tune37p.tgz
here="$(dirname "$0")"
source "$here/../lib.sh"
if on_h200; then
  bash "$here/../session36/call.sh"   # on an H200: session 33's call2.sh, then session 35's call_h200.sh
else
  bash "$here/call_pair.sh"
fi
