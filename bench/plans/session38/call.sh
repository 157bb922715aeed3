#!/usr/bin/env bash
# GPU call (session 38), the first of a landing.
# On an H200 (~320 s): session 36's call.sh (the three pending H200 tunes: $OUT/a, $OUT/sw, $OUT/sw2; the clipped-
# tap tune: $OUT/clip). Then, each on the warm machine: session 36's call_h200_check.sh (carry out/gpu33c.tgz .whl),
# call_grid.sh (carry out/grid38.tgz out/grid38h.tgz), call_sp.sh (carry out/sp38h200.tgz).
# On another card (~2 min): the check of out/gpu38s, the batch-8 layers whose H100 entries session 38 changed to
# partner-skipping kernels (prepare_gpu.py --card h100 --stock --no-cnn --batches 8 --only s2_1x1_256_512s2_n8
# s3_1x1_512_1024s2_n8): their numerics through IREE and their timings beside cuDNN and XLA (gpu_check.sh, as
# session 35's call_h100_check.sh runs it, without its sanitizers); then call_wait.sh (the full-stage wait A/B).
# (Session 38's first call ran the H100 half of this script's earlier form at a331313: session 37's call_pair.sh,
# call_grid.sh and call_prof.sh.)
# carry: out/p26a.tgz out/p31.tgz out/p33.tgz out/p35ct_tune.tgz out/gpu38s.tgz .whl out/wait38.tgz
here="$(dirname "$0")"
source "$here/../lib.sh"
if on_h200; then
  bash "$here/../session36/call.sh"   # on an H200: session 33's call2.sh, then session 35's call_h200.sh
else
  # The check alone: session 38's san38s already ran memcheck and racecheck over these kernels.
  card
  tar xzf out/gpu38s.tgz -C out
  mkdir -p "$OUT/check"
  T check
  OUT="$OUT/check" timeout 200 bash bench/gpu_check.sh --bundle out/gpu38s --bench --bench-dtypes f16 bf16 2>&1 | tail -6
  bash "$here/call_wait.sh"
fi
