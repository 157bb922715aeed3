#!/usr/bin/env bash
# Builds what session 20's call F carries (here, ~1 min): the stock CUTLASS ping-pong 128x128 GEMM launched IREE's
# way (gemm_bench.cu with -DWRAPPED=1, bench/cutlass_gemm/wrapped.h) into out/wrap20, beside the same
# configuration's ordinary gemm_bench binary (built by bench/cutlass_gemm/build.sh into out/cutlass_gemm).
set -euo pipefail
cd "$(dirname "$0")/../../.."
SRC=$(python3 -c "import cutlass_library, os; print(os.path.join(os.path.dirname(cutlass_library.__file__), 'source'))")
mkdir -p out/wrap20
[ -x out/cutlass_gemm/pp_128x128_c1x1 ] || { echo "build_f: run bench/cutlass_gemm/build.sh first" >&2; exit 1; }
nvcc -std=c++17 --expt-relaxed-constexpr -DNDEBUG -O3 -gencode arch=compute_90a,code=sm_90a -I"$SRC/include" \
  -I"$SRC/tools/util/include" -DTILE_M=128 -DTILE_N=128 -DCLUSTER_M=1 -DCLUSTER_N=1 -DPINGPONG=1 -DSTREAMK=0 \
  -DWRAPPED=1 -DCUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL -o out/wrap20/pp_128x128_wrapped.tmp \
  bench/cutlass_gemm/gemm_bench.cu
mv out/wrap20/pp_128x128_wrapped.tmp out/wrap20/pp_128x128_wrapped
cp out/cutlass_gemm/pp_128x128_c1x1 out/wrap20/
echo "[build_f] done at $(git rev-parse --short HEAD)"
