#!/usr/bin/env bash
# GPU call F (session 25), H200: the batch-256 part of the whole check of the bundle of main (every batch-256 case's
# numerics through IREE and alone; kernel, cuDNN and XLA timed side by side, f16 and bf16), ~220 s: for when too
# little device time is left for callE.sh (~300 s) or session 15's callC.sh (~420-585 s).
# carry: out/gpu.tgz .whl
source "$(dirname "$0")/../lib.sh"
tar xzf out/gpu.tgz -C out
T check
timeout 300 bash bench/gpu_check.sh --bench --bench-dtypes f16 bf16 --only n256 2>&1 | tail -6
T done
