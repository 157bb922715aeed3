"""Adds each sm90 kernel of a tuning plan launched on smaller persistent grids: the A/B of the grid size.

    iree-cutlass-tune build --out out/grid --card h100 --families sm90 --batches 256 --only _r1_s1_ \
        --candidates no_candidate_but_the_shipped_kernel
    python3 bench/grid_ab.py --plan out/grid --ctas 108 120 126
    (GPU) iree-cutlass-tune measure --plan out/grid --graph --with-cudnn --out $OUT/grid.json
    python3 bench/grid_ab.py --summary grid.json [grid2.json ...]

The sm90 kernels are persistent: a CTA walks units blockIdx.x, blockIdx.x + gridDim.x, ... and the host launches
one CTA per SM (sm90.launch_geometry). The walk covers every unit for any whole number of clusters up to the
descriptor slots the push constants give, so the same binary and constants run on fewer CTAs. cuDNN's xmma dgrad
kernel on the 256<-64 1x1 layer at 56x56 runs 120 CTAs (clusters of 8) on the H100's 132 SMs and reaches a higher
DRAM rate than ours (session 36); this measures whether fewer CTAs alone move ours (session 38, H100: no, every
smaller grid was slower). Each added launch is marked `"variant": "grid_N"`, so that `iree-cutlass-tune table`
never chooses it. --summary runs from the source tree alone (the GPU machine's PYTHONPATH=python).
"""
from __future__ import annotations

import argparse
import json
import math
import pathlib
import sys


def grid_variants(candidate: dict, problem: dict, ctas: list[int]) -> list[dict]:
    """`candidate` (an sm90 launch record for `problem`) on each of `ctas` that is fewer than its grid and whole
    clusters; for a resident-filter kernel also a multiple of the channel blocks, as its own grid is (so that each
    CTA keeps one channel block's slab, see sm90.launch_geometry)."""
    from iree_cutlass.plugin.kernels import config_from_dict   # the compiler's half: here, not on the GPU machine
    config = config_from_dict(candidate["config"])
    if config.family != "sm90":
        return []
    multiple = config.cluster_ctas
    if config.resident_k:
        multiple = math.lcm(multiple, -(-problem["c"] // config.tile_n))
    return [{**candidate, "grid": [count, 1, 1], "variant": f"grid_{count}"}
            for count in sorted(set(ctas)) if count < candidate["grid"][0] and count % multiple == 0]


def grid_ratios(results: dict) -> dict[str, dict[str, float]]:
    """Per problem key: each timed grid variant's ms over its kernel's own-grid ms in the same run ("grid_N"),
    and the own-grid launch over cuDNN ("cudnn")."""
    ratios = {}
    for problem in results["problems"]:
        timed = [c for c in problem["candidates"] if c.get("valid") and "ms" in c]
        for base in (c for c in timed if "variant" not in c and c["config"]["family"] == "sm90"):
            row = {c["variant"]: c["ms"] / base["ms"] for c in timed
                   if c.get("variant", "").startswith("grid_") and c["entry"] == base["entry"]}
            if problem.get("cudnn_ms"):
                row["cudnn"] = base["ms"] / problem["cudnn_ms"]
            ratios[f"{problem['key']} {base['entry']}"] = row
    return ratios


def summary(paths: list[pathlib.Path]) -> int:
    """Prints grid_ratios of each result file (runs of one plan) side by side: below 1, the smaller grid is faster."""
    runs = [grid_ratios(json.loads(path.read_text())) for path in paths]
    columns = sorted({name for run in runs for row in run.values() for name in row if name != "cudnn"},
                     key=lambda name: int(name.split("_")[1])) + ["cudnn"]
    print("problem kernel | " + " | ".join(columns) + "   (each cell: run 1 / run 2 / ...)")
    for key in runs[0]:
        cells = [" / ".join(f"{run[key][name]:.3f}" if name in run.get(key, {}) else "-" for run in runs)
                 for name in columns]
        print(f"{key.replace('iree_cutlass_dgrad_', '')} | " + " | ".join(cells))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--plan", type=pathlib.Path, help="a directory from iree-cutlass-tune build")
    action.add_argument("--summary", type=pathlib.Path, nargs="+", metavar="RESULTS",
                        help="measure results of such a plan: each grid's time over the kernel's own grid's")
    parser.add_argument("--ctas", type=int, nargs="+", metavar="N",
                        help="with --plan: grid sizes to add (CTAs; each below the kernel's own grid, whole clusters)")
    args = parser.parse_args()
    if args.summary:
        missing = [str(path) for path in args.summary if not path.is_file()]
        if missing:
            print(f"grid_ab: error: no such file: {missing[0]}", file=sys.stderr)
            return 1
        return summary(args.summary)
    if not args.ctas:
        print("grid_ab: error: --plan needs --ctas", file=sys.stderr)
        return 1
    if any(count < 1 for count in args.ctas):
        print("grid_ab: error: --ctas takes positive counts", file=sys.stderr)
        return 1
    path = args.plan / "plan.json"
    if not path.is_file():
        print(f"grid_ab: error: no plan.json in {args.plan}", file=sys.stderr)
        return 1
    plan = json.loads(path.read_text())
    added = 0
    for entry in plan["problems"]:
        # Variants already in the plan (this script's or another's) are dropped, so a rerun does not double them.
        kernels = [c for c in entry["candidates"] if "variant" not in c]
        variants = [v for c in kernels for v in grid_variants(c, entry["problem"], args.ctas)]
        entry["candidates"] = kernels + variants
        added += len(variants)
    from iree_cutlass.cli.common import write_atomically
    write_atomically(path, json.dumps(plan, indent=1).encode())
    print(f"[grid-ab] {added} launches on smaller grids added to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
