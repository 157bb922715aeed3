#!/usr/bin/env bash
# GPU call (session 38), the first of a landing after call3.sh's H100 half has run.
# On an H200: call.sh (its H200 half, ~320 s), then on the warm machine session 36's call_h200_check.sh and
# call_grid.sh, as call.sh says.
# On another card (~7 min): call_sp.sh (the partner-skip tune of the H100 table).
# carry: out/p26a.tgz out/p31.tgz out/p33.tgz out/p35ct_tune.tgz out/sp38h100.tgz
here="$(dirname "$0")"
source "$here/../lib.sh"
if on_h200; then
  bash "$here/call.sh"
else
  bash "$here/call_sp.sh"
fi
