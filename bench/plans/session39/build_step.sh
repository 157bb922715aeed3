#!/usr/bin/env bash
# Here (no GPU), ~6 min on 2 cores: the per-tile decode A/B (bench/kernel_variants.py `step_walk`,
# `step_walk_consumers`, `uniform_warp`) on H100 table kernels (f16): out/step39.tgz. Session 38's profile put the
# consumers' decode at 59% of the 256<-64 kernel's instructions. Stepped walks are those of one phase without
# clipped taps, one CTA a unit: the 1x1 unit-stride layers, the 3x3 unit-stride layer with a plain walk, and the
# zero-filled 1x1 stride-2 layer at batch 8; the 3x3 stride-2 layer (four phases) is the control whose walk
# decodes as before.
source "$(dirname "$0")/../lib.sh"
e=iree_cutlass_dgrad_sm90_f16
variants_build step39 "step_walk step_walk_consumers uniform_warp" \
  s1_1x1_64_64_n256_f16=${e}_256x64x64_s4_c1_pp_tr \
  s1_1x1_256_64_n256_f16=${e}_128x64x64_s8_c1_pp_tr \
  s1_1x1_64_256_n256_f16=${e}_128x64x64_s8_c1_pp_tr \
  s2_1x1_256_128_n256_f16=${e}_128x64x64_s8_c1_pp_n2_tr \
  s2_1x1_512_128_n256_f16=${e}_256x64x64_s4_c1_n2_tr_b2 \
  s2_1x1_128_512_n256_f16=${e}_128x128x64_s5_c1_pp_e2 \
  s3_1x1_1024_256_n256_f16=${e}_128x256x64_s4_c1_rk4_e2_ws \
  s3_3x3_256_256_n256_f16=${e}_128x256x64_s4_c1_e2_ws \
  s2_1x1_256_512s2_n8_f16=${e}_128x128x64_s3_c1_pp_e4_sp \
  s2_3x3_128_128s2_n256_f16=${e}_256x64x64_s4_c1_pp_m2_tr
