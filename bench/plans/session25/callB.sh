#!/usr/bin/env bash
# GPU call B (session 25), any card: the halo-tile kernels of the 3x3 C = K = 64 layer beside its shipped kernel
# and cuDNN (batch 8 and 256, f16 and bf16, CUDA graphs), their numerics on five random problems (check only), and
# memcheck and racecheck on the layer at batch 2. ~100 s. A table entry needs the tune from an H200:
#   bash bench/plans/table_after.sh DIR _hl   (with tune.json, random.json, memcheck.txt, racecheck.txt in DIR)
# Build first (here): bash bench/plans/session25/build_b.sh
# carry: out/p25.tgz
source "$(dirname "$0")/../lib.sh"
tar xzf out/p25.tgz -C out
tune_call out/tune25 120 out/rand25 out/san25
