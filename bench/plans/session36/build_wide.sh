#!/usr/bin/env bash
# Here (no GPU), ~5 min: an H100 plan for the write-heavy 1x1 layers (256<-64 and 256<-128 at 56x56, 512<-128 at
# 28x28; f16 and bf16, batch 256) into out/tune36w.tgz (tune36w, rand36w, san36w). Nsight Compute (call_prof.sh)
# found our kernels there moving the same DRAM bytes as cuDNN's at 69-73% of peak DRAM throughput against cuDNN's
# 73-82%. Ours are 64-channel tiles, so each writes 128-byte pieces of dx's 512-byte pixel rows; cuDNN's kernels
# there are 256 channels wide. The candidates: every 256-channel tile walking flat pixels (so a tile's dx is one
# contiguous run) with whole-tile staging or a ring of 1, 2 or 4 slots, TMA stores, no cluster.
source "$(dirname "$0")/../lib.sh"
set -e
source bench/plans/session36/prof_layers.sh
WIDE_SHAPES=("${PROF_SHAPES[1]}" "${PROF_SHAPES[2]}" "${PROF_SHAPES[3]}")
mapfile -t NAMES < <(python3 - "${WIDE_SHAPES[@]}" <<'PY'
import sys
from iree_cutlass.plugin.select import candidate_configs
from iree_cutlass.workloads import dgrad_problem, resnet50_layers
names = set()
for problem in map(dgrad_problem, resnet50_layers((256,), ("f16", "bf16"))):
    if not any(shape in problem.key() for shape in sys.argv[1:]):
        continue
    names |= {c.name for c in candidate_configs(problem, "sm_90")
              if c.family == "sm90" and c.tile_n == 256 and c.flat and c.cluster == 1 and c.store_slots in (0, 1, 2, 4)
              and not (c.thread_stores or c.warp_stores or c.wg_offset)}
print("\n".join(sorted(names)))
PY
)
echo "[build_wide] ${#NAMES[@]} kernels"
rm -rf out/tune36w out/rand36w out/san36w
python3 -m iree_cutlass.tune build --out out/tune36w --card h100 --families sm90 --batches 256 --dtypes f16 bf16 \
  --jobs 2 --only "${WIDE_SHAPES[@]/#/n256}" --candidates "${NAMES[@]}"
python3 -m iree_cutlass.tune build --out out/rand36w --card h100 --families sm90 --random 200 --seed 25 \
  --channel-multiple 8 --jobs 2 --only _r1_s1_ --candidates "${NAMES[@]}"
python3 -m iree_cutlass.tune build --out out/san36w --card h100 --families sm90 --batches 2 --dtypes f16 bf16 \
  --jobs 2 --only "${WIDE_SHAPES[@]/#/n2}" --candidates "${NAMES[@]}"
tar czf out/tune36w.tgz -C out tune36w rand36w san36w
echo "[build_wide] done at $(git rev-parse --short HEAD)"
