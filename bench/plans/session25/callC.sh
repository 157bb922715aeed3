#!/usr/bin/env bash
# GPU call C (session 25), any card, ~10 s: the halo kernels and each problem's shipped kernel on the nine problems
# of seeds 37 and 49 that the 256-pixel two-stage halo kernels compute (four of them bf16), check only, dx
# poisoned, against float64. After it (here): the table step with these files beside call B's random.json,
#   iree-cutlass-tune table --results DIR_B/tune.json --card h200 --min-gain 0.01 \
#     --valid-in DIR_B/random.json DIR/random_b.json DIR/random_c.json
# Build first (here): bash bench/plans/session25/build_b.sh
# carry: out/p25b.tgz
source "$(dirname "$0")/../lib.sh"
tar xzf out/p25b.tgz -C out
card
T random b
timeout 60 python3 -m iree_cutlass.tune measure --plan out/rand25b --check-only --out $OUT/random_b.json 2>&1 | tail -6
T random c
timeout 60 python3 -m iree_cutlass.tune measure --plan out/rand25c --check-only --out $OUT/random_c.json 2>&1 | tail -5
T done
