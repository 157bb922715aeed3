#!/usr/bin/env bash
# GPU call (session 39), the first of a landing:  bash bench/plans/session39/call.sh
# On an H200 (~320 s): session 36's call.sh (carry out/p26a.tgz out/p31.tgz out/p33.tgz out/p35ct_tune.tgz), as
# session 38's call.sh runs it; session 36's call_h200_check.sh, session 38's call_grid.sh and call_sp.sh follow on
# the warm machine, each with its own carry.
# On another card (~4 min): session 38's call_check.sh (carry out/gpu38s.tgz .whl) and call_wait.sh (carry
# out/wait38.tgz), then this session's call_step.sh (carry out/step39.tgz).
here="$(dirname "$0")"
source "$here/../lib.sh"
if on_h200; then
  bash "$here/../session38/call.sh"
else
  bash "$here/../session38/call.sh" call_check.sh call_wait.sh
  bash "$here/call_step.sh"
fi
