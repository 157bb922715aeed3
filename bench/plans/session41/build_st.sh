#!/usr/bin/env bash
# Here (no GPU), ~10 min on 2 cores where the kernel cache is cold: the stage-depth tune of a card's table (CARD,
# default h100; out/st41<card>.tgz holding three plans). Every candidate has had the deepest pipeline that fits,
# and bench/store_path_probe.cu found the memory path of 1x1 256<-64 alone 12% slower with 8 dy boxes in flight
# than with 4 (TMA loads and stores, units strided over the grid, as our kernels walk; H100, session 41):
# - tune41s: the memory-bound 1x1 layers at 56x56 and 28x28 (session 36's prof_layers.sh, and 64<-256), f16 and
#   bf16, batch 256: the table's kernel beside its twins with 2, 3, 4 and 6 stages (those fewer than its own);
# - rand41s: those twins on the first 20 random problems of seed 25 that they compute, numerics only;
# - san41s: those twins on two of the layers at batch 2, for memcheck and racecheck.
source "$(dirname "$0")/../lib.sh"
source bench/plans/session36/prof_layers.sh
set -e
card=${1:-h100} out=st41${1:-h100}
rm -rf "out/$out" && mkdir -p "out/$out"
python3 -m iree_cutlass.tune build --out "out/$out/tune41s" --card "$card" --families sm90 sm90_gemm --batches 256 \
  --dtypes f16 bf16 --only "${PROF_KEYS[@]}" n256_h56_w56_c64_k256_r1_ --candidates no_candidate_but_the_shipped_kernel \
  --twins stages=2 stages=3 stages=4 stages=6 --jobs 2
# The twins: every kernel of the plan that is not its problem's table kernel.
mapfile -t TWINS < <(python3 - "out/$out/tune41s" "$card" <<'PY'
import json, pathlib, sys
from iree_cutlass.plugin.select import select_kernel
from iree_cutlass.workloads import dgrad_problem, resnet50_layers
shipped = {dgrad_problem(l).key(): select_kernel(dgrad_problem(l), card=sys.argv[2]).name
           for l in resnet50_layers((256,), ("f16", "bf16"))}
plan = json.loads((pathlib.Path(sys.argv[1]) / "plan.json").read_text())
print("\n".join(sorted({c["entry"] for p in plan["problems"] for c in p["candidates"] if c["entry"] != shipped[p["key"]]})))
PY
)
echo "[build_st] ${#TWINS[@]} stage twins: ${TWINS[*]}"
# The checks, smaller than twin_checks' default (30 twins on 200 random problems would be ~3,000 runs): the first
# 20 random problems of seed 25; for the sanitizers two layers at batch 2 that every twin computes one of (a plan
# problem holds every twin that computes it: 256<-64 the unit-stride ones, 256<-512 stride 2 the strided ones).
TWIN_RANDOM=20 TWIN_SAN_ONLY="n2_h56_w56_c256_k64_r1_ n2_h56_w56_c256_k512_r1_s1_p28" \
  twin_checks "out/$out" "$card" "^($(IFS='|'; echo "${TWINS[*]}"))$" rand41s san41s tune41s
tar czf "out/$out.tgz" -C out "$out"
ls -la "out/$out.tgz"
echo "[build_st] done at $(git rev-parse --short HEAD)"
