#!/usr/bin/env bash
# The main job: install, then compile the JAX-lowered ResNet-50 dgrad layers (batch 8, f16) with the plugin,
# report what each offloaded, and run and check each on the GPU where one exists.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
iree-cutlass-demo --all "$@"
