#!/usr/bin/env bash
# GPU call (session 35), on the H100 that a call for an H200 landed (session34/call.sh printed the card and stopped;
# this follows on the warm machine): the re-tune that makes plugin/tuning/h100.json (build_h100_tune.sh: per
# problem the kernels of the H200 table and of session 33's candidate table, each also for the other 16-bit type,
# beside cuDNN, CUDA graphs) into $OUT/h100/tune.json, ~100 s. The H200 call's carry and this one's together pass
# the 64 MiB limit, so each call carries its own.
# carry: out/p35.tgz
here="$(dirname "$0")"
source "$here/../lib.sh"
card
on_h200 && { echo "an H200: run bench/plans/session34/call.sh instead"; exit 1; }
tar xzf out/p35.tgz -C out
mkdir -p "$OUT/h100"
T h100 re-tune
tune_measure out/tune35 400 h100/tune.json
T done
