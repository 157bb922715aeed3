#!/usr/bin/env bash
# GPU call (session 31) for the end of a session's device time, ~190 s. On an H200: the H200 tune of session 26's
# plan first (session27/call2.sh, ~80 s: its kernels' numerics and sanitizers were run on an H100 in session 26, so
# this tune alone can make table entries), then the swapped GEMM kernels' tune for what time is left ($OUT/sw; their
# numerics and sanitizers ran on an H100 in session 32, so it too can make entries: table_after_tunes.sh). On
# another card: the swapped kernels' tune and their random numerics ($OUT/sw).
# carry: out/p26a.tgz out/p31.tgz
source "$(dirname "$0")/../lib.sh"
unpack_archive p31
mkdir -p $OUT/sw
if on_h200; then
  bash "$(dirname "$0")/../session27/call2.sh"
  OUT=$OUT/sw tune_measure out/tune31 95 tune.json
else
  card
  OUT=$OUT/sw tune_measure out/tune31 110 tune.json
  OUT=$OUT/sw random_numerics out/rand31
fi
T done
