"""The whole GPU check, in one call on the GPU machine: numerics of every case, then the benchmark side by side.

    python3 bench/gpu_check.py --bundle out/gpu --out $OUT/gpu_check.json [--bench] [--iree-bench]

Inputs come from bench/prepare_gpu.py (vmfbs, fatbins, cases.json). For every dgrad case:
  - numerics through IREE: random dy and w, dx from our vmfb on the IREE CUDA HAL against a float64 reference
    (torch on the GPU, float64), relative L2;
  - numerics of the kernel alone (CuPy loads the same fatbin): dx poisoned with NaN first, every element must
    be written, relative L2 against the same reference;
  - with --bench: medians of CUDA-event loops of our kernel and of cuDNN (torch convolution_backward on
    channels_last tensors), XLA through JAX (jit, per call), and with --iree-bench ours and stock IREE through
    iree-benchmark-module (per call, and amortized over 16 dgrads in one invocation where built); ours with the
    runtime settings iree_cutlass.Module uses (caching allocator, synchronous allocations), stock IREE as is;
    module variants where built (prepare_gpu --variants: donated dx storage, pipelined calls) are checked through
    iree-run-module and timed with --iree-variants.
The CNN gradient case is checked against JAX on the GPU (float32 on the same inputs).
Prints a table last; writes everything to --out as JSON.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # JAX shares the GPU with torch, CuPy, IREE

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python"))
from iree_cutlass.cli.common import write_atomically  # noqa: E402
from iree_cutlass.timing import torch_graph_ms  # noqa: E402

REL_L2_LIMIT = 1e-2
# f32 dgrads run 3xTF32, which keeps f32 accuracy (~1e-6); plain TF32 (~1e-3) must fail this.
F32_REL_L2_LIMIT = 1e-5
ROUNDS, CALLS_PER_ROUND = 7, 20


def rel_l2(result: np.ndarray, reference: np.ndarray) -> float:
    result = result.astype(np.float64)
    if not np.all(np.isfinite(result)):
        return float("nan")
    return float(np.linalg.norm(result - reference) / max(np.linalg.norm(reference), 1e-300))


def numpy_dtype(dtype: str):
    if dtype == "bf16":
        import ml_dtypes
        return ml_dtypes.bfloat16
    return {"f16": np.float16, "f32": np.float32}[dtype]


def random_array(rng: np.random.Generator, shape, dtype: str) -> np.ndarray:
    return rng.standard_normal(shape, dtype=np.float32).astype(numpy_dtype(dtype))


def layer_inputs(rng: np.random.Generator, layer: dict):
    """The layer (a ConvLayer) and random inputs for its dgrad: dy (N, P, Q, K) and the HWIO filter (R, R, C, K)."""
    from iree_cutlass.workloads import ConvLayer
    conv = ConvLayer(**layer)
    return (conv, random_array(rng, (conv.n, conv.p, conv.q, conv.k), conv.dtype),
            random_array(rng, (conv.r, conv.r, conv.c, conv.k), conv.dtype))


# The runtime flags each module variant (prepare_gpu.VARIANTS) is timed with: donated storage with IREE's own
# defaults (a call then allocates nothing large, so the stream-ordered allocations cost nothing); pipelined modules
# as 16 calls queued back to back (coarse fences), timed per call.
VARIANT_RUNTIME_FLAGS = {"donated": [], "pipelined": ["--batch_size=16"]}


def module_inputs(case: dict, variant: str, dys: list[np.ndarray], w: np.ndarray) -> list[np.ndarray]:
    """The arguments of a case's module variant (prepare_gpu.VARIANTS; "" is the module itself): (dy..., w), and
    for a variant with donated outputs one dx-shaped storage buffer per dgrad after w, NaN-poisoned so that a check
    sees every element written."""
    if not variant or not case.get("variants", {}).get(variant, {}).get("donated"):
        return [*dys, w]
    from iree_cutlass.workloads import ConvLayer
    conv = ConvLayer(**case["layer"])
    dtype = {"f16": np.float16, "f32": np.float32}.get(conv.dtype)
    if dtype is None:
        import ml_dtypes
        dtype = ml_dtypes.bfloat16
    return [*dys, w, *([np.full((conv.n, conv.h, conv.w, conv.c), np.nan, dtype=dtype)] * len(dys))]


def event_median_ms(run, sync, make_event) -> float:
    """Median over ROUNDS of (CALLS_PER_ROUND calls between two device events) / CALLS_PER_ROUND."""
    for _ in range(3):
        run()
    sync()
    times = []
    for _ in range(ROUNDS):
        start, end = make_event(), make_event()
        start.record()
        for _ in range(CALLS_PER_ROUND):
            run()
        end.record()
        end.synchronize()
        times.append(_elapsed_ms(start, end) / CALLS_PER_ROUND)
    return statistics.median(times)


def _elapsed_ms(start, end) -> float:
    if hasattr(start, "elapsed_time"):
        return start.elapsed_time(end)           # torch
    import cupy
    return cupy.cuda.get_elapsed_time(start, end)


# ---------------------------------------------------------------------------------------------------------
# References and peers


def reference_dx(torch, layer: dict, dy: np.ndarray, w_hwio: np.ndarray) -> np.ndarray:
    """dx in float64 on the GPU: the input gradient of the forward conv (NHWC out)."""
    dy64 = torch.from_numpy(dy.astype(np.float64)).cuda().permute(0, 3, 1, 2)
    w64 = torch.from_numpy(w_hwio.astype(np.float64)).cuda().permute(3, 2, 0, 1)  # K, C, R, S
    dx = torch.nn.grad.conv2d_input((layer["n"], layer["c"], layer["h"], layer["w"]), w64, dy64,
                                    stride=layer["stride"], padding=layer["pad"])
    return dx.permute(0, 2, 3, 1).contiguous().cpu().numpy()


def cudnn_run(torch, layer: dict, dy: np.ndarray, w_hwio: np.ndarray):
    """One cuDNN dgrad call through torch convolution_backward on channels_last tensors, as a closure."""
    torch.backends.cudnn.benchmark = True
    tdtype = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}[layer["dtype"]]
    dy_t = torch.from_numpy(dy.astype(np.float32)).to(tdtype).cuda().permute(0, 3, 1, 2) \
        .contiguous(memory_format=torch.channels_last)
    w_t = torch.from_numpy(w_hwio.astype(np.float32)).to(tdtype).cuda().permute(3, 2, 0, 1) \
        .contiguous(memory_format=torch.channels_last)
    x_t = torch.empty((layer["n"], layer["c"], layer["h"], layer["w"]), dtype=tdtype, device="cuda") \
        .contiguous(memory_format=torch.channels_last)
    stride, pad = [layer["stride"]] * 2, [layer["pad"]] * 2

    def run():
        torch.ops.aten.convolution_backward(dy_t, x_t, w_t, None, stride, pad, [1, 1], False, [0, 0], 1,
                                            [True, False, False])
    return run


def cudnn_ms(torch, run) -> float:
    """A loop of host calls between two events (bound by torch's host path for short kernels)."""
    return event_median_ms(run, torch.cuda.synchronize, lambda: torch.cuda.Event(enable_timing=True))


def xla_ms(layer_obj, dy: np.ndarray, w_hwio: np.ndarray) -> float:
    import jax
    from iree_cutlass.jax_models import dgrad_fn
    fn = jax.jit(dgrad_fn(layer_obj))
    dy_d, w_d = jax.device_put(dy), jax.device_put(w_hwio)
    fn(dy_d, w_d).block_until_ready()
    times = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        for _ in range(CALLS_PER_ROUND):
            out = fn(dy_d, w_d)
        out.block_until_ready()
        times.append((time.perf_counter() - started) * 1e3 / CALLS_PER_ROUND)
    return statistics.median(times)


# ---------------------------------------------------------------------------------------------------------
# Ours: the kernel alone through CuPy, and the module through IREE


def kernel_launcher(bundle: pathlib.Path, kernel: dict):
    from iree_cutlass.kernel_launch import KernelLauncher
    return KernelLauncher(bundle / "kernels" / kernel["fatbin"], kernel)


def device_inputs(dy: np.ndarray, w_hwio: np.ndarray, dx_shape, dtype: str, layout: str) -> tuple:
    """dy, the filter in the kernel's layout and a NaN-poisoned dx on the device, as bit patterns (16-bit; 32 for f32)."""
    import cupy as cp
    from iree_cutlass.kernel_launch import bits_dtype, filter_in_layout, poisoned_output
    w_krsc = np.transpose(w_hwio, (3, 0, 1, 2))
    w_kernel = filter_in_layout(w_krsc, layout)
    bits = bits_dtype(dtype)
    return cp.asarray(dy.view(bits)), cp.asarray(w_kernel.view(bits)), poisoned_output(dx_shape, dtype)


def rotating_buffers(dy_d, dx_d, copies: int) -> tuple[list, list]:
    """`copies` separate dy (copies of dy_d) and dx buffers, the first ones dy_d and dx_d themselves: the buffer
    set of the amortized module, whose dgrads each read and write their own (cold in L2)."""
    import cupy as cp
    dys = [dy_d] + [cp.copy(dy_d) for _ in range(copies - 1)]
    dxs = [dx_d] + [cp.empty_like(dx_d) for _ in range(copies - 1)]
    return dys, dxs


def iree_run_outputs(vmfb: pathlib.Path, inputs: list[np.ndarray]) -> list[np.ndarray] | str:
    """The results of one call through iree-run-module on the CUDA HAL (IREE's defaults), or the failure."""
    with tempfile.TemporaryDirectory() as work:
        flags = []
        for index, array in enumerate(inputs):
            np.save(pathlib.Path(work) / f"in{index}.npy", array)
            flags.append(f"--input=@{work}/in{index}.npy")
        done = subprocess.run(["iree-run-module", "--device=cuda", f"--module={vmfb}", "--function=main", *flags,
                               f"--output=@{work}/out0.npy"], capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            return "failed: " + (done.stderr.strip().splitlines() or ["?"])[-1][:200]
        return [np.load(pathlib.Path(work) / "out0.npy")]


class InputFiles:
    """Input arrays saved once each as .npy files for IREE's tools, by identity: a row's dy and filter serve every
    module it benchmarks (ours, amortized, stock), and a batch-256 dy is up to 411 MB."""

    def __init__(self):
        self._dir = tempfile.TemporaryDirectory()
        self._saved = {}   # id(array) -> (array, path); the array is held so that its id stays its own

    def flags(self, inputs: list[np.ndarray]) -> list[str]:
        for array in inputs:
            if id(array) not in self._saved:
                path = pathlib.Path(self._dir.name) / f"in{len(self._saved)}.npy"
                np.save(path, array)
                self._saved[id(array)] = (array, path)
        return [f"--input=@{self._saved[id(array)][1]}" for array in inputs]

    def close(self) -> None:
        self._saved.clear()
        self._dir.cleanup()


def iree_benchmark_ms(vmfb: pathlib.Path, inputs: list[np.ndarray], extra_flags=(), env=None,
                      files: InputFiles | None = None) -> float | str:
    """Per-call real time (median of repetitions) from iree-benchmark-module, or the failure. `env`: more
    environment variables for it; `files`: where the inputs are saved (one set per call if not given)."""
    own_files = files is None
    files = InputFiles() if own_files else files
    try:
        done = subprocess.run(["iree-benchmark-module", "--device=cuda", f"--module={vmfb}", "--function=main",
                               # 5 repetitions of >= 0.05 s each: at least 10 calls of the slowest module (stock
                               # IREE, ~5 ms a call at batch 256). The default, 0.5 s, made a run of all 44 f16
                               # layers' IREE timings outlast a 10-minute GPU call on 2026-12-02.
                               *files.flags(inputs), "--benchmark_repetitions=5", "--benchmark_min_time=0.05s",
                               "--benchmark_format=json", *extra_flags],
                              capture_output=True, text=True, timeout=300,
                              env={**os.environ, **env} if env else None)
    finally:
        if own_files:
            files.close()
    if done.returncode != 0:
        return "failed: " + (done.stderr.strip().splitlines() or ["?"])[-1][:200]
    report = json.loads(done.stdout)
    for bench in report["benchmarks"]:
        if bench.get("run_type") == "aggregate" and bench.get("aggregate_name") == "median":
            scale = {"ms": 1.0, "us": 1e-3, "ns": 1e-6, "s": 1e3}[bench.get("time_unit", "ms")]
            return bench["real_time"] * scale
    return "failed: no median in the benchmark report"


# ---------------------------------------------------------------------------------------------------------


def check_dgrad(case: dict, bundle: pathlib.Path, rng, torch, args) -> dict:
    from iree_cutlass.runtime import Module
    layer = case["layer"]
    dtype = layer["dtype"]
    row = {"tag": case["tag"], "dtype": dtype, "n": layer["n"], "kernel": case.get("kernel", {}).get("entry")}
    if "error" in case:
        row["error"] = "compile: " + case["error"]
        return row
    conv, dy, w = layer_inputs(rng, layer)
    reference = reference_dx(torch, layer, dy, w)
    dx_shape = (layer["n"], layer["h"], layer["w"], layer["c"])
    # NCHW modules take dy NCHW and w OIHW and return dx NCHW; the reference and the kernel alone stay NHWC.
    nchw = layer.get("layout", "nhwc") == "nchw"
    inputs = [np.ascontiguousarray(dy.transpose(0, 3, 1, 2)), np.ascontiguousarray(w.transpose(3, 2, 0, 1))] \
        if nchw else [dy, w]

    module = Module((bundle / "vmfb" / f"{case['tag']}.ours.vmfb").read_bytes())
    (dx_iree,) = module(*inputs)
    dx_iree = np.asarray(dx_iree).transpose(0, 2, 3, 1) if nchw else np.asarray(dx_iree).reshape(dx_shape)
    row["iree_rel_l2"] = rel_l2(dx_iree, reference)

    limit = F32_REL_L2_LIMIT if dtype == "f32" else REL_L2_LIMIT
    if "kernel" not in case:
        # Left to IREE (the pass refused it): the module must still compute the dgrad.
        row["offloaded"] = False
        row["ok"] = bool(row["iree_rel_l2"] <= limit)
        return row

    import cupy as cp
    launcher = kernel_launcher(bundle, case["kernel"])
    dy_d, w_d, dx_d = device_inputs(dy, w, dx_shape, dtype, launcher.filter_layout)
    launcher.launch(dy_d, w_d, dx_d)
    cp.cuda.Device().synchronize()
    dx_kernel = cp.asnumpy(dx_d).view(numpy_dtype(dtype))
    row["kernel_unwritten"] = int(np.count_nonzero(~np.isfinite(dx_kernel.astype(np.float32))))
    row["kernel_rel_l2"] = rel_l2(dx_kernel, reference)
    row["ok"] = bool(row["iree_rel_l2"] <= limit and row["kernel_rel_l2"] <= limit and row["kernel_unwritten"] == 0)
    for variant in case.get("variants", {}):
        # The same dgrad through each module variant, run by iree-run-module (it drives coarse-fences functions
        # too); donated storage arrives NaN-poisoned, so an element the kernel missed fails here.
        outputs = iree_run_outputs(bundle / "vmfb" / f"{case['tag']}.ours.{variant}.vmfb",
                                   module_inputs(case, variant, [dy], w))
        if isinstance(outputs, str):
            row[f"iree_{variant}_error"] = outputs
            row["ok"] = False
            continue
        dx_variant = outputs[0].reshape(dx_shape)
        row[f"iree_{variant}_rel_l2"] = rel_l2(dx_variant, reference)
        row["ok"] = bool(row["ok"] and row[f"iree_{variant}_rel_l2"] <= limit)

    if args.bench and dtype in args.bench_dtypes and not case["tag"].startswith("odd_") and not nchw:
        row["kernel_ms"] = launcher.time_ms(dy_d, w_d, dx_d)
        run_cudnn = cudnn_run(torch, layer, dy, w)
        row["cudnn_ms"] = cudnn_ms(torch, run_cudnn)
        # The same two from CUDA-graph replays: GPU time alone, without the host launch path (timing.py).
        try:
            row["kernel_graph_ms"] = launcher.graph_time_ms(dy_d, w_d, dx_d, rounds=ROUNDS, calls=CALLS_PER_ROUND)
            row["cudnn_graph_ms"] = torch_graph_ms(torch, run_cudnn, rounds=ROUNDS, calls=CALLS_PER_ROUND)
        except Exception as error:  # noqa: BLE001 - a capture that fails must not hide the loop timings
            row["graph_error"] = f"{type(error).__name__}: {str(error).splitlines()[0][:200]}"
        copies = case.get("amortized_copies", 0)
        if copies:
            # The kernel alone on the amortized module's buffer set: `copies` separate dy and dx (cold in L2).
            dys, dxs = rotating_buffers(dy_d, dx_d, copies)
            row["kernel_rotating_ms"] = launcher.rotating_time_ms(dys, w_d, dxs, rounds=ROUNDS)
            try:
                row["kernel_rotating_graph_ms"] = launcher.rotating_time_ms(dys, w_d, dxs, rounds=ROUNDS, graph=True)
            except Exception as error:  # noqa: BLE001 - as above
                row["graph_error"] = f"{type(error).__name__}: {str(error).splitlines()[0][:200]}"
            del dys, dxs
        row["xla_ms"] = xla_ms(conv, dy, w)
        row["tflops"] = case["flops"] / (row["kernel_ms"] * 1e9)
    if args.iree_bench and dtype in args.bench_dtypes:
        files = InputFiles()
        try:
            iree_timings(row, case, bundle, inputs, dy, w, args, files)
        finally:
            files.close()
    del dy_d, w_d, dx_d
    return row


def per_dgrad(total: float | str, copies: int) -> float | str:
    """An amortized module's time per dgrad (it runs `copies` of them a call), or its failure as it was."""
    return total / copies if isinstance(total, float) else total


def iree_timings(row: dict, case: dict, bundle: pathlib.Path, inputs, dy, w, args, files: InputFiles) -> None:
    """IREE's per-call times of the case's modules (ours, amortized, the variants asked for, stock IREE), every
    module's inputs saved once for all of them."""
    row["iree_flags"] = args.iree_flags
    row["iree_ms"] = iree_benchmark_ms(bundle / "vmfb" / f"{case['tag']}.ours.vmfb", inputs, args.iree_flags,
                                       files=files)
    many = bundle / "vmfb" / f"{case['tag']}.ours_x{case.get('amortized_copies', 0)}.vmfb"
    if many.exists():
        total = iree_benchmark_ms(many, [inputs[0]] * case["amortized_copies"] + [inputs[1]], args.iree_flags,
                                  files=files)
        row["iree_amortized_ms"] = per_dgrad(total, case["amortized_copies"])
    for variant in [v for v in case.get("variants", {}) if v in args.iree_variants]:
        flags = VARIANT_RUNTIME_FLAGS[variant]
        row[f"iree_{variant}_ms"] = iree_benchmark_ms(bundle / "vmfb" / f"{case['tag']}.ours.{variant}.vmfb",
                                                      module_inputs(case, variant, [dy], w), flags, files=files)
        many = bundle / "vmfb" / f"{case['tag']}.ours_x{case.get('amortized_copies', 0)}.{variant}.vmfb"
        if many.exists():
            total = iree_benchmark_ms(many, module_inputs(case, variant, [dy] * case["amortized_copies"], w),
                                      flags, files=files)
            row[f"iree_{variant}_amortized_ms"] = per_dgrad(total, case["amortized_copies"])
    for target, stock in case.get("stock", {}).items():
        if args.stock_targets and target not in args.stock_targets:
            continue
        row[f"stock_{target}_ms"] = iree_benchmark_ms(bundle / "vmfb" / stock["vmfb"], inputs, files=files) \
            if "vmfb" in stock else "compile " + stock["error"]


def check_cnn(case: dict, bundle: pathlib.Path, rng) -> dict:
    import jax
    import jax.numpy as jnp
    from iree_cutlass.runtime import Module
    from iree_cutlass.jax_models import forward_conv
    row = {"tag": case["tag"], "dtype": case["dtype"], "offloaded": case.get("offloaded")}
    if "error" in case:
        row["error"] = "compile: " + case["error"]
        return row
    shapes = case["shapes"]
    # Weights scaled by 1/sqrt(fan-in) keep activations near unit size, as initialized networks do (unscaled,
    # four layers overflow f16 for every implementation alike).
    weights = [(random_array(rng, s, "f32") / math.sqrt(s[0] * s[1] * s[2])).astype(numpy_dtype(case["dtype"]))
               for s in shapes["weights"]]
    x = random_array(rng, shapes["x"], case["dtype"])
    outputs = Module((bundle / "vmfb" / f"{case['tag']}.ours.vmfb").read_bytes())(*weights, x)

    def loss(params, x):
        h = x
        for (w, stride, pad) in zip(params, (1, 2, 1, 1), (1, 1, 1, 0)):
            h = jax.nn.relu(forward_conv(h, w, stride, pad))
        return jnp.sum(h.astype(jnp.float32) ** 2)
    grad = jax.jit(jax.grad(loss, argnums=(0, 1)))
    f32 = lambda a: jnp.asarray(a.astype(np.float32))
    ref_params, ref_x = grad(tuple(f32(w) for w in weights), f32(x))
    jax_params, jax_x = grad(tuple(jnp.asarray(w) for w in weights), jnp.asarray(x))
    references = [np.asarray(r, dtype=np.float64) for r in (*ref_params, ref_x)]
    jax_low = [np.asarray(r).astype(np.float64) for r in (*jax_params, jax_x)]
    row["ours_vs_f32"] = [rel_l2(np.asarray(o), r) for o, r in zip(outputs, references)]
    row["jax_vs_f32"] = [rel_l2(j, r) for j, r in zip(jax_low, references)]
    stock_path = bundle / "vmfb" / f"{case['tag']}.stock_sm_89.vmfb"
    if stock_path.exists():
        stock_outputs = Module(stock_path.read_bytes())(*weights, x)
        row["stock_iree_vs_f32"] = [rel_l2(np.asarray(o), r) for o, r in zip(stock_outputs, references)]
        row["ours_vs_stock_iree"] = [rel_l2(np.asarray(o), np.asarray(s, dtype=np.float64))
                                     for o, s in zip(outputs, stock_outputs)]
    # IREE's own f16 convs (forward, weight gradient) accumulate in f16, so the module's error floor is stock
    # IREE's: the plugin passes if each gradient is within the limit or no worse than stock IREE's by 10%.
    floors = row.get("stock_iree_vs_f32", [0.0] * len(references))
    row["ok"] = all(e <= max(REL_L2_LIMIT, 1.1 * f) for e, f in zip(row["ours_vs_f32"], floors))
    return row


def ceilings(torch) -> dict:
    """Copy bandwidth and dense f16 matmul rate, measured in this run."""
    a = torch.empty(2 * 1024**3 // 2, dtype=torch.float16, device="cuda")
    b = torch.empty_like(a)
    copy_ms = event_median_ms(lambda: b.copy_(a), torch.cuda.synchronize,
                              lambda: torch.cuda.Event(enable_timing=True))

    m = torch.randn(8192, 8192, dtype=torch.float16, device="cuda")
    mm_ms = event_median_ms(lambda: torch.mm(m, m), torch.cuda.synchronize,
                            lambda: torch.cuda.Event(enable_timing=True))
    return {"copy_gbps": 2 * 2 * 1024**3 / (copy_ms * 1e6), "f16_tflops": 2 * 8192**3 / (mm_ms * 1e9)}


def add_roofline(result: dict, cases: list[dict]) -> None:
    """Per timed row: the roofline floor (FLOPs at the run's f16 matmul rate or the layer's minimum bytes at its
    copy bandwidth, whichever is longer) and the kernel's percent of it; geomeans per batch."""
    ceiling = result.get("ceilings")
    by_tag = {case["tag"]: case for case in cases}
    if not ceiling:
        return
    for row in result["rows"]:
        case = by_tag.get(row["tag"], {})
        if "kernel_ms" not in row or "min_bytes" not in case:
            continue
        row["roofline_floor_ms"] = max(case["flops"] / (ceiling["f16_tflops"] * 1e9),
                                       case["min_bytes"] / (ceiling["copy_gbps"] * 1e6))
        row["percent_of_roofline"] = 100 * row["roofline_floor_ms"] / row["kernel_ms"]


def environment(torch) -> dict:
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip()
    versions = {"python": platform.python_version(), "torch": torch.__version__,
                "cudnn": torch.backends.cudnn.version()}
    for name in ("jax", "cupy", "iree.runtime"):
        try:
            module = __import__(name, fromlist=["_"])
            versions[name] = getattr(module, "__version__", getattr(getattr(module, "version", None),
                                                                      "VERSION", "?"))
        except Exception as error:  # noqa: BLE001 - record what is missing, keep checking
            versions[name] = f"unavailable: {error}"
    return {"card": smi, "versions": versions}


def geomean(values) -> float | None:
    values = [v for v in values if isinstance(v, float) and v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def summary(rows: list[dict]) -> dict:
    """Geomeans over the timed layers of each dtype and batch: `geomean_<dtype>_n<batch>`."""
    def ratio(top: str, bottom: str, subset) -> float | None:
        return geomean([r[top] / r[bottom] for r in subset
                        if isinstance(r.get(top), float) and isinstance(r.get(bottom), float)])
    out = {}
    timed = [r for r in rows if "kernel_ms" in r]
    for dtype, n in sorted({(r["dtype"], r["n"]) for r in timed}):
        subset = [r for r in timed if r["dtype"] == dtype and r["n"] == n]
        out[f"geomean_{dtype}_n{n}"] = {
            "kernel_over_cudnn": ratio("kernel_ms", "cudnn_ms", subset),
            "kernel_over_cudnn_graphs": ratio("kernel_graph_ms", "cudnn_graph_ms", subset),
            # The definition: our kernel alone on the GPU against cuDNN as torch calls it (a loop of
            # convolution_backward calls, its host path included).
            "kernel_graph_over_cudnn_loop": ratio("kernel_graph_ms", "cudnn_ms", subset),
            "xla_over_cudnn": ratio("xla_ms", "cudnn_ms", subset),
            "iree_per_call_over_xla": ratio("iree_ms", "xla_ms", subset),
            "iree_amortized_over_kernel": ratio("iree_amortized_ms", "kernel_ms", subset),
            "iree_amortized_over_kernel_rotating": ratio("iree_amortized_ms", "kernel_rotating_ms", subset),
            "iree_amortized_over_kernel_rotating_graphs": ratio("iree_amortized_ms", "kernel_rotating_graph_ms",
                                                               subset),
            **{f"iree_{variant}_per_call_over_xla": ratio(f"iree_{variant}_ms", "xla_ms", subset)
               for variant in VARIANT_RUNTIME_FLAGS},
            **{f"iree_{variant}_amortized_over_kernel_rotating":
               ratio(f"iree_{variant}_amortized_ms", "kernel_rotating_ms", subset) for variant in VARIANT_RUNTIME_FLAGS},
            "stock_sm_80_over_cudnn": ratio("stock_sm_80_ms", "cudnn_ms", subset),
            **({"percent_of_roofline": geomean([r["percent_of_roofline"] for r in subset])}
               if all("percent_of_roofline" in r for r in subset) else {}),
            "layers": len(subset)}
    return out


def write_result(path: pathlib.Path, result: dict, cases: list[dict], complete: bool) -> None:
    """The result so far with its roofline figures and geomeans, written atomically after every case: a call cut
    short by its time limit still leaves every finished row and the geomeans over them (`complete` is false)."""
    add_roofline(result, cases)
    result.update(summary(result["rows"]))
    result["complete"] = complete
    write_atomically(path, json.dumps(result, indent=1).encode())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=pathlib.Path, default=pathlib.Path("out/gpu"))
    parser.add_argument("--out", type=pathlib.Path, required=True)
    parser.add_argument("--bench", action="store_true", help="time kernel, cuDNN and XLA")
    parser.add_argument("--iree-bench", action="store_true", help="time ours and stock IREE per call")
    parser.add_argument("--bench-dtypes", nargs="+", default=["f16"])
    parser.add_argument("--stock-targets", nargs="+", default=[], help="stock IREE targets to time (default: all built)")
    parser.add_argument("--iree-flag", dest="iree_flags", action="append", default=None, metavar="FLAG",
                        help="a runtime flag for our modules' iree-benchmark-module runs (--iree-flag=--x=y; "
                             "repeatable); default: the settings iree_cutlass.Module runs with (runtime.py)")
    parser.add_argument("--iree-default-runtime", action="store_true",
                        help="time our modules with IREE's own runtime defaults instead")
    parser.add_argument("--iree-variants", nargs="*", default=list(VARIANT_RUNTIME_FLAGS),
                        choices=list(VARIANT_RUNTIME_FLAGS), help="module variants to time with --iree-bench (every "
                        "variant built is checked for numerics whatever this says)")
    parser.add_argument("--only", nargs="+", default=[""], help="substring filters on case tags (any matches)")
    parser.add_argument("--skip", nargs="+", default=[], help="case tags to leave out")
    args = parser.parse_args()
    if args.iree_flags is None:
        from iree_cutlass.runtime import CUDA_ALLOCATORS, CUDA_RUNTIME_FLAGS
        args.iree_flags = [] if args.iree_default_runtime else \
            [*(f"--device_allocator={a}" for a in CUDA_ALLOCATORS), *CUDA_RUNTIME_FLAGS]

    import torch
    torch.backends.cudnn.allow_tf32 = False  # f32 cuDNN timings at f32 accuracy, the class of our 3xTF32 kernels
    manifest = json.loads((args.bundle / "cases.json").read_text())
    # Bundles from before --card picked their kernels by the H200 table, the only one then.
    result = {"commit": manifest["commit"], "dirty_tree": manifest["dirty"],
              "tuning_card": manifest.get("card", "h200"), **environment(torch),
              "rel_l2_limit": REL_L2_LIMIT, "f32_rel_l2_limit": F32_REL_L2_LIMIT, "rows": []}
    if args.bench:
        result["ceilings"] = ceilings(torch)
    rng = np.random.default_rng(20261202)
    for case in manifest["cases"]:
        if not any(f in case["tag"] for f in args.only) or case["tag"] in args.skip:
            continue
        started = time.perf_counter()
        try:
            row = check_dgrad(case, args.bundle, rng, torch, args) if case["kind"] == "dgrad" \
                else check_cnn(case, args.bundle, rng)
        except Exception as error:  # noqa: BLE001 - one failing case must not hide the others
            row = {"tag": case["tag"], "error": f"{type(error).__name__}: {str(error).splitlines()[0][:300]}"}
        row["seconds"] = round(time.perf_counter() - started, 2)
        result["rows"].append(row)
        print(json.dumps(row), flush=True)
        write_result(args.out, result, manifest["cases"], complete=False)

    write_result(args.out, result, manifest["cases"], complete=True)
    rows = result["rows"]

    print(f"\n{'case':34s} {'kernel':52s} {'iree_l2':>9s} {'kern_l2':>9s} {'unwr':>5s} "
          f"{'ours ms':>8s} {'cudnn':>8s} {'xla':>8s}")
    for r in rows:
        fmt = lambda v: f"{v:8.4f}" if isinstance(v, float) else f"{'-':>8s}"
        if "error" in r:
            print(f"{r['tag']:34s} ERROR {r['error']}")
            continue
        if "iree_rel_l2" in r and "kernel_rel_l2" not in r:
            print(f"{r['tag']:34s} {'(left to IREE)':52s} {r['iree_rel_l2']:9.2e}")
        elif "iree_rel_l2" in r:
            print(f"{r['tag']:34s} {str(r.get('kernel'))[:52]:52s} {r['iree_rel_l2']:9.2e} {r['kernel_rel_l2']:9.2e} "
                  f"{r['kernel_unwritten']:5d} {fmt(r.get('kernel_ms'))} {fmt(r.get('cudnn_ms'))} {fmt(r.get('xla_ms'))}")
        else:
            print(f"{r['tag']:34s} ours vs f32 {['%.1e' % e for e in r['ours_vs_f32']]} "
                  f"stock IREE vs f32 {['%.1e' % e for e in r.get('stock_iree_vs_f32', [])]} "
                  f"jax vs f32 {['%.1e' % e for e in r['jax_vs_f32']]}")
    for key in sorted(k for k in result if k.startswith("geomean_")):
        print(key, json.dumps(result[key]))
    failed = [r["tag"] for r in rows if not r.get("ok")]
    print(f"{len(rows) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
