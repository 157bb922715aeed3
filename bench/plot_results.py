"""Charts a tuning run: per ResNet-50 layer, our kernels' time over cuDNN's, measured in the same run.

    pip install -e .[bench]
    python3 bench/plot_results.py bench/results/h200_2026-12-02_tune_sm90.json -o bench/results/h200_sm90_vs_cudnn.png

One panel per batch size (f16): the fastest valid candidate of each family (sm90: Hopper TMA + wgmma; sm80:
CUTLASS 2.x), as a ratio to cuDNN (below 1 is faster than cuDNN), and the geomean of the best in the title.
"""
from __future__ import annotations

import argparse
import json
import math
import pathlib
import sys


def best_by_family(row: dict) -> dict[str, float]:
    best: dict[str, float] = {}
    for candidate in row["candidates"]:
        if candidate.get("valid"):
            family = candidate["config"].get("family", "sm80")
            best[family] = min(best.get(family, math.inf), candidate["ms"])
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=pathlib.Path)
    parser.add_argument("-o", "--out", type=pathlib.Path, required=True)
    parser.add_argument("--dtype", default="f16")
    args = parser.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_results: error: matplotlib is missing: pip install -e .[bench]", file=sys.stderr)
        return 1
    results = json.loads(args.results.read_text())
    rows = [r for r in results["problems"] if r["problem"]["dtype"] == args.dtype and "cudnn_ms" in r]
    batches = sorted({r["problem"]["n"] for r in rows})
    figure, axes = plt.subplots(len(batches), 1, figsize=(13, 4.2 * len(batches)), squeeze=False)
    for axis, batch in zip(axes[:, 0], batches):
        subset = [r for r in rows if r["problem"]["n"] == batch]
        labels, ratios = [], {"sm90": [], "sm80": []}
        for row in subset:
            p = row["problem"]
            labels.append(f"{p['r']}x{p['s']}/s{p['stride_h']} {p['c']}<-{p['k']} {p['h']}x{p['w']}")
            best = best_by_family(row)
            for family in ratios:
                ratios[family].append(best.get(family, math.nan) / row["cudnn_ms"])
        overall = [min(a, b) for a, b in zip(ratios["sm90"], ratios["sm80"])]
        geomean = math.exp(sum(math.log(v) for v in overall) / len(overall))
        positions = range(len(labels))
        axis.bar([x - 0.2 for x in positions], ratios["sm90"], 0.4, label="sm90 (TMA + wgmma), best tile")
        axis.bar([x + 0.2 for x in positions], ratios["sm80"], 0.4, label="sm80 (CUTLASS 2.x), the shipped choice re-measured")
        axis.axhline(1.0, color="black", linewidth=0.8)
        axis.set_xticks(list(positions), labels, rotation=60, ha="right", fontsize=7)
        axis.set_ylabel("time / cuDNN time")
        axis.set_title(f"{results.get('card', '?')}, {args.dtype}, batch {batch}: kernel time over cuDNN "
                       f"(geomean of the best {geomean:.2f}x)", fontsize=10)
        axis.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
