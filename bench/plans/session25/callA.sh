#!/usr/bin/env bash
# GPU call A (session 25). On an H200: the whole check of the bundle of main (session 15's callC.sh: numerics,
# the benchmark beside cuDNN, XLA and stock IREE, memcheck and racecheck; ~435-585 s) and nothing else. On any
# other card (an H100, which is what a call mostly gets): what halo tiles could gain on the 3x3 layers, ~60 s:
# - wgmma_shift_probe: does wgmma read a 128-byte-swizzled operand that starts 1-15 rows into a swizzle atom, and
#   with which descriptor base offset (a halo tile needs it for every tap's shifted view).
# - kernel_variants `dy_once` (each tile's dy loaded at its first tap only) beside the shipped kernel, `no_mma`
#   and `no_epilogue`, on the eight batch-256 3x3 layers (f16, and bf16 on the C = 64 one): the upper bound of
#   loading the pixels a tile's taps share once. Ratios within this one run only.
# Build first (here): bench/plans/session25/build_a.sh
# carry: out/gpu.tgz out/v25.tgz .whl
# Run as: bash bench/plans/session25/callA.sh; ls $OUT
source "$(dirname "$0")/../lib.sh"
card
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  bash bench/plans/session15/callC.sh
  exit
fi
tar xzf out/v25.tgz -C out
T wgmma shift probe
out/var25/wgmma_shift_probe > $OUT/wgmma_shift_probe.json; tail -3 $OUT/wgmma_shift_probe.json
T dy_once
timeout 240 python3 bench/kernel_variants.py measure --plan out/var25 --out $OUT/dy_once.json 2>&1 | tail -40
T done
