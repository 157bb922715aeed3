"""Launches every distinct kernel of GPU bundles (and of tuning plans) once, on the smallest case that uses it
(at batch <= 4 of its layer), for compute-sanitizer.

    compute-sanitizer --tool memcheck  python3 bench/sanitize_kernels.py --bundle out/gpu [out/random ...]
    compute-sanitizer --tool racecheck python3 bench/sanitize_kernels.py --bundle out/gpu [out/random ...]

Only CuPy touches the GPU here (no torch, no IREE), so the sanitizer sees our kernels and little else. dx is
poisoned first; the script exits non-zero if a launch fails or leaves an element unwritten.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from gpu_check import device_inputs, kernel_launcher, numpy_dtype, random_array  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=pathlib.Path, nargs="+", default=None,
                        help="one or more bundles (default: out/gpu, unless plans are given); each distinct kernel "
                             "runs once, on its smallest case")
    parser.add_argument("--only", nargs="+", default=[""], metavar="SUBSTRING",
                        help="only kernels whose entry point contains one of these (e.g. _sm90_)")
    parser.add_argument("--plan", type=pathlib.Path, nargs="+", default=[],
                        help="tuning plans (iree-cutlass-tune build) too: every candidate kernel, on the smallest "
                             "problem that lists it (build the plan at a small batch, e.g. --batches 2)")
    args = parser.parse_args()
    bundles = args.bundle if args.bundle is not None else [] if args.plan else [pathlib.Path("out/gpu")]
    cases = [{**c, "bundle": bundle} for bundle in bundles
             for c in json.loads((bundle / "cases.json").read_text())["cases"] if "kernel" in c]
    cases += [plan_case(plan, entry, candidate) for plan in args.plan
              for entry in json.loads((plan / "plan.json").read_text())["problems"]
              for candidate in entry["candidates"]]
    smallest: dict[str, dict] = {}
    for case in sorted(cases, key=lambda c: c["flops"]):
        # Bundles record each kernel at a small batch of its layer too ("sanitize_kernel"): run that one.
        case = {**case, "kernel": case.get("sanitize_kernel", case["kernel"])}
        if any(part in case["kernel"]["entry"] for part in args.only):
            smallest.setdefault(case["kernel"]["entry"], case)
    rng = np.random.default_rng(7)
    failures = 0
    for entry, case in sorted(smallest.items()):
        layer = case["layer"]
        problem = case["kernel"]["problem"]
        dy = random_array(rng, (problem["n"], problem["p"], problem["q"], problem["k"]), layer["dtype"])
        w = random_array(rng, (problem["r"], problem["s"], problem["c"], problem["k"]), layer["dtype"])
        import cupy as cp
        launcher = kernel_launcher(case["bundle"], case["kernel"])
        dy_d, w_d, dx_d = device_inputs(dy, w, (problem["n"], problem["h"], problem["w"], problem["c"]),
                                        layer["dtype"], launcher.filter_layout)
        launcher.launch(dy_d, w_d, dx_d)
        cp.cuda.Device().synchronize()
        dx = cp.asnumpy(dx_d).view(numpy_dtype(layer["dtype"])).astype(np.float32)
        unwritten = int(np.count_nonzero(~np.isfinite(dx)))
        failures += unwritten > 0
        print(f"{entry:64s} on {case['tag']:28s} unwritten={unwritten}", flush=True)
    print(f"{len(smallest) - failures} passed, {failures} failed")
    return 1 if failures else 0


def plan_case(plan: pathlib.Path, entry: dict, candidate: dict) -> dict:
    """A plan's candidate in the shape of a bundle case (the plan holds its fatbins under kernels/ as a bundle)."""
    p = entry["problem"]
    return {"bundle": plan, "tag": entry["key"][:28], "layer": {"dtype": p["dtype"]},
            "flops": 2 * p["n"] * p["p"] * p["q"] * p["k"] * p["r"] * p["s"] * p["c"],
            "kernel": {**candidate, "problem": p}}


if __name__ == "__main__":
    sys.exit(main())
