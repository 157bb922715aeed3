"""Compile time, on this machine: the plugin (iree-cutlass-compile --iree-plugin=cutlass, sm_90, warm kernel
cache) against stock iree-compile (sm_80) for each ResNet-50 dgrad module, median of repeated runs.

    python bench/compile_time.py --mlir out/gpu/mlir --only _n256_f16 --out bench/results/compile_time.json

Each compile runs as its own process, as a user runs it. The first plugin compile of a layer may build its kernel
(a cache miss, reported as such); it is run once before timing so every timed run hits the cache.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import platform
import statistics
import subprocess
import sys
import tempfile
import time

OURS = ["iree-cutlass-compile", "--iree-plugin=cutlass", "--iree-hal-target-device=cuda", "--iree-cuda-target=sm_90"]
STOCK = ["iree-compile", "--iree-hal-target-device=cuda", "--iree-cuda-target=sm_80"]


def timed(command: list[str], mlir: pathlib.Path, out: pathlib.Path) -> tuple[float, str | None]:
    started = time.perf_counter()
    done = subprocess.run([*command, str(mlir), "-o", str(out)], capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        lines = [l for l in done.stderr.splitlines() if "error" in l.lower()] or done.stderr.splitlines() or ["?"]
        return seconds, lines[0].strip()[:200]
    return seconds, None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mlir", type=pathlib.Path, default=pathlib.Path("out/gpu/mlir"),
                        help="the JAX-lowered modules bench/prepare_gpu.py wrote")
    parser.add_argument("--only", nargs="+", default=["_n256_f16"], help="substrings of the module names")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=pathlib.Path, required=True)
    args = parser.parse_args()
    modules = sorted(p for p in args.mlir.glob("s*.mlir") if any(part in p.name for part in args.only))
    if not modules:
        print(f"compile_time: no modules matching {args.only} in {args.mlir}", file=sys.stderr)
        return 1
    rows = []
    with tempfile.TemporaryDirectory() as work:
        vmfb = pathlib.Path(work) / "out.vmfb"
        for index, mlir in enumerate(modules, 1):
            _, warm_error = timed(OURS, mlir, vmfb)  # builds the kernel on a cache miss
            row = {"module": mlir.stem}
            for label, command in (("ours", OURS), ("stock_sm_80", STOCK)):
                runs = [timed(command, mlir, vmfb) for _ in range(args.repeats)]
                errors = [e for _, e in runs if e]
                row[f"{label}_s"] = statistics.median(s for s, _ in runs)
                if errors:
                    row[f"{label}_error"] = errors[0]
            if warm_error:
                row["ours_error"] = warm_error
            rows.append(row)
            print(f"[compile-time] {index}/{len(modules)} {mlir.stem}: ours {row['ours_s']:.2f} s, stock sm_80 "
                  f"{row['stock_sm_80_s']:.2f} s{' (stock failed)' if 'stock_sm_80_error' in row else ''}",
                  flush=True)
    ok = [r for r in rows if "ours_error" not in r and "stock_sm_80_error" not in r]
    summary = {"modules": len(rows), "both_compiled": len(ok),
               "median_ours_minus_stock_s": statistics.median(r["ours_s"] - r["stock_sm_80_s"] for r in ok) if ok else None,
               "max_ours_minus_stock_s": max(r["ours_s"] - r["stock_sm_80_s"] for r in ok) if ok else None}
    result = {"what": __doc__.splitlines()[0], "machine": f"{platform.node()} ({platform.processor() or '?'})",
              "repeats": args.repeats, "summary": summary, "rows": rows}
    temporary = args.out.with_suffix(".json.tmp")
    temporary.write_text(json.dumps(result, indent=1) + "\n")
    temporary.replace(args.out)
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
