"""Builds, on this machine (no GPU needed), everything bench/gpu_check.py runs on the GPU machine.

    python bench/prepare_gpu.py --out out/gpu [--batches 8 256] [--dtypes f16 bf16] [--stock]

For every ResNet-50 dgrad layer (and a small JAX CNN gradient) it lowers the JAX module, compiles it with the
plugin for sm_90, optionally compiles it with stock IREE for sm_80 and sm_89 (a failure is recorded as such),
copies the CUTLASS fatbins, and writes cases.json: what gpu_check.py needs to run, check and time each one.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import pathlib
import shutil
import subprocess
import sys
import time

from iree_cutlass.driver import CompileError, compile_source, parse_card, parse_kernel_families
from iree_cutlass.plugin.select import ALL_FAMILIES, DEFAULT_CARD
from iree_cutlass.jax_models import dgrad_module, multi_dgrad_module, small_cnn_grad_module, small_cnn_shapes
from iree_cutlass.plugin.kernels import launch_record, supports
from iree_cutlass.workloads import ConvLayer, random_layers, resnet50_layers

OURS_FLAGS = ["--iree-hal-target-device=cuda", "--iree-cuda-target=sm_90"]
STOCK_TARGETS = ("sm_80", "sm_89")
AMORTIZED_COPIES = 16
SANITIZE_BATCH = 4

# Problems off the ResNet-50 grid: odd sizes, 5x5 and 7x7 filters, stride 3, batch 1 and 3; f32 (3xTF32 kernels,
# checked against a tighter limit); odd channel counts (16-bit, unit stride: the 2-stage alignment-1 kernels;
# f32: cp.async of single elements).
EXTRA_LAYERS = [
    ConvLayer("odd_5x5_s2", 3, 27, 19, 64, 32, 5, 2, 2, "f16"),
    ConvLayer("odd_7x7_s3", 1, 23, 23, 16, 24, 7, 3, 3, "f16"),
    ConvLayer("odd_3x3_s1_bf16", 3, 13, 9, 40, 24, 3, 1, 1, "bf16"),
    ConvLayer("odd_1x1_s2_bf16", 2, 15, 15, 32, 64, 1, 2, 0, "bf16"),
    ConvLayer("odd_f32_3x3_s1", 2, 28, 28, 64, 64, 3, 1, 1, "f32"),
    ConvLayer("odd_f32_3x3_s2_k512", 4, 14, 14, 256, 512, 3, 2, 1, "f32"),
    ConvLayer("odd_f32_5x5_s3", 3, 23, 17, 40, 24, 5, 3, 2, "f32"),
    ConvLayer("odd_f32_c3_7x7_s2", 2, 32, 32, 3, 64, 7, 2, 3, "f32"),
    ConvLayer("odd_f32_c5k7_1x1_s2", 2, 15, 15, 5, 7, 1, 2, 0, "f32"),
    ConvLayer("odd_c3_7x7_s1", 2, 32, 32, 3, 64, 7, 1, 3, "f16"),
    ConvLayer("odd_c3_3x3_s1_bf16", 4, 32, 32, 3, 32, 3, 1, 1, "bf16"),
    ConvLayer("odd_k7_3x3_s1", 3, 13, 9, 40, 7, 3, 1, 1, "f16"),
    ConvLayer("odd_c5k9_5x5_s1_bf16", 2, 23, 17, 5, 9, 5, 1, 2, "bf16"),
    ConvLayer("odd_c33k65_3x3_s1", 8, 28, 28, 33, 65, 3, 1, 1, "f16"),
    # NCHW data, OIHW filter (PyTorch's layout) through JAX: the call takes and returns NCHW (gpu_check converts).
    ConvLayer("nchw_3x3_s2", 4, 28, 28, 64, 64, 3, 2, 1, "f16", "nchw"),
    ConvLayer("nchw_1x1_s1_bf16", 2, 14, 14, 128, 256, 1, 1, 0, "bf16", "nchw"),
]


KERNEL_FAMILIES = ALL_FAMILIES  # set from --kernels
TUNING_CARD = DEFAULT_CARD      # set from --card


def _compile(mlir: str, name: str, flags: list[str], plugin: bool):
    remarks: list[str] = []
    started = time.perf_counter()
    try:
        result = compile_source(mlir.encode(), name, flags, plugin=plugin, remark=remarks.append,
                                kernel_families=KERNEL_FAMILIES, card=TUNING_CARD)
    except CompileError as error:
        return None, None, str(error), time.perf_counter() - started
    return result.output, result.report, None, time.perf_counter() - started


def _stock_compile(mlir_path: pathlib.Path, vmfb_path: pathlib.Path, target: str) -> str | None:
    """Stock iree-compile in its own process (it can abort on LLVM errors); returns the error, if any. A vmfb
    already built from the same MLIR (its sidecar holds the MLIR's hash) is kept: stock IREE does not change."""
    import hashlib
    stamp = vmfb_path.with_suffix(".mlir.sha256")
    digest = hashlib.sha256(mlir_path.read_bytes()).hexdigest()
    if vmfb_path.exists() and stamp.exists() and stamp.read_text() == digest:
        return None
    done = subprocess.run(["iree-compile", "--iree-hal-target-device=cuda", f"--iree-cuda-target={target}",
                           str(mlir_path), "-o", str(vmfb_path)], capture_output=True, text=True)
    if done.returncode == 0:
        stamp.write_text(digest)
        return None
    lines = [l for l in done.stderr.splitlines() if "error" in l.lower()] or done.stderr.splitlines() or ["?"]
    return lines[0].strip()[:300]


# Module variants built beside each f16 module (vmfb/TAG.ours.VARIANT.vmfb, TAG.ours_x16.VARIANT.vmfb): whether
# the caller's dx buffers are donated as the results' storage (jax donate_argnums -> iree.abi.output), and more
# compile flags. "pipelined" functions take a wait and a signal fence (IREE's coarse-fences ABI), so a caller can
# queue call after call without waiting on the host (iree-benchmark-module --batch_size=N), as JAX does with XLA.
VARIANTS = {"donated": (True, []), "pipelined": (True, ["--iree-execution-model=async-external"])}


def sanitize_batch(config, problem) -> int:
    """The batch compute-sanitizer runs a layer's kernel at: at most SANITIZE_BATCH (its checks cost 100x or more,
    and the walk over images is the same at any batch), unless the kernel cannot run that batch (an sm90_gemm
    kernel is built for its problem's GEMM extents and traps on any other): then the layer's own."""
    small = dataclasses.replace(problem, n=min(problem.n, SANITIZE_BATCH))
    return small.n if supports(config, small) is None else problem.n


def prepare_layer(layer: ConvLayer, out: pathlib.Path, stock: bool, amortized: bool, variants=()) -> dict:
    mlir = dgrad_module(layer)
    mlir_path = out / "mlir" / f"{layer.tag}.mlir"
    mlir_path.write_text(mlir)
    case = {"kind": "dgrad", "tag": layer.tag, "layer": dataclasses.asdict(layer),
            "flops": layer.flops, "min_bytes": layer.min_bytes}
    vmfb, report, error, seconds = _compile(mlir, mlir_path.name, OURS_FLAGS, plugin=True)
    case["compile_seconds"] = round(seconds, 3)
    if error:
        case["error"] = error
        return case
    (out / "vmfb" / f"{layer.tag}.ours.vmfb").write_bytes(vmfb)
    offloaded = report.offloaded
    case["offloaded"] = len(offloaded)
    case["convs_left"] = len(report.records) - len(offloaded)
    if len(offloaded) == 1:
        record = offloaded[0]
        kernel_file = out / "kernels" / pathlib.Path(record.kernel_path).name
        if not kernel_file.exists():
            shutil.copyfile(record.kernel_path, kernel_file)
        case["kernel"] = {**launch_record(record.config, record.problem), "fatbin": kernel_file.name,
                          "problem": dataclasses.asdict(record.problem)}
        small = dataclasses.replace(record.problem, n=sanitize_batch(record.config, record.problem))
        case["sanitize_kernel"] = {**launch_record(record.config, small), "fatbin": kernel_file.name,
                                   "problem": dataclasses.asdict(small)}
    if amortized:
        many = multi_dgrad_module(layer, AMORTIZED_COPIES)
        vmfb_many, _, error_many, _ = _compile(many, f"{layer.tag}_x{AMORTIZED_COPIES}.mlir", OURS_FLAGS, True)
        if vmfb_many is not None:
            (out / "vmfb" / f"{layer.tag}.ours_x{AMORTIZED_COPIES}.vmfb").write_bytes(vmfb_many)
            case["amortized_copies"] = AMORTIZED_COPIES
    for variant in variants:
        donate, flags = VARIANTS[variant]
        modules = {f"{layer.tag}.ours.{variant}.vmfb": dgrad_module(layer, donate_output=donate)}
        if amortized:
            modules[f"{layer.tag}.ours_x{AMORTIZED_COPIES}.{variant}.vmfb"] = \
                multi_dgrad_module(layer, AMORTIZED_COPIES, donate_outputs=donate)
        for name, text in modules.items():
            built, _, failure, _ = _compile(text, name.replace(".vmfb", ".mlir"), OURS_FLAGS + flags, True)
            if built is None:
                case.setdefault("variant_errors", {})[name] = failure
            else:
                (out / "vmfb" / name).write_bytes(built)
        if f"{layer.tag}.ours.{variant}.vmfb" not in case.get("variant_errors", {}):
            # The check runs the one-dgrad module of every variant recorded here (the 16-dgrad one where built).
            case.setdefault("variants", {})[variant] = {"donated": donate, "flags": flags}
    if stock:
        case["stock"] = {}
        for target in STOCK_TARGETS:
            path = out / "vmfb" / f"{layer.tag}.stock_{target}.vmfb"
            failure = _stock_compile(mlir_path, path, target)
            case["stock"][target] = {"error": failure} if failure else {"vmfb": path.name}
    return case


def prepare_cnn(out: pathlib.Path, dtype: str) -> dict:
    mlir = small_cnn_grad_module(dtype)
    tag = f"cnn_grad_{dtype}"
    vmfb, report, error, seconds = _compile(mlir, f"{tag}.mlir", OURS_FLAGS, plugin=True)
    case = {"kind": "cnn", "tag": tag, "dtype": dtype, "shapes": small_cnn_shapes(), "compile_seconds": seconds}
    if error:
        case["error"] = error
        return case
    (out / "vmfb" / f"{tag}.ours.vmfb").write_bytes(vmfb)
    # Stock IREE on the same module: its own f16 convs set the error floor the plugin is judged against.
    stock, _, stock_error, _ = _compile(mlir, f"{tag}.mlir", ["--iree-hal-target-device=cuda",
                                                              "--iree-cuda-target=sm_89"], plugin=False)
    if stock is not None:
        (out / "vmfb" / f"{tag}.stock_sm_89.vmfb").write_bytes(stock)
    else:
        case["stock_error"] = stock_error
    case["offloaded"] = len(report.offloaded)
    case["convs_left"] = len(report.records) - len(report.offloaded)
    return case


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("out/gpu"))
    parser.add_argument("--batches", type=int, nargs="+", default=[8, 256])
    parser.add_argument("--dtypes", nargs="+", default=["f16", "bf16"])
    parser.add_argument("--stock", action="store_true", help="also compile each layer with stock IREE")
    parser.add_argument("--amortized", action="store_true", help=f"also build {AMORTIZED_COPIES}-dgrad modules")
    parser.add_argument("--random", type=int, default=0, metavar="N",
                        help="N random problems instead of the ResNet-50 layers (no CNN)")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--channel-multiple", type=int, default=2, help="random problems' C and K divide by it")
    parser.add_argument("--kernels", default="auto", help="--iree-cutlass-kernels for our modules")
    parser.add_argument("--card", default=DEFAULT_CARD, help="--iree-cutlass-card for our modules (whose tuning "
                                                             "table picks the kernels)")
    parser.add_argument("--no-cnn", action="store_true", help="leave out the CNN gradient cases")
    parser.add_argument("--variants", nargs="*", default=[], choices=sorted(VARIANTS),
                        help="also build these variants of each f16 module (vmfb/TAG.ours[_x16].VARIANT.vmfb)")
    parser.add_argument("--only", nargs="+", default=[""], help="substring filters on layer tags")
    args = parser.parse_args()
    global KERNEL_FAMILIES, TUNING_CARD
    KERNEL_FAMILIES = parse_kernel_families(args.kernels)
    try:
        TUNING_CARD = parse_card(args.card)
    except CompileError as error:
        parser.error(str(error))
    for sub in ("mlir", "vmfb", "kernels"):
        (args.out / sub).mkdir(parents=True, exist_ok=True)
    layers = random_layers(args.random, args.seed, args.channel_multiple) if args.random else \
        resnet50_layers(tuple(args.batches), tuple(args.dtypes)) + EXTRA_LAYERS
    layers = [layer for layer in layers if any(f in layer.tag for f in args.only)]
    cases = []
    for index, layer in enumerate(layers, 1):
        print(f"[prepare] {index}/{len(layers)} {layer.tag}", file=sys.stderr, flush=True)
        cases.append(prepare_layer(layer, args.out, args.stock and layer.dtype == "f16",
                                   args.amortized and layer.dtype == "f16",
                                   args.variants if (layer.dtype, layer.layout) == ("f16", "nhwc") else ()))
    for dtype in ([] if args.random or args.no_cnn else args.dtypes):
        cases.append(prepare_cnn(args.out, dtype))
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = bool(subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                                capture_output=True, text=True).stdout.strip())
    (args.out / "cases.json").write_text(json.dumps({"commit": commit, "dirty": dirty, "card": TUNING_CARD,
                                                     "cases": cases}, indent=1))
    failed = [c["tag"] for c in cases if "error" in c]
    print(f"[prepare] {len(cases)} cases, {len(failed)} failed to compile: {failed}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
