#!/usr/bin/env bash
# Builds gemm_bench.cu once per configuration into OUT (default out/cutlass_gemm), two compiles at a time.
# (The IREE-style launch of a configuration, -DWRAPPED=1 with wrapped.h, is built by bench/plans/session20/build_f.sh;
# the Params layout of the product's configurations is what plugin/sm90_gemm.cuh's generator prints.)
#   bash bench/cutlass_gemm/build.sh [OUT]
# Each binary's name is its configuration: tile, cluster, schedule (coop/pp), scheduler (persistent/streamk).
set -euo pipefail
cd "$(dirname "$0")"
OUT=$(realpath -m "${1:-../../out/cutlass_gemm}")
mkdir -p "$OUT"
INC=$(python3 -c "import cutlass_library, os; print(os.path.join(os.path.dirname(cutlass_library.__file__), 'source'))")
# name TILE_M TILE_N CLUSTER_M CLUSTER_N PINGPONG STREAMK
CONFIGS="
coop_128x256_c1x1 128 256 1 1 0 0
coop_128x256_c2x1 128 256 2 1 0 0
coop_128x256_c1x1_sk 128 256 1 1 0 1
coop_256x128_c1x1 256 128 1 1 0 0
coop_256x128_c2x1 256 128 2 1 0 0
coop_256x128_c1x2 256 128 1 2 0 0
coop_128x128_c1x1 128 128 1 1 0 0
coop_128x128_c2x1 128 128 2 1 0 0
coop_256x64_c1x1 256 64 1 1 0 0
pp_128x128_c1x1 128 128 1 1 1 0
pp_128x128_c2x1 128 128 2 1 1 0
pp_128x64_c1x1 128 64 1 1 1 0
pp_64x256_c1x1 64 256 1 1 1 0
"
build() {
  local name=$1 tm=$2 tn=$3 cm=$4 cn=$5 pp=$6 sk=$7
  [ -x "$OUT/$name" ] && { echo "[gemm build] $name: built"; return; }
  local start=$SECONDS
  nvcc -std=c++17 --expt-relaxed-constexpr -DNDEBUG -O3 -arch=sm_90a -I"$INC/include" -I"$INC/tools/util/include" \
    -DTILE_M=$tm -DTILE_N=$tn -DCLUSTER_M=$cm -DCLUSTER_N=$cn -DPINGPONG=$pp -DSTREAMK=$sk \
    -o "$OUT/$name.tmp" gemm_bench.cu && mv "$OUT/$name.tmp" "$OUT/$name"
  echo "[gemm build] $name: $((SECONDS - start)) s"
}
export -f build; export OUT INC
grep -v '^$' <<<"$CONFIGS" | xargs -P 2 -L 1 bash -c 'build "$@"' _
ls "$OUT"
