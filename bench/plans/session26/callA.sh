#!/usr/bin/env bash
# GPU call A (session 26), any card, ~150 s: the ping-pong transposed kernels (64 or 128 channels) beside every
# batch-256 layer's shipped kernel and cuDNN (CUDA graphs, f16 and bf16), their numerics on the random problems of
# seed 25, memcheck and racecheck at batch 2. A table entry needs the tune from an H200.
# Build first (here): bash bench/plans/session26/build_a.sh
# carry: out/p26a.tgz
source "$(dirname "$0")/../lib.sh"
tar xzf out/p26a.tgz -C out
card
T tune
tune_measure out/tune26a 240 tune.json
numerics_and_sanitizers out/rand26a out/san26a
T done
