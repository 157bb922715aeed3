#!/usr/bin/env bash
# Here (no GPU), ~15 min on 2 cores where the kernel cache is cold: the box-walk tune of a card's table (CARD,
# default h100; out/bw40<card>.tgz holding four plans):
# - tune40b: every batch-256 layer (f16, bf16) whose table kernel has a `_bw` twin (one CTA a unit, no
#   filter slab or partner skip, several channel units a box), the twin beside it;
# - tune40w: on the memory-bound 1x1 layers at 56x56 and 28x28 (session 36's prof_layers.sh) also the transposed
#   64-channel ping-pong kernels of 128 and 256 pixels, with and without the box walk;
# - rand40b: every `_bw` kernel of those plans on the random problems among 200 (seed 25) that it computes,
#   numerics only;
# - san40b: those kernels on the same layers at batch 2, for memcheck and racecheck.
source "$(dirname "$0")/../lib.sh"
source bench/plans/session36/prof_layers.sh
set -e
card=${1:-h100} out=bw40${1:-h100}
rm -rf "out/$out" && mkdir -p "out/$out"
# The batch-256 problems whose table kernel has a box-walk twin (the others would time their shipped kernel alone).
mapfile -t KEYS < <(python3 - "$card" <<'PY'
import dataclasses, sys
from iree_cutlass.plugin import sm90
from iree_cutlass.plugin.select import select_kernel
from iree_cutlass.workloads import dgrad_problem, resnet50_layers
for layer in resnet50_layers((256,), ("f16", "bf16")):
    problem = dgrad_problem(layer)
    config = select_kernel(problem, card=sys.argv[1])
    if isinstance(config, sm90.Sm90Config) and sm90.channel_units(config, problem) > 1:
        try:
            dataclasses.replace(config, box_walk=True)
        except ValueError:
            continue
        print(problem.key())
PY
)
echo "[build_bw] ${#KEYS[@]} problems whose $card kernel has a box-walk twin"
python3 -m iree_cutlass.tune build --out out/$out/tune40b --card "$card" --families sm90 sm90_gemm --batches 256 \
  --dtypes f16 bf16 --only "${KEYS[@]}" --candidates no_candidate_but_the_shipped_kernel --twins box_walk --jobs 2
python3 -m iree_cutlass.tune build --out out/$out/tune40w --card "$card" --families sm90 sm90_gemm --batches 256 \
  --dtypes f16 bf16 --only "${PROF_KEYS[@]}" --candidates 128x64x64_s8_c1_pp_tr 256x64x64_s4_c1_pp_tr \
  --skip _sp _wr _ts _ct --jobs 2
# Every `_bw` kernel the two plans time, on random problems and at batch 2.
twin_checks out/$out "$card" '_bw$' rand40b san40b tune40b tune40w
tar czf out/$out.tgz -C out $out
ls -la out/$out.tgz
echo "[build_bw] done at $(git rev-parse --short HEAD)"
