#!/usr/bin/env bash
# Here (no GPU), ~3 min on 2 cores: the ping-pong partner-skip A/B (bench/kernel_variants.py `partner_skip`,
# `partner_skip_once`) on the batch-256 f16 layers whose table kernel is a ping-pong one (H100 table; the H200
# table's where it differs), and a strided layer where the walk has several phases and the skip never applies (its
# variants must time as the shipped kernel): out/var38.tgz.
# Ran at f48c6ef (results: bench/results/h100_2026-12-07_session38_partner_skip_ab*.json). From 3cd555a the edit
# is the `skip_partner` option (`_sp` twins, tuned by build_sp.sh), and kernel_variants.py no longer has these
# variants: at a later commit this script stops at them (`git checkout f48c6ef` to rebuild the A/B).
source "$(dirname "$0")/../lib.sh"
set -e
e=iree_cutlass_dgrad_sm90_f16
python3 bench/kernel_variants.py build --out out/var38 --variants partner_skip partner_skip_once --tags \
  s1_1x1_64_64_n256_f16=${e}_256x64x64_s4_c1_pp_tr s1_1x1_64_256_n256_f16=${e}_128x64x64_s8_c1_pp_tr \
  s1_1x1_256_64_n256_f16=${e}_128x64x64_s8_c1_pp_tr s2_1x1_256_128_n256_f16=${e}_128x64x64_s8_c1_pp_n2_tr \
  s2_1x1_128_512_n256_f16=${e}_128x128x64_s5_c1_pp_e2 s2_3x3_128_128s2_n256_f16=${e}_256x64x64_s4_c1_pp_m2_tr \
  s1_1x1_64_64_n256_f16=${e}_128x64x64_s6_c1_pp_e2_wp s1_1x1_64_256_n256_f16=${e}_128x64x64_s6_c1_pp_e2 \
  s4_3x3_512_512_n256_f16=${e}_64x256x64_s4_c1_pp
tar czf out/var38.tgz -C out var38
ls -la out/var38.tgz
echo "[build_var] done at $(git rev-parse --short HEAD)"
