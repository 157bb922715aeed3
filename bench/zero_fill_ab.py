"""Adds the shipped kernels, launched the way they were before zero fill, to a tuning plan: the A/B of zero fill.

    iree-cutlass-tune build --out out/zf --families sm90 --only r1_s1_p28_q28_pad0x0_str2x2 ...
    python3 bench/zero_fill_ab.py --plan out/zf
    (GPU) iree-cutlass-tune measure --plan out/zf --graph --with-cudnn --out $OUT/zf.json

For a 1x1 filter with stride > 1 and no padding the kernels walk phase (0, 0) alone and zero-fill the other
phases beside the walk (sm90.zero_fills). The same binaries still walk every phase, storing zero tiles for the
empty ones, when the push constants say so (a phase divisor of stride_h * stride_w). For each such problem this
appends the shipped config's launch record computed that way, marked `"variant": "zero_tiles"`, so that both
run in one call; `iree-cutlass-tune table` never chooses a variant.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys
from unittest import mock

from iree_cutlass.cli.common import write_atomically
from iree_cutlass.plugin import sm90
from iree_cutlass.plugin.kernels import config_from_dict, launch_record
from iree_cutlass.plugin.problem import DgradProblem
from iree_cutlass.plugin.select import select_kernel


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plan", type=pathlib.Path, required=True, help="a directory from iree-cutlass-tune build")
    args = parser.parse_args()
    path = args.plan / "plan.json"
    plan = json.loads(path.read_text())
    added = 0
    for entry in plan["problems"]:
        problem = DgradProblem(**entry["problem"])
        entry["candidates"] = [c for c in entry["candidates"] if "variant" not in c]
        if not sm90.zero_fills(problem):
            continue
        shipped = select_kernel(problem, arch=plan["arch"])
        same = [c for c in entry["candidates"] if config_from_dict(c["config"]) == shipped]
        if not same:
            print(f"[zero-fill] {entry['key']}: the shipped kernel {shipped.name} is not in the plan", file=sys.stderr)
            continue
        with mock.patch.object(sm90, "zero_fills", lambda _: False):
            record = launch_record(shipped, problem)
        entry["candidates"].append({**record, "fatbin": same[0]["fatbin"], "variant": "zero_tiles"})
        added += 1
    write_atomically(path, json.dumps(plan, indent=1).encode())
    print(f"[zero-fill] {added} zero-tile launches added to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
