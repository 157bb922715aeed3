"""Small builders the tests share: JAX dgrad modules of chosen shapes, a float64 numpy dgrad, bench/ scripts
loaded as modules, and commands run as the GPU machine runs them (from the source tree alone)."""

from __future__ import annotations

import importlib.util
import os
import pathlib
import subprocess
import sys

import numpy as np
from hypothesis import strategies as st

from iree_cutlass.jax_models import dgrad_module
from iree_cutlass.plugin.problem import DgradProblem
from iree_cutlass.reference import dgrad_reference
from iree_cutlass.workloads import ConvLayer


@st.composite
def conv_shapes(draw, dtypes=("f16",)):
    """A random small dgrad problem: filter 1-5, stride 1-3, any legal padding, sizes up to 12, channels of 8."""
    r = draw(st.integers(1, 5))
    stride = draw(st.integers(1, 3))
    pad = draw(st.integers(0, r - 1))
    h = draw(st.integers(max(1, r - 2 * pad), 12))
    w = draw(st.integers(max(1, r - 2 * pad), 12))
    return dict(n=draw(st.integers(1, 3)), h=h, w=w, c=draw(st.sampled_from([8, 16, 24])),
                k=draw(st.sampled_from([8, 16, 32])), r=r, stride=stride, pad=pad,
                dtype=draw(st.sampled_from(list(dtypes))))


def layer(n=2, h=9, w=9, c=8, k=16, r=3, stride=2, pad=1, dtype="f16", name="t", layout="nhwc") -> ConvLayer:
    return ConvLayer(name, n, h, w, c, k, r, stride, pad, dtype, layout)


def jax_dgrad_text(**shape) -> str:
    return dgrad_module(layer(**shape))


def numpy_dgrad(problem: DgradProblem, dy: np.ndarray, w_krsc: np.ndarray) -> np.ndarray:
    return dgrad_reference(problem, dy, w_krsc)


def torch_dgrad_text(op: str, n=2, h=9, w=9, c=8, k=16, r=3, stride=2, pad=1, dtype="f16") -> str:
    """The input gradient of a forward NCHW conv x[n,c,h,w] * w[k,c,r,r] in the torch dialect, as torch-mlir's FX
    importer emits it (compile with --iree-input-type=torch):
      op "conv_transpose": (dy, w) -> aten.convolution(dy, w, transposed=true), with the output padding that
        gives back h x w (what conv_transpose2d / nn.ConvTranspose2d lower to);
      op "convolution_backward": (dy, x, w) -> aten.convolution_backward(...)[0] (what autograd records)."""
    layer_ = layer(n, h, w, c, k, r, stride, pad, dtype)
    p, q = layer_.p, layer_.q
    vt = lambda *shape: f"!torch.vtensor<[{','.join(str(d) for d in shape)}],{dtype}>"
    dy_t, x_t, w_t = vt(n, k, p, q), vt(n, c, h, w), vt(k, c, r, r)
    # Transposed conv output size: (p-1)*stride - 2*pad + r + output_padding.
    out_pad = [h - ((p - 1) * stride - 2 * pad + r), w - ((q - 1) * stride - 2 * pad + r)]
    ints = sorted({0, 1, stride, pad, *out_pad})
    lines = [f"  %int{i} = torch.constant.int {i}" for i in ints] + [
        "  %none = torch.constant.none", "  %true = torch.constant.bool true", "  %false = torch.constant.bool false"]

    def int_list(name, values):
        lines.append(f"  %{name} = torch.prim.ListConstruct {', '.join(f'%int{v}' for v in values)} : "
                     f"({', '.join('!torch.int' for _ in values)}) -> !torch.list<int>")
    int_list("stride", [stride, stride])
    int_list("pad", [pad, pad])
    int_list("dil", [1, 1])
    lists = "!torch.list<int>, !torch.list<int>, !torch.list<int>"
    if op == "conv_transpose":
        int_list("outpad", out_pad)
        args = f"%dy: {dy_t}, %w: {w_t}"
        lines += [f"  %0 = torch.aten.convolution %dy, %w, %none, %stride, %pad, %dil, %true, %outpad, %int1 : "
                  f"{dy_t}, {w_t}, !torch.none, {lists}, !torch.bool, !torch.list<int>, !torch.int -> {x_t}",
                  f"  return %0 : {x_t}"]
    elif op == "convolution_backward":
        int_list("outpad", [0, 0])
        int_list("bias", [0])
        args = f"%dy: {dy_t}, %x: {x_t}, %w: {w_t}"
        lines += ["  %mask = torch.prim.ListConstruct %true, %false, %false : "
                  "(!torch.bool, !torch.bool, !torch.bool) -> !torch.list<bool>",
                  f"  %0:3 = torch.aten.convolution_backward %dy, %x, %w, %bias, %stride, %pad, %dil, %false, %outpad, "
                  f"%int1, %mask : {dy_t}, {x_t}, {w_t}, !torch.list<int>, {lists}, !torch.bool, !torch.list<int>, "
                  f"!torch.int, !torch.list<bool> -> {x_t}, !torch.none, !torch.none",
                  f"  return %0#0 : {x_t}"]
    else:
        raise ValueError(f"unknown torch op {op!r}")
    return "\n".join([f"func.func @main({args}) -> {x_t} {{", *lines, "}"]) + "\n"


REPO = pathlib.Path(__file__).resolve().parents[2]
BENCH = REPO / "bench"


def run_from_source_tree(*args: str) -> subprocess.CompletedProcess:
    """`python -S ARGS` in the repository with PYTHONPATH=python and no site-packages: how the GPU machine runs the
    measuring tools (bench/plans/lib.sh), where iree_cutlass.plugin, the compiler's half, is not importable (and
    -S keeps the installed package, which maps it, from standing in)."""
    return subprocess.run([sys.executable, "-S", *args], cwd=REPO, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(REPO / "python")})


def load_bench_script(name: str):
    """A bench/ script as a module (bench/ is not a package), with bench/ on the import path while it loads, for
    the scripts that import their neighbours."""
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCH))
