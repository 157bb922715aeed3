#!/usr/bin/env bash
# GPU call (session 39), any Hopper card, ~2 min: build_pace.sh's A/B, run twice ($OUT/pace.json, pace2.json), then
# Nsight Compute's full set with SASS stall samples on 256<-64 for the kernel and its stepped variant, one launch
# each, in that order ($OUT/pace_ncu.tgz: details pages and SASS tables, bench/sass_profile.py reads the latter).
# carry: out/pace39.tgz
here="$(dirname "$0")"
source "$here/../lib.sh"
variants_call out/pace39 100 pace
dir=/tmp/pace_ncu
mkdir -p $dir
T ncu
for variant in shipped step_walk_consumers; do
  timeout 60 ncu --set full --import-source yes --clock-control none -c 1 -k regex:iree_cutlass -o $dir/$variant \
    python3 bench/profile_kernels.py --variants out/pace39 --launches 1 \
    --cases s1_1x1_256_64_n256_f16:$variant 2>&1 | tail -1
done
ncu_pages $dir
gzip -f $dir/*.sass.csv
tar czf "$OUT/pace_ncu.tgz" -C /tmp pace_ncu
T done
