#!/usr/bin/env bash
# GPU call (session 40), the first of a landing, with one carry that serves either card:
#   carry out/p26a.tgz out/p31.tgz out/p33.tgz out/p35ct_tune.tgz out/box40.tgz  (~47 MB with the tree)
# On an H200 (~320 s): session 38's call.sh (the pending H200 tunes; a part whose archive was not carried fails
# alone), then call_box.sh where time is left; session 38's follow-ups go on the warm machine, each with its own
# carry (session 38's call.sh says which).
# On another card (~3 min): call_box.sh; the H100 whole check (session 35's call_h100_check.sh gpu39h, carry
# out/gpu39h.tgz .whl) can follow on the warm machine.
here="$(dirname "$0")"
source "$here/../lib.sh"
if on_h200; then
  bash "$here/../session38/call.sh"
  if (( SECONDS < 380 )); then bash "$here/call_box.sh"; fi
else
  bash "$here/call_box.sh"
fi
