#!/usr/bin/env bash
# GPU call (session 37), an H100, ~45 s: build_pair.sh's plan beside cuDNN (CUDA graphs), twice ($OUT/pair.json,
# $OUT/pair2.json; `table --agree` takes an entry only where both runs agree).
# carry: out/tune37p.tgz
here="$(dirname "$0")"
source "$here/../lib.sh"
card
on_h200 && { echo "an H200: run bench/plans/session37/call.sh instead"; exit 1; }
tar xzf out/tune37p.tgz -C out
tune_twice out/tune37p 60 pair
T done
