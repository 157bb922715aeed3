#!/usr/bin/env bash
# Here (no GPU), ~10 min: session 31's five swapped GEMM kernels (build_sw.sh) beside each shipped kernel on three
# more batch-256 plain-GEMM layers, f16 and bf16 (out/tune33, archived as out/p33.tgz): the 1x1 layers with K of
# 256 or more that the candidate table (build_candidate.sh) leaves over 1.0x cuDNN on the H200's tune (1x1
# 512<-256 and 128<-512 at 28x28, 256<-1024 at 14x14). No numerics or sanitizer plan: the table vouches for an
# sm90_gemm kernel by its code, and session 32's H100 run checked these five codes (random plain GEMMs, memcheck,
# racecheck: bench/results/h100_2026-12-07_session32_swapped_*).
source "$(dirname "$0")/../lib.sh"
set -e
LAYERS=(_h28_w28_c512_k256_r1_s1_ _h28_w28_c128_k512_r1_s1_ _h14_w14_c256_k1024_r1_s1_)
rm -rf out/tune33
python3 -m iree_cutlass.tune build --out out/tune33 --families sm90_gemm --batches 256 --dtypes f16 bf16 --jobs 2 \
  --only "${LAYERS[@]}" --candidates "${SWAPPED_CANDIDATES[@]}"
tar czf out/p33.tgz -C out tune33
echo "[build_sw2] done at $(git rev-parse --short HEAD)"
