#!/usr/bin/env bash
# GPU call (session 38), the first of a landing:  bash bench/plans/session38/call.sh [SCRIPT ...]
# On an H200 (~320 s): session 36's call.sh (the three pending H200 tunes: $OUT/a, $OUT/sw, $OUT/sw2; the clipped-
# tap tune: $OUT/clip; carry out/p26a.tgz out/p31.tgz out/p33.tgz out/p35ct_tune.tgz). Then, each on the warm
# machine: session 36's call_h200_check.sh (carry out/gpu33c.tgz .whl), call_grid.sh (carry out/grid38.tgz
# out/grid38h.tgz), call_sp.sh (carry out/sp38h200.tgz).
# On another card: the session-38 scripts named, one after another, each with its own carry (default
# call_check.sh call_wait.sh, ~2 min: carry out/gpu38s.tgz .whl out/wait38.tgz). With the H200 half's carry that
# is 58 MB beside the tree.
# Session 38's landings ran, on H100s: this script's first form (session 37's call_pair.sh, then call_grid.sh and
# call_prof.sh; at a331313), then the equivalents of `call.sh call_sass.sh`, `call.sh call_var.sh` and
# `call.sh call_sp.sh` (as call2.sh, call3.sh and call4.sh, one dispatcher script each, since folded into this one).
here="$(dirname "$0")"
source "$here/../lib.sh"
if on_h200; then
  bash "$here/../session36/call.sh"   # on an H200: session 33's call2.sh, then session 35's call_h200.sh
else
  scripts=("$@")
  (( ${#scripts[@]} )) || scripts=(call_check.sh call_wait.sh)
  for script in "${scripts[@]}"; do
    bash "$here/$script"
  done
fi
