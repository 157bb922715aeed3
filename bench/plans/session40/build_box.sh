#!/usr/bin/env bash
# Here (no GPU), ~10 min on 2 cores: the box-major walk A/B (bench/kernel_variants.py `box_walk`,
# `box_walk_reuse`; out/box40.tgz). Session 40's Nsight Compute run put the stepped walk's 1.3x on 256<-64 at dy
# read 1.5 times from DRAM: CTAs that share a dy box drift apart once the consumers stop pacing them. Here each CTA
# takes whole boxes, and with `box_walk_reuse` its consumers decode a box once. Cases: the H100 table's kernels on
# the layers whose walk has several channel units a box (256<-64, 256<-128, 512<-128, the 3x3 512 layer at 7x7,
# the 3x3 128 stride-2 layer, the 1x1 stride-2 512<-1024), the H200 table's bf16 kernel on 256<-64, and 64<-256
# (one channel unit a box: the order is the shipped one there, a control).
# Built at f6509a8; the variants are now the kernel's kBoxWalk option, so this plan cannot be rebuilt (its record).
source "$(dirname "$0")/../lib.sh"
e=iree_cutlass_dgrad_sm90_f16
variants_build box40 "box_walk box_walk_reuse" \
  s1_1x1_256_64_n256_f16=${e}_128x64x64_s8_c1_pp_tr \
  s1_1x1_64_256_n256_f16=${e}_128x64x64_s8_c1_pp_tr \
  s2_1x1_256_128_n256_f16=${e}_128x64x64_s8_c1_pp_n2_tr \
  s2_1x1_512_128_n256_f16=${e}_256x64x64_s4_c1_n2_tr_b2 \
  s4_3x3_512_512_n256_f16=${e}_128x256x64_s3_c1_e4_ct \
  s2_3x3_128_128s2_n256_f16=${e}_256x64x64_s4_c1_pp_m2_tr \
  s3_1x1_512_1024s2_n256_f16=${e}_128x256x64_s4_c1_m2_e2_ws \
  s1_1x1_256_64_n256_bf16=iree_cutlass_dgrad_sm90_bf16_128x128x64_s6_c1_e2_ws
