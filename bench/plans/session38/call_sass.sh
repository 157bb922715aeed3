#!/usr/bin/env bash
# GPU call (session 38), any Hopper card, ~90 s: Nsight Compute's full set with SASS-level stall samples for the
# write-heavy 1x1 256<-64 layer at 56x56 (f16, batch 256): the H100 table's kernel (session 36's out/prof36) and
# cuDNN's xmma dgrad kernel, as details pages and per-instruction SASS tables ($OUT/sass.tgz).
# Why: on the H100 every smaller persistent grid made ours slower in proportion (call_grid.sh), so a CTA's own tile
# rate, not DRAM, bounds ours there; cuDNN's 120 CTAs each finish a tile in about 0.86 us, ours in 1.1 us. These
# pages say where our warps wait and which instructions cuDNN's kernel stores dx with.
# carry: out/prof36.tgz
here="$(dirname "$0")"
source "$here/../lib.sh"
source "$here/../session36/prof_layers.sh"
card
tar xzf out/prof36.tgz -C out
dir=/tmp/sass
mkdir -p $dir
NCU="ncu --set full --import-source yes --clock-control none -c 1"
T ours
timeout 100 $NCU -k regex:iree_cutlass -o $dir/ours python3 bench/profile_kernels.py --plan out/prof36 \
  --launches 1 --pick "${PROF_KEYS[1]}=iree_cutlass_" 2>&1 | tail -2
T cudnn
timeout 100 $NCU --profile-from-start off -k regex:xmma -o $dir/cudnn python3 bench/ncu_cudnn.py \
  --layers "${PROF_TAGS[1]}" 2>&1 | tail -2
T pages
ncu_pages $dir
ls -la $dir
tar czf "$OUT/sass.tgz" -C /tmp sass
T done
