#!/usr/bin/env bash
# GPU call (session 40), the first of a landing, ~9 min:
#   carry out/box40.tgz out/bw40h100.tgz (and on an H200's chance: out/p26a.tgz ...; see call.sh)
# call_box.sh (the box walk as kernel variants, with Nsight Compute on 256<-64), then call_bw.sh (the box-walk
# option's tune of the H100 table, its numerics and sanitizers). On an H200, session 38's call.sh first (the
# pending H200 tunes whose archives were carried), then the same two where time is left.
here="$(dirname "$0")"
source "$here/../lib.sh"
if on_h200; then
  bash "$here/../session38/call.sh"
fi
bash "$here/call_box.sh"
bash "$here/call_bw.sh"
