#!/usr/bin/env bash
# GPU call (session 40), an H200 chance, ~8 min:
#   carry out/p26a.tgz out/p31.tgz out/p33.tgz out/bw40h200.tgz (out/p35ct_tune.tgz where built)
# On an H200: session 38's call.sh (the pending H200 tunes whose archives were carried; a missing one fails
# alone), then call_bw.sh (the box-walk tune of the H200 table). On another card: nothing (the card is given back;
# the H100's session-40 work is done).
here="$(dirname "$0")"
source "$here/../lib.sh"
card
if on_h200; then
  bash "$here/../session38/call.sh"
  bash "$here/call_bw.sh"
fi
