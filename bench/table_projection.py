#!/usr/bin/env python3
"""The kernel-only ratio to cuDNN that a tuning table gives, read off one call's tuning results: per problem, the
candidate whose config is the table's entry, over cuDNN measured beside it in the same pass (CUDA graphs when the
pass used them); geomeans per dtype and batch. Every problem must find its table kernel among the candidates.

    python3 bench/table_projection.py --table plugin/tuning/h200.json RESULTS.json [MORE.json ...]

Not the whole check (no IREE, one timing mode): a same-run preview of what the whole check will measure.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from gpu_check import geomean  # noqa: E402


def table_ratios(table: dict, results: dict) -> tuple[list[tuple[str, str, float]], list[str]]:
    """([(key, entry, table kernel ms / cuDNN ms)], [keys whose table kernel is not among the candidates])."""
    from iree_cutlass.plugin.kernels import config_from_dict
    from iree_cutlass.tune import timed_valid
    rows, missing = [], []
    for problem in results["problems"]:
        entry = table["entries"].get(problem["key"])
        if entry is None or "cudnn_ms" not in problem:
            missing.append(problem["key"])
            continue
        wanted = config_from_dict(entry["config"])
        match = next((c for c in problem["candidates"]
                      if timed_valid(c) and config_from_dict(c["config"]) == wanted), None)
        if match is None:
            missing.append(problem["key"])
            continue
        rows.append((problem["key"], match["entry"], match["ms"] / problem["cudnn_ms"]))
    return rows, missing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", type=pathlib.Path, required=True)
    parser.add_argument("results", nargs="+", type=pathlib.Path)
    args = parser.parse_args(argv)
    try:
        table = json.loads(args.table.read_text())
        passes = [json.loads(path.read_text()) for path in args.results]
        measured = [table_ratios(table, results) for results in passes]
    except (OSError, ValueError, KeyError) as error:
        print(f"table_projection: cannot read the table or the results: {error}", file=sys.stderr)
        return 2
    rows = [row for found, _ in measured for row in found]
    missing = [key for _, lost in measured for key in lost]
    for key, entry, ratio in rows:
        print(f"{key:56s} {entry:56s} {ratio:6.3f}")
    groups: dict[str, list[float]] = {}
    for key, _, ratio in rows:
        batch, dtype = key.split("_")[0], key.rsplit("_", 1)[1]
        groups.setdefault(f"{dtype} {batch}", []).append(ratio)
    cards = sorted({results["card"] for results in passes})
    timings = sorted({results.get("timing", "loop") for results in passes})
    for group, ratios in sorted(groups.items()):
        print(f"{group}: table kernel / cuDNN geomean {geomean(ratios):.3f}, worst {max(ratios):.3f} over "
              f"{len(ratios)} problems ({', '.join(cards)}; timing {', '.join(timings)})")
    if missing:
        print(f"table_projection: {len(missing)} problems without their table kernel or cuDNN: "
              f"{' '.join(missing)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
