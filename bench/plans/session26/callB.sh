#!/usr/bin/env bash
# GPU call B (session 26), H200 only, ~430 s: call A (the ping-pong transposed kernels beside every batch-256
# layer's shipped kernel and cuDNN; numerics; sanitizers) into $OUT/a, then session 25's call E (the whole check of
# the bundle in out/gpu.tgz, its memcheck and racecheck) into $OUT.
# carry: out/p26a.tgz out/gpu.tgz .whl
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || {
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; exit 0; }
OUT_ROOT=$OUT
mkdir -p $OUT_ROOT/a
OUT=$OUT_ROOT/a bash "$(dirname "$0")/callA.sh"
OUT=$OUT_ROOT bash "$(dirname "$0")/../session25/callE.sh"
