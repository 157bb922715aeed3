#!/usr/bin/env bash
# GPU call D, only if ~250 s of device time remain after A, B and C: Nsight Compute on the 1x1 1024<-512 layer
# (f16, batch 256), the same 256x128 tile with four stages alone, in a filter-sharing pair (_m2) and in a
# dy-sharing pair (_n2), beside the shipped 128x256 kernel. Clusters halve one operand's L2 reads, as cuDNN's do,
# yet ours have lost 2-13% in every tune: these profiles say whether the L2 reads fell and where the time went
# (barrier waits of producer and consumers, tensor-pipe activity). ~200 s.
# carry: out/tune14
set -uo pipefail
cd "$(dirname "$0")/../../.."
T() { echo "=== $(date +%T) $*"; }
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
KEY=n256_h14_w14_c1024_k512_r1_s1_p14_q14_pad0x0_str1x1_f16
mkdir -p /tmp/prof
for e in 128x256x64_s4_c1_e2_ws 256x128x64_s4_c1_e1 256x128x64_s4_c1_m2_e1 256x128x64_s4_c1_n2_e1; do
  T $e
  timeout 75 ncu --set full --import-source yes --clock-control none -k regex:iree_cutlass -c 1 -o /tmp/prof/$e \
    python3 bench/profile_kernels.py --plan out/tune14 --pick $KEY=iree_cutlass_dgrad_sm90_f16_$e 2>&1 | tail -2
done
T pages
for rep in /tmp/prof/*.ncu-rep; do
  b=${rep%.ncu-rep}
  ncu -i $rep --page details > $b.details.txt 2>&1
  ncu -i $rep --page raw --csv > $b.raw.csv 2>&1
  ncu -i $rep --page source --csv --print-source sass > $b.sass.csv 2>&1 || true
done
tar czf $OUT/profiles.tgz -C /tmp prof
ls -la /tmp/prof
T done
