"""On the GPU: NVIDIA's GEMM kernels on the GEMMs that the 1x1 unit-stride ResNet-50 dgrad layers are, beside cuDNN's
dgrad of the same layers, all in one run (CUDA-graph medians).

dx[N*H*W, C] = dy[N*H*W, K] x w[C, K]^T. Measured per layer: cuDNN (torch convolution_backward, channels_last),
cuBLAS (torch.matmul of the same operands) and every stock CUTLASS 3.x configuration that build.sh built
(gemm_bench.cu, f16 only: bf16 runs the same wgmma rate). A measurement of how fast these shapes can go, not
product code.

    python3 bench/cutlass_gemm/run.py --bins out/cutlass_gemm --batch 256 --out $OUT/gemm.json
"""

from __future__ import annotations

import argparse
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

from iree_cutlass.timing import torch_graph_ms  # noqa: E402
from iree_cutlass.workloads import resnet50_layers  # noqa: E402


def torch_figures(torch, layer) -> dict:
    tdtype = {"f16": torch.float16, "bf16": torch.bfloat16}[layer.dtype]
    gen = torch.Generator(device="cuda").manual_seed(7)
    m = layer.n * layer.h * layer.w
    dy2 = torch.randn((m, layer.k), generator=gen, device="cuda").to(tdtype)
    w2 = torch.randn((layer.c, layer.k), generator=gen, device="cuda").to(tdtype)   # the filter's [C, K] rows
    # The same operands as a convolution: dy NKPQ, w KCRS, both channels_last.
    dy4 = dy2.view(layer.n, layer.h, layer.w, layer.k).permute(0, 3, 1, 2)
    w4 = w2.t().contiguous().view(layer.k, layer.c, 1, 1).contiguous(memory_format=torch.channels_last)
    x4 = torch.empty((layer.n, layer.c, layer.h, layer.w), dtype=tdtype, device="cuda") \
        .contiguous(memory_format=torch.channels_last)
    torch.backends.cudnn.benchmark = True
    dx_conv = {}

    def cudnn():
        dx_conv["dx"] = torch.ops.aten.convolution_backward(dy4, x4, w4, None, [1, 1], [0, 0], [1, 1], False,
                                                            [0, 0], 1, [True, False, False])[0]
    out = torch.empty((m, layer.c), dtype=tdtype, device="cuda")

    def cublas():
        torch.matmul(dy2, w2.t(), out=out)
    figures = {"cudnn_ms": torch_graph_ms(torch, cudnn), "cublas_ms": torch_graph_ms(torch, cublas)}
    # Both compute the same dx: a check that the GEMM is the layer's dgrad.
    ref = (dy2.double() @ w2.double().t())
    for name, dx in (("cudnn", dx_conv["dx"].permute(0, 2, 3, 1).reshape(m, layer.c)), ("cublas", out)):
        figures[f"{name}_rel_l2"] = float(torch.linalg.norm(dx.double() - ref) / torch.linalg.norm(ref))
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bins", type=pathlib.Path, required=True, help="build.sh's output folder")
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--out", type=pathlib.Path, required=True)
    args = parser.parse_args()
    import torch

    layers = [layer for layer in resnet50_layers(batches=(args.batch,))
              if layer.r == 1 and layer.stride == 1]
    rows = []
    for layer in layers:
        row = {"layer": layer.name, "dtype": layer.dtype, "m": layer.n * layer.h * layer.w, "n": layer.c,
               "k": layer.k, **torch_figures(torch, layer), "cutlass": {}}
        rows.append(row)
        print(f"[gemm] {layer.name} {layer.dtype}: cuDNN {row['cudnn_ms']:.4f} ms, cuBLAS {row['cublas_ms']:.4f}",
              flush=True)
    shapes = sorted({(r["m"], r["n"], r["k"]) for r in rows})
    for binary in sorted(p for p in args.bins.iterdir() if p.is_file() and not p.suffix):
        argv = [str(binary), binary.name] + [str(v) for shape in shapes for v in shape]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            print(f"[gemm] {binary.name}: exit {done.returncode}: {done.stderr.strip()[-300:]}", flush=True)
        for line in done.stdout.splitlines():
            result = json.loads(line)
            for row in rows:
                if row["dtype"] == "f16" and (row["m"], row["n"], row["k"]) == (result["m"], result["n"], result["k"]):
                    row["cutlass"][binary.name] = result
        print(f"[gemm] {binary.name}: {len(done.stdout.splitlines())} problems", flush=True)
    for row in rows:
        valid = {name: r for name, r in row["cutlass"].items()
                 if "ms" in r and r["rel_l2"] < 1e-2 and r["rel_l2_after"] < 1e-2}
        line = f"{row['layer']:20s} {row['dtype']:4s} cuBLAS/cuDNN {row['cublas_ms'] / row['cudnn_ms']:.3f}"
        if valid:
            best = min(valid, key=lambda name: valid[name]["ms"])
            row["cutlass_best"] = best
            line += f"  CUTLASS best/cuDNN {valid[best]['ms'] / row['cudnn_ms']:.3f} ({best})"
        print(line, flush=True)
    args.out.write_text(json.dumps({"card": torch.cuda.get_device_name(), "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
