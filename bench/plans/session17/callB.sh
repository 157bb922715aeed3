#!/usr/bin/env bash
# GPU call B (session 17, after call A): every ping-pong and two-CTA warp-store kernel without a cluster
# (out/tune18) beside each batch-256 layer's shipped kernel and cuDNN, CUDA graphs; their numerics on 24 random
# odd problems (out/rand18); memcheck and racecheck over them on batch-2 layers (out/san18). ~350 s. Build first:
# build_b.sh.
# carry: out/tune18 out/rand18 out/san18
source "$(dirname "$0")/../lib.sh"
tune_call out/tune18 330 out/rand18 out/san18
