#!/usr/bin/env bash
# GPU call (session 41), H100, ~3 min (through call2.sh: `call2.sh call_h100b.sh`, carry out/carry41 .whl): the
# changed H100 entry through IREE (session 35's call_h100_check.sh on out/gpu41s: prepare_gpu.py --card h100 --only
# s1_1x1_256_64_n256 at 4528bde), then build_st2.sh's tune of stages 5 and 7 beside the new 6 ($OUT/st/st3.json,
# st32.json; the new twins' numerics and sanitizers in $OUT/st).
here="$(dirname "$0")"
source "$here/../lib.sh"
bash "$here/../session35/call_h100_check.sh" gpu41s
mkdir -p "$OUT/st"
OUT="$OUT/st" twin_call out/st41b rand41t san41t 200 st3:tune41t:60:50
