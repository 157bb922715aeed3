#!/usr/bin/env bash
# GPU call 2 (session 27), H200 only, ~80 s: call 1's first part alone (the H200 tune of session 26's plan into
# $OUT/a/tune.json), for a session with too little device time left for the whole check.
# carry: out/p26a.tgz
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || {
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; exit 0; }
source "$(dirname "$0")/../lib.sh"
unpack_archive p26a
card
T tune
mkdir -p $OUT/a
tune_measure out/tune26a 150 a/tune.json
T done
