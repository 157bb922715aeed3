"""IREE's per-call overhead on one-dgrad modules under runtime settings, next to XLA's per call.

    python3 bench/iree_overhead.py --bundle out/gpu --out $OUT/overhead.json [--tags TAG ...]

Each setting is timed with iree-benchmark-module (median real time per call) on the same vmfb and inputs, and
on the module of 16 dgrads where the bundle has it (time per dgrad).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from gpu_check import (VARIANT_RUNTIME_FLAGS, iree_benchmark_ms, layer_inputs, module_inputs, per_dgrad,  # noqa: E402
                       xla_ms)

# name: (runtime flags, vmfb variant, environment). A variant names vmfb/TAG.ours.VARIANT.vmfb (and
# TAG.ours_x16.VARIANT.vmfb): the same module compiled with other flags ("oneshot": one-shot command buffers,
# --iree-hal-indirect-command-buffers=false --iree-hal-memoization=false, the only kind IREE's CUDA HAL records
# as a CUDA graph; a reusable command buffer with a binding table is replayed kernel by kernel on a stream).
SHIPPED = ["--device_allocator=caching", "--cuda_async_allocations=false"]  # what runtime.py and gpu_check use
SETTINGS = {
    "default": ([], "", {}),
    "caching_allocator": (["--device_allocator=caching"], "", {}),
    "sync_allocations": (["--cuda_async_allocations=false"], "", {}),
    "caching_no_streams": (["--device_allocator=caching", "--cuda_use_streams=false"], "", {}),
    # IREE's CUDA memory pools keep nothing (release threshold 0, no flag sets it): each call's results may be
    # mapped anew. Synchronous allocations through the caching allocator reuse freed buffers instead.
    "caching_sync_allocations": (SHIPPED, "", {}),
    "oneshot_streams": (SHIPPED, "oneshot", {}),
    "oneshot_graphs": (SHIPPED + ["--cuda_use_streams=false"], "oneshot", {}),
    "eager_module_loading": (SHIPPED, "", {"CUDA_MODULE_LOADING": "EAGER"}),
    # The caller's buffers as the results' storage (jax donate_argnums -> iree.abi.output): no result allocation
    # per call, so IREE's default stream-ordered allocations have nothing large to map again.
    "donated_default": (VARIANT_RUNTIME_FLAGS["donated"], "donated", {}),
    "donated_caching_sync": (SHIPPED, "donated", {}),
    # 16 calls queued back to back, each waiting for the previous on the device (coarse fences), timed per call:
    # how a training loop drives IREE (JAX drives XLA so, and xla_ms is timed so).
    "pipelined": (VARIANT_RUNTIME_FLAGS["pipelined"], "pipelined", {}),
}
DEFAULT_TAGS = ["s2_3x3_128_128s2_n8_f16", "s1_1x1_256_64_n256_f16", "s3_3x3_256_256_n256_f16"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=pathlib.Path, default=pathlib.Path("out/gpu"))
    parser.add_argument("--out", type=pathlib.Path, required=True)
    parser.add_argument("--tags", nargs="+", default=DEFAULT_TAGS)
    parser.add_argument("--settings", nargs="+", default=list(SETTINGS), choices=list(SETTINGS))
    args = parser.parse_args()
    cases = {c["tag"]: c for c in json.loads((args.bundle / "cases.json").read_text())["cases"]}
    rng = np.random.default_rng(3)
    rows = []
    for tag in args.tags:
        conv, dy, w = layer_inputs(rng, cases[tag]["layer"])
        row = {"tag": tag, "xla_ms": xla_ms(conv, dy, w)}
        copies = cases[tag].get("amortized_copies", 0)
        for name in args.settings:
            flags, variant, env = SETTINGS[name]
            suffix = f".{variant}" if variant else ""
            one = args.bundle / "vmfb" / f"{tag}.ours{suffix}.vmfb"
            many = args.bundle / "vmfb" / f"{tag}.ours_x{copies}{suffix}.vmfb"
            if not one.exists():
                row[f"iree_{name}_ms"] = f"no {one.name}"
                continue
            row[f"iree_{name}_ms"] = iree_benchmark_ms(one, module_inputs(cases[tag], variant, [dy], w), flags, env)
            if copies and many.exists():
                # Time per dgrad of one invocation running `copies` independent dgrads.
                total = iree_benchmark_ms(many, module_inputs(cases[tag], variant, [dy] * copies, w), flags, env)
                row[f"iree_{name}_amortized_ms"] = per_dgrad(total, copies)
        rows.append(row)
        print(json.dumps(row), flush=True)
        args.out.write_text(json.dumps({"rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
