"""Prints, space-separated, the sm90 candidates within WITHIN of the best valid candidate of some earlier
batch-256 tune (bench/results/h200_*tune*.json, each file's times compared among themselves), at most CAP a layer
(the nearest first), that are still candidates of their layer: what session 16 re-tunes after the decode moved.

    python3 bench/plans/session16/near_best.py 0.02 5
"""
import collections
import glob
import json
import sys

from iree_cutlass.plugin import sm90
from iree_cutlass.workloads import dgrad_problem, resnet50_layers


def nearest_ratios() -> dict[str, dict[str, float]]:
    """Problem key -> sm90 entry point -> its lowest time over the best valid time of the same tune file, over
    every earlier batch-256 tune."""
    nearest = collections.defaultdict(dict)
    for path in sorted(glob.glob("bench/results/h200_*tune*.json")):
        data = json.load(open(path))
        if not isinstance(data, dict) or "problems" not in data:
            continue
        for problem in data["problems"]:
            valid = [c for c in problem["candidates"]
                     if c.get("valid") and c.get("ms") and "_sm90_" in c["entry"]]
            if not problem["key"].startswith("n256_") or not valid:
                continue
            best = min(c["ms"] for c in valid)
            for c in valid:
                ratio = c["ms"] / best
                if ratio < nearest[problem["key"]].get(c["entry"], float("inf")):
                    nearest[problem["key"]][c["entry"]] = ratio
    return nearest


def near_best_per_layer(within: float):
    """For every batch-256 layer, f16 and bf16: its problem, its sm90 candidates by entry point, and the entry
    points among them within `within` of an earlier tune's best, the nearest first."""
    nearest = nearest_ratios()
    for layer in resnet50_layers(batches=(256,)):
        problem = dgrad_problem(layer)
        candidates = {c.name: c for c in sm90.candidate_configs(problem)}
        ranked = sorted((r, e) for e, r in nearest[problem.key()].items() if e in candidates and r <= 1 + within)
        yield problem, candidates, [e for _, e in ranked]


def main() -> int:
    within, cap = float(sys.argv[1]), int(sys.argv[2])
    chosen = set()
    for _, _, ranked in near_best_per_layer(within):
        chosen |= set(ranked[:cap])
    print(" ".join(sorted(chosen)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
