#!/usr/bin/env bash
# GPU call 2 (session 33), for when too little device time is left for call1.sh: on an H200 its three tunes alone
# (~270 s: $OUT/a, $OUT/sw, $OUT/sw2; table_after_tunes.sh makes the table from them), the candidate check left for
# a later call; on another card its candidate check alone (~220 s, $OUT/cand).
# carry: out/p26a.tgz out/p31.tgz out/p33.tgz out/gpu33c.tgz .whl
here="$(dirname "$0")"
source "$here/../lib.sh"
card
if on_h200; then
  bash "$here/../session31/call_short.sh"
  unpack_archive p33
  mkdir -p "$OUT/sw2"
  T tune sw2
  tune_measure out/tune33 100 sw2/tune.json
else
  unpack_archive gpu33c
  checks_n256 cand:out/gpu33c
fi
T done
