#!/usr/bin/env bash
# GPU call (session 39), any Hopper card, ~2 min: build_step.sh's A/B (each kernel beside its `step_walk`,
# `step_walk_consumers` and `uniform_warp` variants, CUDA graphs, two passes a run, every variant's dx compared
# with the kernel's), run twice ($OUT/step.json, $OUT/step2.json), then the fatbins' static opcode counts
# ($OUT/step_sass.json: does `uniform_warp` move the decode to the uniform datapath?).
# carry: out/step39.tgz
here="$(dirname "$0")"
source "$here/../lib.sh"
variants_call out/step39 150 step
T sass
timeout 60 python3 bench/kernel_variants.py sass --plan out/step39 --out "$OUT/step_sass.json" 2>&1 | tail -4
T done
