#!/usr/bin/env python3
"""Per layer of tuning results (`iree-cutlass-tune measure` JSON): the best valid kernel of one family against the
layer's shipped kernel measured in the same run (the only candidate of another family), and both against cuDNN.
With --variants, the family's kernels are only those whose entry names hold one of the substrings, and the shipped
kernel is the one other candidate (for plans whose candidates and shipped kernel share a family, as session 26's).
Several result files (passes of one call) print side by side, each ratio within its own pass.

    python3 bench/family_vs_shipped.py --family sm90_gemm RESULTS.json [MORE.json ...]
    python3 bench/family_vs_shipped.py --family sm90 RESULTS.json --variants _pp_tr _pp_m2_tr _pp_n2_tr
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from gpu_check import geomean  # noqa: E402


def is_ours(candidate: dict, family: str, variants: list[str]) -> bool:
    """Whether a tuning candidate is one of the kernels under study (the rest is the shipped kernel)."""
    return candidate["config"]["family"] == family and (
        not variants or any(v in candidate["entry"] for v in variants))


def layer_ratios(results: dict, family: str, variants: list[str] = ()) -> dict[str, tuple[float, float, float | None]]:
    """key -> (best family ms / shipped ms, shipped ms / cuDNN ms, best family ms / cuDNN ms or None)."""
    ratios = {}
    for problem in results["problems"]:
        valid = [c for c in problem["candidates"] if c.get("valid") and "ms" in c]
        ours = [c["ms"] for c in valid if is_ours(c, family, variants)]
        shipped = [c["ms"] for c in valid if not is_ours(c, family, variants)]
        if not ours or len(shipped) != 1:
            continue
        cudnn = problem.get("cudnn_ms")
        ratios[problem["key"]] = (min(ours) / shipped[0], shipped[0] / cudnn if cudnn else None,
                                  min(ours) / cudnn if cudnn else None)
    return ratios


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", required=True)
    parser.add_argument("--variants", nargs="+", default=[], metavar="SUBSTR",
                        help="count only the family's kernels whose entry names hold one of these")
    parser.add_argument("results", nargs="+")
    args = parser.parse_args(argv)
    try:
        passes = [layer_ratios(json.load(open(path)), args.family, args.variants) for path in args.results]
    except (OSError, ValueError, KeyError) as error:
        print(f"family_vs_shipped: cannot read the results: {error}", file=sys.stderr)
        return 2
    keys = [key for key in passes[0] if all(key in p for p in passes)]
    if not keys:
        print(f"family_vs_shipped: no layer has both a valid {args.family} kernel and one shipped kernel",
              file=sys.stderr)
        return 1
    print("layer".ljust(56) + "".join(f"  pass {i}: best/shipped shipped/cuDNN best/cuDNN" for i in range(len(passes))))
    for key in keys:
        cells = "".join(f"  {p[key][0]:>20.3f} {p[key][1] or float('nan'):>13.3f} {p[key][2] or float('nan'):>11.3f}"
                        for p in passes)
        print(key.ljust(56) + cells)
    for i, p in enumerate(passes):
        print(f"pass {i} ({args.results[i]}): geomean best/shipped {geomean([p[k][0] for k in keys]):.3f} over "
              f"{len(keys)} layers; best of both/shipped {geomean([min(p[k][0], 1.0) for k in keys]):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
