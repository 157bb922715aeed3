#!/usr/bin/env bash
# GPU call (session 36), H200 only, ~270 s, on the warm machine after call.sh: the batch-256 whole check of session
# 33's candidate bundle into $OUT/cand (where the H200 tunes pick the candidate's kernels it is the new table's
# measurement), then memcheck and racecheck over the bundle's kernels while the call has time.
# carry: out/gpu33c.tgz (or out/gpu33c.txz) .whl
here="$(dirname "$0")"
source "$here/../lib.sh"
card
on_h200 || { echo "not an H200: the candidate check is for the H200 table"; exit 1; }
unpack_archive gpu33c
checks_n256 cand:out/gpu33c
if (( SECONDS < 500 )); then
  sanitizer memcheck 30 cand_memcheck.txt --bundle out/gpu33c
  sanitizer racecheck 30 cand_racecheck.txt --bundle out/gpu33c --only _sm90_
fi
T done
