#!/usr/bin/env bash
# GPU call (session 41), either card:  carry out/carry41 .whl  (call2.sh's archives, plus gpu41s.txz and st41b.txz)
# On an H200 (~320 s): session 38's call.sh, as call2.sh.
# On another card (~3 min): the changed H100 entry through IREE (session 35's call_h100_check.sh on out/gpu41s:
# prepare_gpu.py --card h100 --only s1_1x1_256_64_n256 at 4528bde), then build_st2.sh's tune of stages 5 and 7
# beside the new 6 ($OUT/st/st3.json, st32.json; numerics and sanitizers of the new twins in $OUT/st).
here="$(dirname "$0")"
source "$here/../lib.sh"
mv out/carry41/* out/
if on_h200; then
  bash "$here/../session38/call.sh"
else
  bash "$here/../session35/call_h100_check.sh" gpu41s
  mkdir -p "$OUT/st"
  OUT="$OUT/st" twin_call out/st41b rand41t san41t 200 st3:tune41t:60:50
fi
