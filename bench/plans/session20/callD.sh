#!/usr/bin/env bash
# GPU call D (session 20): out/cm20 (build_c.sh) beside cuDNN, CUDA graphs: on the four 1x1 layers where CUTLASS's
# ping-pong GEMM beats ours, each kernel with spatial boxes or flat pixels, walking channels or M fastest. ~40 s.
# carry: out/cm20
source "$(dirname "$0")/../lib.sh"
card
T tune
tune_measure out/cm20 120 tune.json
T done
