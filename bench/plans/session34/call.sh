#!/usr/bin/env bash
# GPU call (session 34). On an H200 (~540 s): session 33's call1.sh (the three pending H200 tunes into $OUT/a,
# $OUT/sw, $OUT/sw2, then the batch-256 whole check of the candidate bundle into $OUT/cand), then memcheck and
# racecheck over the candidate bundle's kernels while the call has time left. `call.sh short` (~330 s on an H200):
# the tunes alone (session 33's call2.sh), then the sanitizers. On another card: `call.sh sanitize` runs the
# sanitizers alone (~35 s; done on an H100 in session 34: h100_2026-12-07_session34_candidate_*.txt); otherwise
# nothing (session 33's H100 run measured the rest there).
# carry: out/p26a.tgz out/p31.tgz out/p33.tgz out/gpu33c.tgz .whl
here="$(dirname "$0")"
source "$here/../lib.sh"
card
if on_h200; then
  if [ "${1:-}" = short ]; then bash "$here/../session33/call2.sh"; else bash "$here/../session33/call1.sh"; fi
elif [ "${1:-}" != sanitize ]; then
  exit 0
fi
[ -d out/gpu33c ] || tar xzf out/gpu33c.tgz -C out
if (( SECONDS < 520 )); then
  sanitizer memcheck 30 cand_memcheck.txt --bundle out/gpu33c
  sanitizer racecheck 30 cand_racecheck.txt --bundle out/gpu33c --only _sm90_
fi
T done
