#!/usr/bin/env bash
# GPU call 1 (session 33), ~480 s on an H200:
#   1. the two pending H200 tunes (session31/call_short.sh: session 26's plan into $OUT/a, the swapped GEMM kernels
#      into $OUT/sw), then the same swapped kernels on three more layers (build_sw2.sh) into $OUT/sw2;
#   2. the batch-256 whole check of the candidate bundle (build_candidate.sh: main's table with the entries the same
#      rule picks from the H100 tunes) into $OUT/cand: every batch-256 case's numerics through IREE and alone,
#      kernel, cuDNN and XLA side by side, f16 and bf16. Where the H200 tunes pick the candidate's kernels, it is
#      the new table's measurement; where they differ, it still times each candidate kernel beside cuDNN there.
# On another card (~300 s): step 1's third tune and step 2 (the swapped kernels have never run through IREE).
# Then, here: bash bench/plans/session31/table_after_tunes.sh DIR (on an H200's DIR).
# carry: out/p26a.tgz out/p31.tgz out/p33.tgz out/gpu33c.tgz .whl
here="$(dirname "$0")"
source "$here/../lib.sh"
if on_h200; then
  bash "$here/../session31/call_short.sh"
fi
card
tar xzf out/p33.tgz -C out
mkdir -p "$OUT/sw2"
T tune sw2
tune_measure out/tune33 100 sw2/tune.json
tar xzf out/gpu33c.tgz -C out
checks_n256 cand:out/gpu33c
T done
