#!/usr/bin/env bash
# GPU call (session 40), the last of its budget, either card:
#   carry out/gpu40h.txz .whl out/bw40h200.tgz out/p26a.tgz out/p31.tgz  (~64 MB with the tree)
# On an H200: call3.sh (the pending H200 tunes whose archives were carried: a and sw; the others fail alone; then
# the box-walk tune of the H200 table).
# On an H100: the whole check of the H100 table at bd618bc (session 35's call_h100_check.sh on out/gpu40h, the
# bundle xz-compressed: 1.5 MB instead of 15.3 MB as .tgz, its vmfbs repeat the same kernels).
here="$(dirname "$0")"
source "$here/../lib.sh"
if on_h200; then
  bash "$here/call3.sh"
else
  bash "$here/../session35/call_h100_check.sh" gpu40h
fi
