"""Where IREE's time per call goes: the GPU timeline of our vmfbs, traced with CUPTI (torch.profiler) in-process.

    python3 bench/iree_trace.py --bundle out/gpu --out $OUT/iree_trace.json [--tags TAG ...] [--flag=F ...]

For each case it loads the one-dgrad vmfb (and the 16-dgrad one, where built) on the IREE CUDA HAL, keeps the
inputs on the device, and times CALLS calls with the host clock (each call returns when its results are
ready). The same calls then run under torch.profiler, whose CUPTI tracing sees every kernel, memset and memcpy
of the process, IREE's included; per call it reports the GPU time of our kernels, of anything else on the GPU,
and the gaps between them. A call much longer than its GPU work is host-side cost (allocation, submission).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python"))
from gpu_check import layer_inputs, module_inputs, reference_dx  # noqa: E402

CALLS = 30
DEFAULT_TAGS = ["s2_3x3_128_128s2_n8_f16", "s1_1x1_64_256_n256_f16", "s3_3x3_256_256_n256_f16"]


def _device_inputs(config, arrays):
    import iree.runtime as ireert
    return [ireert.asdevicearray(config.device, a) for a in arrays]


_CONFIG = None


def _config(allocators: list[str], driver: str = "cuda"):
    """One CUDA device for the whole run (the driver reads the runtime flags when it is first created)."""
    global _CONFIG
    if _CONFIG is None:
        import iree.runtime as ireert
        device = ireert.get_driver(driver).create_default_device(allocators=allocators or None)
        _CONFIG = ireert.Config(device=device)
    return _CONFIG


def trace_module(vmfb: pathlib.Path, arrays: list[np.ndarray], torch, calls: int, allocators=(),
                 driver: str = "cuda") -> dict:
    import iree.runtime as ireert
    config = _config(list(allocators), driver)
    context = ireert.SystemContext(config=config)
    module = ireert.VmModule.copy_buffer(context.instance, vmfb.read_bytes())
    context.add_vm_module(module)
    main = context.modules[module.name]["main"]
    inputs = _device_inputs(config, arrays)
    results = main(*inputs)
    results = results if isinstance(results, (tuple, list)) else (results,)
    outputs = [np.asarray(r.to_host()) for r in (results[0], results[-1])]  # checked by the caller
    for _ in range(2):
        main(*inputs)
    wall = []
    for _ in range(calls):
        started = time.perf_counter()
        main(*inputs)
        wall.append((time.perf_counter() - started) * 1e3)

    from torch.profiler import ProfilerActivity, profile, record_function
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            with record_function("iree_call"):
                main(*inputs)
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    return {"wall_ms_median": statistics.median(wall), "wall_ms_min": min(wall),
            **timeline_summary(_trace_events(prof), calls, "iree_call")}, outputs


def output_check(outputs: list[np.ndarray], reference: np.ndarray) -> dict:
    """Relative L2 of the first and last results against float64, and how many elements stayed NaN."""
    from gpu_check import rel_l2
    errors = [rel_l2(o.reshape(reference.shape), reference) for o in outputs]
    return {"rel_l2_max": float("nan") if any(np.isnan(errors)) else max(errors),
            "unwritten": int(sum(np.isnan(o.astype(np.float32)).sum() for o in outputs))}


def _trace_events(prof) -> list[dict]:
    # The raw trace holds every CUPTI record of the process (IREE's launches have no torch op to hang from).
    with tempfile.TemporaryDirectory() as work:
        path = pathlib.Path(work) / "trace.json"
        prof.export_chrome_trace(str(path))
        return json.loads(path.read_text()).get("traceEvents", [])


def timeline_summary(events: list[dict], calls: int, call_name: str) -> dict:
    """Per call: GPU time of our kernels and of anything else, and where the rest of the call's host span goes:
    before its first kernel starts (lead), between kernels (gaps), after the last one ends (tail). Kernels that
    start before the previous one ended ran concurrently (overlaps)."""
    gpu = sorted((e["ts"], e["ts"] + e.get("dur", 0), e.get("name", "?"), e.get("cat", "?")) for e in events
                 if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"))
    spans = sorted((e["ts"], e["ts"] + e.get("dur", 0)) for e in events
                   if e.get("ph") == "X" and e.get("name") == call_name)
    api: dict[str, list[float]] = {}
    for e in events:
        if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver"):
            api.setdefault(e.get("name", "?"), []).append(e.get("dur", 0) / 1e3)
    ours = [e for e in gpu if "iree_cutlass" in e[2]]
    other = [e for e in gpu if "iree_cutlass" not in e[2]]
    names: dict[str, list[float]] = {}
    for start, end, name, cat in other:
        names.setdefault(f"{cat}: {name[:80]}", []).append((end - start) / 1e3)
    leads, gaps, tails, overlaps = [], [], [], 0
    for call_start, call_end in spans:
        inside = [e for e in gpu if call_start <= e[0] <= call_end]
        if not inside:
            continue
        leads.append((inside[0][0] - call_start) / 1e3)
        tails.append(max(0.0, call_end - max(e[1] for e in inside)) / 1e3)
        for before, after in zip(inside, inside[1:]):
            gaps.append(max(0.0, after[0] - before[1]) / 1e3)
            overlaps += after[0] < before[1]
    busy = sum(end - start for start, end, _, _ in gpu) / 1e3
    # Each kernel against its own launch call (CUPTI's correlation id): a launch that begins after the previous
    # kernel ended means the host was late; a kernel that starts long after its launch returned means the GPU
    # (or the driver's queue) held it.
    launches = {e.get("args", {}).get("correlation"): e for e in events
                if e.get("ph") == "X" and e.get("name", "").startswith("cuLaunchKernel")}
    late_host, held = [], []
    kernels = [e for e in events if e.get("ph") == "X" and e.get("cat") == "kernel"]
    kernels.sort(key=lambda e: e["ts"])
    for before, after in zip(kernels, kernels[1:]):
        launch = launches.get(after.get("args", {}).get("correlation"))
        if launch is None:
            continue
        late_host.append((launch["ts"] - (before["ts"] + before.get("dur", 0))) / 1e3)
        held.append((after["ts"] - (launch["ts"] + launch.get("dur", 0))) / 1e3)
    span_ms = (gpu[-1][1] - gpu[0][0]) / 1e3 if gpu else 0.0
    median = lambda values: statistics.median(values) if values else None  # noqa: E731
    return {
        "ours_gpu_ms_per_call": sum(e - s for s, e, _, _ in ours) / 1e3 / calls,
        "ours_kernels_per_call": len(ours) / calls,
        "ours_kernel_ms_median": median([(e - s) / 1e3 for s, e, _, _ in ours]),
        "other_gpu_ms_per_call": sum(e - s for s, e, _, _ in other) / 1e3 / calls,
        "gpu_busy_ms_per_call": busy / calls,
        "gpu_span_ms_per_call": span_ms / calls,
        "call_span_ms_median": median([(e - s) / 1e3 for s, e in spans]),
        "lead_ms_median": median(leads),
        "gap_ms_per_call": sum(gaps) / max(1, len(spans)),
        "tail_ms_median": median(tails),
        "overlapping_kernels_per_call": overlaps / max(1, len(spans)),
        "launch_start_after_previous_kernel_end_ms_median": median(late_host),
        "kernel_start_after_its_launch_end_ms_median": median(held),
        "other_by_name": {n: {"count_per_call": len(v) / calls, "ms_each_median": statistics.median(v)}
                          for n, v in sorted(names.items())},
        "cuda_api_per_call": {n: {"count": round(len(v) / calls, 2), "ms": round(sum(v) / calls, 4)}
                              for n, v in sorted(api.items(), key=lambda kv: -sum(kv[1]))[:10]},
    }


def trace_kernel(bundle: pathlib.Path, case: dict, dy: np.ndarray, w: np.ndarray, copies: int, calls: int) -> dict:
    """The same kernel launched alone (CuPy) over `copies` separate dy/dx buffers, under the same tracer: how
    long each launch runs on the GPU outside IREE."""
    import cupy as cp
    from torch.profiler import ProfilerActivity, profile, record_function
    from gpu_check import device_inputs, kernel_launcher, rotating_buffers
    layer = case["layer"]
    launcher = kernel_launcher(bundle, case["kernel"])
    dy_d, w_d, dx_d = device_inputs(dy, w, (layer["n"], layer["h"], layer["w"], layer["c"]), layer["dtype"],
                                    launcher.filter_layout)
    dys, dxs = rotating_buffers(dy_d, dx_d, copies)
    for d_in, d_out in zip(dys, dxs):
        launcher.launch(d_in, w_d, d_out)
    cp.cuda.Device().synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            with record_function("kernel_pass"):
                for d_in, d_out in zip(dys, dxs):
                    launcher.launch(d_in, w_d, d_out)
                cp.cuda.Device().synchronize()
    return {"copies": copies, **timeline_summary(_trace_events(prof), calls, "kernel_pass")}


# CUctx_flags scheduling values (cuda.h): which a waiting host thread does, spin, yield or block.
CTX_SCHED = {"auto": 0, "spin": 1, "yield": 2, "blocking": 4}


def set_primary_context_scheduling(flags: int) -> None:
    import ctypes
    cuda = ctypes.CDLL("libcuda.so.1")
    device = ctypes.c_int()
    for status in (cuda.cuInit(0), cuda.cuDeviceGet(ctypes.byref(device), 0),
                   cuda.cuDevicePrimaryCtxSetFlags(device, flags)):
        if status != 0:
            raise SystemExit(f"error: CUDA driver call failed with status {status} setting the context flags")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=pathlib.Path, default=pathlib.Path("out/gpu"))
    parser.add_argument("--out", type=pathlib.Path, required=True)
    parser.add_argument("--tags", nargs="+", default=DEFAULT_TAGS)
    parser.add_argument("--flag", dest="flags", action="append", default=[], metavar="FLAG",
                        help="an IREE runtime flag (--flag=--cuda_async_allocations=false; repeatable)")
    parser.add_argument("--calls", type=int, default=CALLS)
    parser.add_argument("--variant", default="", help="trace vmfb/TAG.ours.VARIANT.vmfb (and ours_x16.VARIANT) "
                        "instead: the same modules compiled with other flags")
    parser.add_argument("--allocator", nargs="*", default=[], help="device allocator specs, e.g. caching")
    parser.add_argument("--driver", default="cuda", help="IREE HAL driver (local-task runs this script on a CPU)")
    parser.add_argument("--ctx-sched", choices=sorted(CTX_SCHED), default="auto",
                        help="how CUDA threads wait on the GPU (the primary context's scheduling flag, set before "
                        "torch and IREE retain it)")
    args = parser.parse_args()
    if args.ctx_sched != "auto":
        set_primary_context_scheduling(CTX_SCHED[args.ctx_sched])
    import torch
    import iree.runtime as ireert
    if args.flags:
        ireert.flags.parse_flags(*args.flags)
    cases = {c["tag"]: c for c in json.loads((args.bundle / "cases.json").read_text())["cases"]}
    rng = np.random.default_rng(11)
    rows = []
    suffix = f".{args.variant}" if args.variant else ""
    for tag in args.tags:
        if tag not in cases:
            print(f"[trace] no case {tag}", file=sys.stderr)
            continue
        case = cases[tag]
        _, dy, w = layer_inputs(rng, case["layer"])
        reference = reference_dx(torch, case["layer"], dy, w) if torch.cuda.is_available() else None
        row = {"tag": tag, "flags": args.flags, "allocators": args.allocator}
        try:
            row["variant"] = args.variant or "shipped"
            row["single"], outputs = trace_module(args.bundle / "vmfb" / f"{tag}.ours{suffix}.vmfb",
                                                  module_inputs(case, args.variant, [dy], w), torch,
                                                  args.calls, args.allocator, args.driver)
            if reference is not None:
                row["single"]["check"] = output_check(outputs, reference)
            copies = case.get("amortized_copies")
            if copies:
                many, outputs = trace_module(args.bundle / "vmfb" / f"{tag}.ours_x{copies}{suffix}.vmfb",
                                             module_inputs(case, args.variant, [dy] * copies, w),
                                             torch, max(3, args.calls // 4), args.allocator, args.driver)
                many["copies"] = copies
                if reference is not None:
                    many["check"] = output_check(outputs, reference)
                row["amortized"] = many
                if "kernel" in case:
                    row["kernel_alone"] = trace_kernel(args.bundle, case, dy, w, copies, max(3, args.calls // 4))
        except Exception as error:  # noqa: BLE001 - record and go on with the next case
            row["error"] = f"{type(error).__name__}: {str(error).splitlines()[0][:300]}"
        rows.append(row)
        print(json.dumps(row), flush=True)
        args.out.write_text(json.dumps({"rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
