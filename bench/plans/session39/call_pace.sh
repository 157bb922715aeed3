#!/usr/bin/env bash
# GPU call (session 39), any Hopper card, ~2 min: build_pace.sh's A/B, run twice ($OUT/pace.json, pace2.json), then
# Nsight Compute's full set with SASS stall samples on 256<-64 for the kernel and its stepped variant, one launch
# each, in that order ($OUT/pace_ncu.tgz: details pages and SASS tables, bench/sass_profile.py reads the latter).
# carry: out/pace39.tgz
here="$(dirname "$0")"
source "$here/../lib.sh"
variants_call out/pace39 100 pace
ncu_variants out/pace39 s1_1x1_256_64_n256_f16 pace_ncu shipped step_walk_consumers
