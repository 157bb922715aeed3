#!/usr/bin/env bash
# Here (no GPU), ~1 min on 2 cores: why stepping the walk slows 256<-64 by 28% (out/pace39.tgz). The H100 table's
# 128x64 ping-pong kernel on 256<-64 (one K block a tile) and 64<-256 (four), and the n2 kernel on 256<-128, each
# beside `step_walk_consumers` and its two controls (kernel_variants.py): `step_walk_decoded` (stepped, the decode
# still run and its result unused) and `step_walk_pause` (stepped, a ~0.5 us sleep where the decode was). If the
# controls bring 256<-64 back, the time the decode took is what the kernel needs there, not the decode.
source "$(dirname "$0")/../lib.sh"
e=iree_cutlass_dgrad_sm90_f16
variants_build pace39 "step_walk_consumers step_walk_decoded step_walk_pause" \
  s1_1x1_256_64_n256_f16=${e}_128x64x64_s8_c1_pp_tr \
  s1_1x1_64_256_n256_f16=${e}_128x64x64_s8_c1_pp_tr \
  s2_1x1_256_128_n256_f16=${e}_128x64x64_s8_c1_pp_n2_tr
