#!/usr/bin/env bash
# GPU call (session 38), the first of a landing.
# On an H200 (~320 s): session 36's call.sh (the three pending H200 tunes: $OUT/a, $OUT/sw, $OUT/sw2; the clipped-
# tap tune: $OUT/clip). Then, on the warm machine, session 36's call_h200_check.sh (carry out/gpu33c.tgz .whl), then
# call_grid.sh (carry out/grid38.tgz out/grid38h.tgz).
# On another card (~250 s on an H100, by session 36's and 37's times): session 37's call_pair.sh ($OUT/pair.json,
# pair2.json), call_grid.sh ($OUT/grid.json, grid2.json) and call_prof.sh ($OUT/prof).
# carry: out/p26a.tgz out/p31.tgz out/p33.tgz out/p35ct_tune.tgz out/tune37p.tgz out/grid38.tgz out/grid38h.tgz
#        out/prof36.tgz
here="$(dirname "$0")"
source "$here/../lib.sh"
if on_h200; then
  bash "$here/../session36/call.sh"   # on an H200: session 33's call2.sh, then session 35's call_h200.sh
else
  bash "$here/../session37/call_pair.sh"
  bash "$here/call_grid.sh"
  if (( SECONDS < 480 )); then bash "$here/call_prof.sh"; fi
fi
