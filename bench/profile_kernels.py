"""Launches chosen candidates of a tuning plan a few times each, for Nsight Compute to profile.

    ncu --clock-control none --section SpeedOfLight -k regex:iree_cutlass --launch-skip-before-match 0 \
        python3 bench/profile_kernels.py --plan out/tune --pick KEY_SUBSTRING=ENTRY_SUBSTRING ...
        python3 bench/profile_kernels.py --bundle out/gpu --tags s2_1x1_512_128_n256_f16 ...
        python3 bench/profile_kernels.py --variants out/var --cases s1_1x1_256_64_n256_f16:shipped ...

Each pick names a problem (a substring of its key) and a candidate (a substring of its entry point, or the whole
entry point); with
--bundle, each tag names a case of a GPU-check bundle (bench/prepare_gpu.py) and its shipped kernel; with --variants, each case names a layer
tag of a bench/kernel_variants.py plan and one of its variants (all of a kernel's variants share its entry point, so
Nsight Compute tells them apart by launch order). Inputs are
random (never zeros). Only CuPy touches the GPU, so the profile holds our kernels alone.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--plan", type=pathlib.Path, help="a tuning plan (iree-cutlass-tune build)")
    source.add_argument("--bundle", type=pathlib.Path, help="a GPU-check bundle (bench/prepare_gpu.py)")
    source.add_argument("--variants", type=pathlib.Path, help="a kernel_variants.py plan")
    parser.add_argument("--pick", nargs="+", default=[], metavar="KEY=ENTRY", help="with --plan")
    parser.add_argument("--tags", nargs="+", default=[], metavar="TAG", help="with --bundle")
    parser.add_argument("--cases", nargs="+", default=[], metavar="TAG:VARIANT", help="with --variants")
    parser.add_argument("--launches", type=int, default=2)
    args = parser.parse_args()
    import cupy as cp
    from iree_cutlass.kernel_launch import KernelLauncher, filter_in_layout

    rng = np.random.default_rng(1)
    for label, p, fatbin, candidate in _picks(args):
        launcher = KernelLauncher(fatbin, candidate)
        dy = rng.standard_normal((p["n"], p["p"], p["q"], p["k"]), dtype=np.float32).astype(np.float16)
        w = rng.standard_normal((p["k"], p["r"], p["s"], p["c"]), dtype=np.float32).astype(np.float16)
        dy_d = cp.asarray(dy.view(np.uint16))
        w_d = cp.asarray(filter_in_layout(w, launcher.filter_layout).view(np.uint16))
        dx_d = cp.zeros((p["n"], p["h"], p["w"], p["c"]), dtype=cp.uint16)
        for _ in range(args.launches):
            launcher.launch(dy_d, w_d, dx_d)
        cp.cuda.Device().synchronize()
        print(f"launched {candidate['entry']} on {label}", flush=True)
    return 0


def _picks(args):
    """(label, problem, fatbin, launch record) of each kernel to launch."""
    from iree_cutlass.tune import names_any   # a whole entry point names that kernel alone
    if args.plan:
        plan = json.loads((args.plan / "plan.json").read_text())
        for pick in args.pick:
            key_part, entry_part = pick.split("=", 1)
            entry = next(e for e in plan["problems"] if key_part in e["key"])
            candidate = next(c for c in entry["candidates"] if names_any(c["entry"], [entry_part]))
            yield entry["key"], entry["problem"], args.plan / "kernels" / candidate["fatbin"], candidate
        return
    if args.variants:
        cases = {c["tag"]: c for c in json.loads((args.variants / "plan.json").read_text())["cases"]}
        for pick in args.cases:
            tag, variant = pick.split(":", 1)
            case = cases[tag]
            yield pick, case["problem"], args.variants / case["fatbins"][variant], case["record"]
        return
    cases = {c["tag"]: c for c in json.loads((args.bundle / "cases.json").read_text())["cases"]}
    for tag in args.tags:
        kernel = cases[tag]["kernel"]
        yield tag, kernel["problem"], args.bundle / "kernels" / kernel["fatbin"], kernel


if __name__ == "__main__":
    sys.exit(main())
