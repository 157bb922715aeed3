#!/usr/bin/env bash
# Builds session 20's call E (here, ~3 min on 2 cores): stock CUTLASS ping-pong 128x128 and cooperative 128x256
# GEMMs (bench/cutlass_gemm/gemm_bench.cu) with the TMA descriptors' L2 promotion changed from CUTLASS's 128 B to
# none and to 256 B, through a copy of cute's copy_traits_sm90_tma.hpp that takes the value from a macro and is
# found before the wheel's. Beside the unchanged binaries (out/cutlass_gemm), they say whether L2 promotion is
# what separates CUTLASS's kernel from ours on the 1x1 layers (our descriptors have none).
set -euo pipefail
cd "$(dirname "$0")/../../.."
SRC=$(python3 -c "import cutlass_library, os; print(os.path.join(os.path.dirname(cutlass_library.__file__), 'source'))")
OUT=out/l2prom
PATCHED=$OUT/include/cute/atom
mkdir -p "$PATCHED"
sed 's/CUtensorMapL2promotion  tma_l2Promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_128B;/CUtensorMapL2promotion  tma_l2Promotion = GEMM_BENCH_L2_PROMOTION;/' \
  "$SRC/include/cute/atom/copy_traits_sm90_tma.hpp" > "$PATCHED/copy_traits_sm90_tma.hpp"
grep -q GEMM_BENCH_L2_PROMOTION "$PATCHED/copy_traits_sm90_tma.hpp"
build() {  # name tile_m tile_n pingpong promotion
  [ -x "$OUT/$1" ] && return
  nvcc -std=c++17 --expt-relaxed-constexpr -DNDEBUG -O3 -arch=sm_90a -I"$OUT/include" -I"$SRC/include" \
    -I"$SRC/tools/util/include" -DTILE_M=$2 -DTILE_N=$3 -DCLUSTER_M=1 -DCLUSTER_N=1 -DPINGPONG=$4 -DSTREAMK=0 \
    -DGEMM_BENCH_L2_PROMOTION=$5 -o "$OUT/$1.tmp" bench/cutlass_gemm/gemm_bench.cu && mv "$OUT/$1.tmp" "$OUT/$1"
  echo "[build_e] $1"
}
build pp_128x128_l2none 128 128 1 CU_TENSOR_MAP_L2_PROMOTION_NONE &
build pp_128x128_l2256 128 128 1 CU_TENSOR_MAP_L2_PROMOTION_L2_256B
wait
build coop_128x256_l2none 128 256 0 CU_TENSOR_MAP_L2_PROMOTION_NONE
cp out/cutlass_gemm/pp_128x128_c1x1 out/cutlass_gemm/coop_128x256_c1x1 "$OUT/"
rm -rf "$OUT/include"
