#!/usr/bin/env bash
# GPU call (session 40), any Hopper card, ~3 min: build_box.sh's A/B (each kernel beside `box_walk` and
# `box_walk_reuse`, CUDA graphs, two passes a run, every variant's dx compared with the kernel's), run twice
# ($OUT/box.json, $OUT/box2.json), then Nsight Compute's full set with SASS samples on 256<-64 for the kernel
# and both variants, one launch each, in that order ($OUT/box_ncu.tgz: do the variants read dy from DRAM once?).
# carry: out/box40.tgz
here="$(dirname "$0")"
source "$here/../lib.sh"
variants_call out/box40 170 box
ncu_variants out/box40 s1_1x1_256_64_n256_f16 box_ncu shipped box_walk box_walk_reuse
