"""The main job: compile real JAX-lowered ResNet-50 dgrad modules with the plugin, report what was offloaded,
and run them on the GPU where one exists (checked against a float64 numpy reference).

    iree-cutlass-demo [--layer s2_3x3_128_128s2] [--batch 8] [--dtype f16] [--target sm_90] [--card auto] [--all]
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from iree_cutlass.reference import dgrad_reference
from iree_cutlass.workloads import RESNET50, ConvLayer, dgrad_problem


def _layers(args) -> list[ConvLayer]:
    rows = RESNET50 if args.all else [row for row in RESNET50 if row[0] == args.layer]
    if not rows:
        names = ", ".join(row[0] for row in RESNET50)
        raise SystemExit(f"iree-cutlass-demo: error: unknown layer '{args.layer}' (one of: {names})")
    return [ConvLayer(name, args.batch, h, w, c, k, r, stride, pad, args.dtype)
            for (name, h, w, c, k, r, stride, pad) in rows]


def _cuda_device() -> tuple[str | None, str]:
    """(None, the first CUDA device's name) when one can be used here, else (why not, "")."""
    try:
        import iree.runtime as ireert
        devices = ireert.get_driver("cuda").query_available_devices()
    except Exception as error:  # noqa: BLE001 - any failure means: no usable CUDA device
        return (str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__), ""
    if not devices:
        return "the CUDA driver reports no device", ""
    return None, str(devices[0].get("name", ""))


def card_for_device(name: str) -> str:
    """The tuning table for a GPU by its name (a known card's name in it, e.g. h100 in "NVIDIA H100 80GB HBM3"),
    else the default card's."""
    from iree_cutlass.plugin.select import DEFAULT_CARD, known_cards
    return next((card for card in known_cards() if card in name.lower()), DEFAULT_CARD)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="iree-cutlass-demo", description=__doc__.splitlines()[0])
    parser.add_argument("--layer", default="s2_3x3_128_128s2", help="a ResNet-50 layer name")
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--dtype", choices=["f16", "bf16"], default="f16")
    parser.add_argument("--target", default="sm_90", help="--iree-cuda-target for the kernels")
    parser.add_argument("--card", default="auto", help="whose tuning table picks the kernels (--iree-cutlass-card): "
                                                       "auto (the GPU here if it has a table, else h200), h100, h200")
    parser.add_argument("--all", action="store_true", help="every ResNet-50 dgrad layer")
    args = parser.parse_args(argv)

    import iree_cutlass
    from iree_cutlass.jax_models import dgrad_module

    no_gpu, gpu_name = _cuda_device()
    print(f"[demo] GPU: {'none here (' + no_gpu + '): compile only' if no_gpu else gpu_name or 'CUDA device found'}")
    card = card_for_device(gpu_name) if args.card == "auto" else args.card
    failures = 0
    for layer in _layers(args):
        print(f"\n[demo] {layer.tag}: dgrad of x[{layer.n},{layer.h},{layer.w},{layer.c}] * "
              f"w[{layer.r},{layer.r},{layer.c},{layer.k}], stride {layer.stride}, pad {layer.pad}")
        started = time.perf_counter()
        try:
            compiled = iree_cutlass.compile(dgrad_module(layer), target=args.target, card=card, remarks=True)
        except iree_cutlass.CompileError as error:
            print(f"iree-cutlass-demo: error: {error}", file=sys.stderr)
            return 1
        print(f"[demo] compiled in {time.perf_counter() - started:.2f} s to a {len(compiled.vmfb)}-byte vmfb; "
              f"{compiled.report.summary()}")
        for record in compiled.report.offloaded:
            print(f"[demo]   kernel {record.kernel}\n[demo]   fatbin {record.kernel_path}")
        if no_gpu:
            continue
        rng = np.random.default_rng(0)
        dtype = np.float16 if args.dtype == "f16" else __import__("ml_dtypes").bfloat16
        dy = rng.standard_normal((layer.n, layer.p, layer.q, layer.k), dtype=np.float32).astype(dtype)
        w = rng.standard_normal((layer.r, layer.r, layer.c, layer.k), dtype=np.float32).astype(dtype)
        try:
            (dx,) = iree_cutlass.run(compiled.vmfb, dy, w)
        except iree_cutlass.RunError as error:
            print(f"iree-cutlass-demo: error: {error}", file=sys.stderr)
            return 1
        reference = dgrad_reference(dgrad_problem(layer), dy, np.transpose(w, (3, 0, 1, 2)))
        error = float(np.linalg.norm(dx.astype(np.float64) - reference) / np.linalg.norm(reference))
        ok = error <= 1e-2
        failures += not ok
        print(f"[demo] ran on the GPU: relative L2 error {error:.2e} against float64 ({'ok' if ok else 'FAILED'})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
