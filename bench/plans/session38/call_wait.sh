#!/usr/bin/env bash
# GPU call (session 38), any Hopper card, ~1 min: build_wait.sh's A/B (each kernel beside its `spin_full` and
# `tryw_full` variants, CUDA graphs, two passes a run, every variant's dx compared with the kernel's), run twice
# ($OUT/wait.json, $OUT/wait2.json).
# carry: out/wait38.tgz
here="$(dirname "$0")"
source "$here/../lib.sh"
variants_call out/wait38 150 wait
