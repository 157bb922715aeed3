#!/usr/bin/env bash
# GPU call (session 36), an H100, ~80 s: build_wide.sh's 256-channel flat tiles on the write-heavy 1x1 layers,
# beside the H100 table's kernel and cuDNN (CUDA graphs), twice ($OUT/tune.json, $OUT/tune2.json: the table takes
# an entry only where both runs agree, `table --agree`), then their numerics on random 1x1 problems and memcheck
# and racecheck at batch 2 (lib.sh's numerics_and_sanitizers).
# carry: out/tune36w.tgz
here="$(dirname "$0")"
source "$here/../lib.sh"
card
on_h200 && { echo "an H200: run bench/plans/session36/call.sh instead"; exit 1; }
tar xzf out/tune36w.tgz -C out
tune_twice out/tune36w 80 tune
numerics_and_sanitizers out/rand36w out/san36w
T done
