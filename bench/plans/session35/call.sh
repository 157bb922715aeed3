#!/usr/bin/env bash
# GPU call (session 35). On an H200: session 34's call (the pending H200 tunes, the candidate bundle's batch-256
# check, its sanitizers; `short` for the tunes alone). On an H100: the re-tune that makes plugin/tuning/h100.json
# (build_h100_tune.sh: per problem the kernels of the H200 table and of session 33's candidate table, each also
# for the other 16-bit type, beside cuDNN, CUDA graphs) into $OUT/h100/tune.json, ~100 s.
# carry: out/p26a.tgz out/p31.tgz out/p33.tgz out/gpu33c.tgz out/p35.tgz .whl
here="$(dirname "$0")"
source "$here/../lib.sh"
if on_h200; then
  bash "$here/../session34/call.sh" "$@"
  exit
fi
card
tar xzf out/p35.tgz -C out
mkdir -p "$OUT/h100"
T h100 re-tune
tune_measure out/tune35 400 h100/tune.json
T done
