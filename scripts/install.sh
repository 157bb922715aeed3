#!/usr/bin/env bash
# Installs what iree-cutlass needs on a fresh Debian machine: the package and its pinned Python dependencies
# (pyproject.toml), LLVM's FileCheck for the lit tests (Debian's llvm-14-tools), and checks for nvcc.
set -euo pipefail
cd "$(dirname "$0")/.."
log() { echo "[install] $*" >&2; }

if ! command -v FileCheck >/dev/null && ! command -v FileCheck-14 >/dev/null; then
  log "installing FileCheck (llvm-14-tools) with apt-get"
  if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq llvm-14-tools >/dev/null
fi

log "installing iree-cutlass and its pinned dependencies with pip"
python3 -m pip install -q --disable-pip-version-check -e ".[test]"

if ! command -v nvcc >/dev/null && [ -z "${CUDACXX:-}" ] && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  log "warning: no nvcc (CUDA toolkit 12.4+): kernels cannot be built; set CUDACXX or put nvcc on PATH"
fi
log "done: $(iree-compile --version 2>/dev/null | sed -n 2p | sed 's/^ *//'), nvcc $(nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p')"
