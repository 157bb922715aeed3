#!/usr/bin/env bash
# GPU call (session 38), the first of a landing after call2.sh's H100 half has run.
# On an H200: call.sh (its H200 half, ~320 s), then on the warm machine session 36's call_h200_check.sh and
# call_grid.sh, as call.sh says.
# On another card (~2 min): call_var.sh ($OUT/var.json, var2.json).
# carry: out/p26a.tgz out/p31.tgz out/p33.tgz out/p35ct_tune.tgz out/var38.tgz
here="$(dirname "$0")"
source "$here/../lib.sh"
if on_h200; then
  bash "$here/call.sh"
else
  bash "$here/call_var.sh"
fi
