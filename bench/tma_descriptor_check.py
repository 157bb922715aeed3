"""Do the sm90 kernels' device-built TMA descriptors equal what the CUDA driver encodes on the host?

    python3 bench/tma_descriptor_check.py --plan out/tune      # a plan from iree-cutlass-tune build

IREE's HAL cannot encode TMA descriptors at dispatch time, so each sm90 CTA builds its own with
tensormap.replace (plugin/sm90_dgrad.cuh) into the workspace binding. This runs one sm90 kernel per problem of the
plan, reads CTA 0's two descriptors (dy, filter) back, encodes the same tensors with cuTensorMapEncodeTiled
(cuda.bindings) and compares the 128 bytes. The driver's encoding is the reference; a difference is printed
byte by byte. Needs cupy and cuda-bindings.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python"))


def host_descriptor(driver, address: int, dims, strides, box) -> bytes:
    """cuTensorMapEncodeTiled with the kernel's settings: 16-bit elements, 128-byte swizzle, zero OOB fill,
    no interleave, no L2 promotion."""
    err, tensor_map = driver.cuTensorMapEncodeTiled(
        driver.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_UINT16, len(dims), address,
        [int(d) for d in dims], [int(s) for s in strides], [int(b) for b in box], [1] * len(dims),
        driver.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
        driver.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_128B,
        driver.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_NONE,
        driver.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cuTensorMapEncodeTiled failed: {err}")
    words = np.array(tensor_map.opaque, dtype=np.uint64)
    return words.tobytes()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plan", type=pathlib.Path, required=True)
    parser.add_argument("--limit", type=int, default=6, help="problems to check")
    args = parser.parse_args()
    import cupy as cp
    from cuda.bindings import driver
    from iree_cutlass.kernel_launch import KernelLauncher

    plan = json.loads((args.plan / "plan.json").read_text())
    checked, mismatched = 0, 0
    for entry in plan["problems"]:
        candidates = [c for c in entry["candidates"] if c["config"].get("family") == "sm90"]
        if not candidates or checked >= args.limit:
            continue
        candidate, p = candidates[0], entry["problem"]
        launcher = KernelLauncher(args.plan / "kernels" / candidate["fatbin"], candidate)
        dy = cp.zeros((p["n"], p["p"], p["q"], p["k"]), dtype=cp.uint16)
        w = cp.zeros((p["r"], p["s"], p["c"], p["k"]), dtype=cp.uint16)
        dx = cp.zeros((p["n"], p["h"], p["w"], p["c"]), dtype=cp.uint16)
        launcher.launch(dy, w, dx)
        cp.cuda.Device().synchronize()
        workspace = cp.asnumpy(launcher.workspace)
        base = (int(launcher.workspace.data.ptr) + 127) // 128 * 128 - int(launcher.workspace.data.ptr)
        device = [workspace[base:base + 128].tobytes(), workspace[base + 128:base + 256].tobytes()]
        box_n, box_h, box_w = candidate["constants"][13:16]
        tile_n = candidate["config"]["tile_n"]
        k, q, pp, n, c = p["k"], p["q"], p["p"], p["n"], p["c"]
        host = [
            host_descriptor(driver, int(dy.data.ptr), [k, q, pp, n], [k * 2, q * k * 2, pp * q * k * 2],
                            [64, box_w, box_h, box_n]),
            host_descriptor(driver, int(w.data.ptr), [k, c, p["r"] * p["s"]], [k * 2, c * k * 2], [64, tile_n, 1]),
        ]
        for name, mine, theirs in zip(("dy", "filter"), device, host):
            same = mine == theirs
            mismatched += not same
            print(f"{entry['key']:60s} {name:6s} {'same' if same else 'DIFFERENT'}", flush=True)
            if not same:
                diff = [(i, mine[i], theirs[i]) for i in range(128) if mine[i] != theirs[i]]
                print("   byte: device vs driver " + " ".join(f"{i}:{a:02x}/{b:02x}" for i, a, b in diff[:40]))
        checked += 1
    print(f"{checked} problems, {mismatched} descriptors differ from the driver's encoding")
    return 0


if __name__ == "__main__":
    sys.exit(main())
