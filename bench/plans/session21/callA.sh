#!/usr/bin/env bash
# GPU call A (session 21), ~150 s:
# - `merged_wait` (bench/kernel_variants.py): one bulk wait after each run of tensormap acquires instead of one
#   after every acquire, beside the shipped kernel of every batch-256 f16 layer (CUDA graphs, two passes, dx
#   compared with the shipped kernel's);
# - the stock CUTLASS ping-pong 128x128 GEMM on the four 1x1 layers' GEMMs: the adapter's launch against the
#   IREE-style one (wrapped.h, now the sm90_gemm family's own launch: no __threadfence, no last __syncthreads,
#   descriptors not copied; call H's `device` mode had all three), two rounds.
# Build first (here): python3 bench/kernel_variants.py build --out out/var21 --variants merged_wait --jobs 16
#   --tags <the 22 batch-256 f16 tags: s1_1x1_64_64_n256_f16 ... s4_3x3_512_512_n256_f16>;
#   bash bench/cutlass_gemm/build.sh; bash bench/plans/session20/build_f.sh
# carry: out/var21 out/wrap20
source "$(dirname "$0")/../lib.sh"
card
T variants
timeout 300 python3 bench/kernel_variants.py measure --plan out/var21 --out $OUT/variants.json 2>&1 | tail -50
T gemm
SHAPES="200704 128 512 50176 256 1024 12544 512 2048 12544 2048 512"
for round in 1 2; do
  timeout 40 out/wrap20/pp_128x128_c1x1 pp_128x128_c1x1 $SHAPES 2>&1 | sed "s/^/round $round /" >> $OUT/gemm.txt
  timeout 40 out/wrap20/pp_128x128_wrapped pp_128x128_wrapped $SHAPES 2>&1 | sed "s/^/round $round /" \
    >> $OUT/gemm.txt
done
cat $OUT/gemm.txt
T done
