#!/usr/bin/env bash
# Here (no GPU), ~2 min on 2 cores: the full-stage wait A/B (bench/kernel_variants.py `spin_full`, `tryw_full`) on
# the H100 table's 128x64 ping-pong kernels and their partner-skipping twins, where the skip moved them from 0.91x
# to 1.32x (256<-64, 64<-256, 256<-128, 512<-128 at batch 256, f16), and one cooperative kernel:
# out/wait38.tgz. Why the skip slows 256<-64 by a quarter: if a warpgroup that waits on its stage before the data
# is suspended and resumed late, the waits that never suspend bring the `_sp` twin back.
source "$(dirname "$0")/../lib.sh"
e=iree_cutlass_dgrad_sm90_f16
variants_build wait38 "spin_full tryw_full" \
  s1_1x1_256_64_n256_f16=${e}_128x64x64_s8_c1_pp_tr s1_1x1_256_64_n256_f16=${e}_128x64x64_s8_c1_pp_tr_sp \
  s1_1x1_64_256_n256_f16=${e}_128x64x64_s8_c1_pp_tr s1_1x1_64_256_n256_f16=${e}_128x64x64_s8_c1_pp_tr_sp \
  s2_1x1_256_128_n256_f16=${e}_128x64x64_s8_c1_pp_n2_tr s2_1x1_256_128_n256_f16=${e}_128x64x64_s8_c1_pp_n2_tr_sp \
  s2_1x1_512_128_n256_f16=${e}_128x64x64_s8_c1_pp_tr_sp s2_1x1_512_128_n256_f16=${e}_256x64x64_s4_c1_n2_tr_b2
