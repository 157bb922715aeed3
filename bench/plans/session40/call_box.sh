#!/usr/bin/env bash
# GPU call (session 40), any Hopper card, ~3 min: build_box.sh's A/B (each kernel beside `box_walk` and
# `box_walk_reuse`, CUDA graphs, two passes a run, every variant's dx compared with the kernel's), run twice
# ($OUT/box.json, $OUT/box2.json), then Nsight Compute's full set with SASS samples on 256<-64 for the kernel
# and both variants, one launch each, in that order ($OUT/box_ncu.tgz: do the variants read dy from DRAM once?).
# carry: out/box40.tgz
here="$(dirname "$0")"
source "$here/../lib.sh"
variants_call out/box40 170 box
dir=/tmp/box_ncu
mkdir -p $dir
T ncu
for variant in shipped box_walk box_walk_reuse; do
  timeout 60 ncu --set full --import-source yes --clock-control none -c 1 -k regex:iree_cutlass -o $dir/$variant \
    python3 bench/profile_kernels.py --variants out/box40 --launches 1 \
    --cases s1_1x1_256_64_n256_f16:$variant 2>&1 | tail -1
done
ncu_pages $dir
gzip -f $dir/*.sass.csv
tar czf "$OUT/box_ncu.tgz" -C /tmp box_ncu
T done
