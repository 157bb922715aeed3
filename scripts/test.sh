#!/usr/bin/env bash
# The CPU test suite (no GPU needed): install, then lit + FileCheck on the pass and the tools, then pytest
# (matcher numerics on IREE's CPU backend, the API, the CLIs, the ResNet-50 coverage, nvcc kernel builds).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
export IREE_CUTLASS_CACHE_DIR="${IREE_CUTLASS_CACHE_DIR:-$PWD/build/kernel-cache}"
echo "[test] lit" >&2
lit -sv test/lit
echo "[test] pytest" >&2
# pytest exits 5 when it collects nothing: that is a failure here too, as is any other non-zero exit.
python3 -m pytest -q -p no:cacheprovider test/python
