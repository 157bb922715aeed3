#!/usr/bin/env bash
# The whole GPU check in one call on the GPU machine (which has torch, JAX, CuPy, but no IREE):
#   here:  python bench/prepare_gpu.py --out out/gpu --stock --amortized
#          python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#              --platform manylinux_2_28_x86_64 -d .whl iree-base-runtime==3.13.0
#   there: bash bench/gpu_check.sh --bench --bench-dtypes f16 bf16 --iree-bench --stock-targets sm_80 --iree-variants   (494 s, H200)
#          (carry out/gpu and .whl); sanitizers: compute-sanitizer --tool memcheck|racecheck \
#              python3 bench/sanitize_kernels.py --bundle out/gpu [more bundles]
# The JSON result lands in $OUT/gpu_check.json; commit it under bench/results/.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install -q --no-index --no-deps --no-compile --upgrade --target /tmp/iree-site .whl/iree_base_runtime-*.whl
export PYTHONPATH="/tmp/iree-site${PYTHONPATH:+:$PYTHONPATH}" PATH="/tmp/iree-site/bin:$PATH" PYTHONUNBUFFERED=1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
python3 bench/gpu_check.py --bundle out/gpu --out "${OUT:-out}/gpu_check.json" "$@"
