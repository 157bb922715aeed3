"""Charts a tuning run or a GPU check: per ResNet-50 layer, time over cuDNN's time measured in the same run.

    pip install -e .[bench]
    python3 bench/plot_results.py bench/results/h200_2026-12-02_tune_sm90.json -o bench/results/h200_sm90_vs_cudnn.png
    python3 bench/plot_results.py bench/results/h200_2026-12-02_session3.json -o bench/results/h200_session3.png

One panel per batch size. A tuning run (iree-cutlass-tune measure): the fastest valid candidate of each family
(sm90: Hopper TMA + wgmma; sm80: CUTLASS 2.x). A GPU check (bench/gpu_check.py): the shipped kernel alone, XLA,
ours through IREE per call, and stock IREE. Below 1 is faster than cuDNN; the title gives our kernel's geomean.
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
    if "rows" in results:
        return plot_gpu_check(results, args, plt)
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


# (row key, legend) of the GPU check's series, each divided by the same run's cuDNN time.
# (time, the cuDNN time it is divided by, legend): graph replays are compared with cuDNN's graph replays.
GPU_CHECK_SERIES = (
    ("kernel_ms", "cudnn_ms", "ours, kernel only (loop of launches)"),
    ("kernel_graph_ms", "cudnn_graph_ms", "ours, kernel only (CUDA graph, over cuDNN's graph)"),
    ("xla_ms", "cudnn_ms", "XLA via JAX, per call"),
    ("iree_ms", "cudnn_ms", "ours through IREE, per call (caching allocator, synchronous allocations)"),
    ("stock_sm_80_ms", "cudnn_ms", "stock IREE sm_80, per call"),
)


def plot_gpu_check(results: dict, args, plt) -> int:
    # gpu_check.py writes iree_ms (its runtime flags beside it); session 3's merged file called it iree_caching_ms.
    rows = [{**r, "iree_ms": r.get("iree_ms", r.get("iree_caching_ms"))} for r in results["rows"]
            if r.get("dtype") == args.dtype and isinstance(r.get("cudnn_ms"), float) and not r["tag"].startswith("odd_")]
    batches = sorted({r["n"] for r in rows})
    figure, axes = plt.subplots(len(batches), 1, figsize=(13, 4.6 * len(batches)), squeeze=False)
    width = 0.8 / len(GPU_CHECK_SERIES)
    for axis, batch in zip(axes[:, 0], batches):
        subset = [r for r in rows if r["n"] == batch]
        positions = range(len(subset))
        offset = (len(GPU_CHECK_SERIES) - 1) / 2
        for index, (key, peer, legend) in enumerate(GPU_CHECK_SERIES):
            ratios = [r[key] / r[peer] if isinstance(r.get(key), float) and isinstance(r.get(peer), float)
                      else math.nan for r in subset]
            axis.bar([x + (index - offset) * width for x in positions], ratios, width, label=legend)
        failed = [x for x, r in zip(positions, subset) if isinstance(r.get("stock_sm_80_ms"), str)]
        axis.plot([x + offset * width for x in failed], [1.0] * len(failed), "rx", label="stock IREE fails to compile")
        kernel = [r["kernel_ms"] / r["cudnn_ms"] for r in subset]
        geomean = math.exp(sum(math.log(v) for v in kernel) / len(kernel))
        axis.axhline(1.0, color="black", linewidth=0.8)
        axis.set_yscale("log")
        tallest = max((r[k] / r[peer] for r in subset for k, peer, _ in GPU_CHECK_SERIES
                       if isinstance(r.get(k), float) and isinstance(r.get(peer), float)), default=1.0)
        axis.set_ylim(top=tallest * 4)  # room for the legend above the bars
        axis.set_xticks(list(positions), [r["tag"].rsplit("_n", 1)[0] for r in subset], rotation=60, ha="right",
                        fontsize=7)
        axis.set_ylabel("time / cuDNN time (log)")
        graphs = [r["kernel_graph_ms"] / r["cudnn_graph_ms"] for r in subset
                  if isinstance(r.get("kernel_graph_ms"), float) and isinstance(r.get("cudnn_graph_ms"), float)]
        graph_note = f", {math.exp(sum(map(math.log, graphs)) / len(graphs)):.2f}x from CUDA graphs" if graphs else ""
        axis.set_title(f"{results.get('card', '?')}, {args.dtype}, batch {batch}: time over cuDNN's "
                       f"(our kernel's geomean {geomean:.2f}x{graph_note})", fontsize=10)
        axis.legend(fontsize=7, ncol=3)
    figure.tight_layout()
    figure.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
