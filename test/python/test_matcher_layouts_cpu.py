"""NCHW dgrads are read right too: JAX's with NCHW/OIHW dimension numbers (IREE makes the conv channels-last and
puts permutation copies around it), torch's transposed conv (linalg.conv_2d_nchw_fchw, f32 accumulation) and
torch's convolution_backward (a linalg.generic conv). For each, a float64 numpy dgrad built from what the matcher
derived (the problem, and the dy, filter and dx permutations between the frontend's layouts and the kernels'
NPQK, KRSC and NHWC) equals IREE's own llvm-cpu result for the original module, over random shapes, strides and
paddings. Inputs are in {-1, 0, 1}, so every f16 sum is exact and the comparison is exact.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from iree.compiler import ir

from helpers import conv_shapes, jax_dgrad_text, numpy_dgrad, torch_dgrad_text
from iree_cutlass.driver import compile_source
from iree_cutlass.passes.dgrad_match import DgradMatch, conv_layout, match_dgrad
from iree_cutlass.runtime import Module

CPU_FLAGS = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu",
             "--iree-llvmcpu-target-cpu=host"]
TORCH_FLAGS = CPU_FLAGS + ["--iree-input-type=torch"]



def _walk(op: ir.Operation):
    for region in op.regions:
        for block in region.blocks:
            for nested in block.operations:
                yield nested.operation
                yield from _walk(nested.operation)


def _argument_index(value: ir.Value) -> int:
    """The function argument a value is, directly or through hal.tensor.import (torch modules' ABI)."""
    if isinstance(value, ir.OpResult) and value.owner.operation.name == "hal.tensor.import":
        value = value.owner.operation.operands[0]
    assert isinstance(value, ir.BlockArgument), f"not a function argument: {value}"
    return value.arg_number


def recognized(text: str, flags: list[str]) -> tuple[DgradMatch, ir.Module]:
    """The match of the module's one conv, and the module, which must outlive every use of the match's IR."""
    input_ir = compile_source(text.encode(), "t.mlir", flags, plugin=False, compile_to="input").output
    module = ir.Module.parse(input_ir.decode(), ir.Context())
    convs = [op for op in _walk(module.operation) if conv_layout(op) is not None]
    assert len(convs) == 1
    return match_dgrad(convs[0]), module


def assert_matches_iree(text: str, flags: list[str], match: DgradMatch, shape: dict, inputs: list[str]):
    """Runs the original module on IREE's llvm-cpu and compares with numpy built from the match alone.
    `inputs` names the module's arguments in order: "dy", "w" or "x" (an unused input, given zeros)."""
    problem = match.problem
    assert (problem.n, problem.h, problem.w, problem.c, problem.k, problem.r, problem.s) == \
        (shape["n"], shape["h"], shape["w"], shape["c"], shape["k"], shape["r"], shape["r"])
    assert (problem.stride_h, problem.stride_w, problem.pad_h, problem.pad_w) == \
        (shape["stride"], shape["stride"], shape["pad"], shape["pad"])
    assert _argument_index(match.dy) == inputs.index("dy")
    assert _argument_index(match.filter_source) == inputs.index("w")

    n, c, h, w, k, r, p, q = (problem.n, problem.c, problem.h, problem.w, problem.k, problem.r, problem.p,
                              problem.q)
    shapes = {"dy": (n, k, p, q), "w": (k, c, r, r), "x": (n, c, h, w)}  # the frontends' NCHW and OIHW
    rng = np.random.default_rng(h * 131 + w * 7 + k)
    arrays = {name: rng.integers(-1, 2, shapes[name]).astype(np.float16) for name in ("dy", "w")}
    arrays["x"] = np.zeros(shapes["x"], np.float16)
    vmfb = compile_source(text.encode(), "t.mlir", flags, plugin=False).output
    (dx_iree,) = Module(vmfb, "local-task")(*(arrays[name] for name in inputs))

    dx_nhwc = numpy_dgrad(problem, np.transpose(arrays["dy"], match.dy_permutation),
                          np.transpose(arrays["w"], match.krsc_permutation))
    expected = np.transpose(dx_nhwc, match.dx_permutation)
    assert np.count_nonzero(expected) > 0
    np.testing.assert_array_equal(dx_iree.astype(np.float64), expected)


@settings(max_examples=10, deadline=None, derandomize=True)
@given(conv_shapes())
def test_jax_nchw_matches_iree_cpu(shape):
    text = jax_dgrad_text(**shape, layout="nchw")
    match, module = recognized(text, CPU_FLAGS)
    assert match.conv.name == "linalg.conv_2d_nhwc_hwcf"  # IREE made it channels-last
    assert_matches_iree(text, CPU_FLAGS, match, shape, ["dy", "w"])


@settings(max_examples=8, deadline=None, derandomize=True)
@given(conv_shapes())
def test_torch_conv_transpose_matches_iree_cpu(shape):
    text = torch_dgrad_text("conv_transpose", **shape)
    match, module = recognized(text, TORCH_FLAGS)
    assert match.conv.name == "linalg.conv_2d_nchw_fchw"
    assert [op.name for op in match.replaced] == ["linalg.conv_2d_nchw_fchw", "linalg.generic"]  # + truncf
    assert_matches_iree(text, TORCH_FLAGS, match, shape, ["dy", "w"])


@settings(max_examples=8, deadline=None, derandomize=True)
@given(conv_shapes())
def test_torch_convolution_backward_matches_iree_cpu(shape):
    text = torch_dgrad_text("convolution_backward", **shape)
    match, module = recognized(text, TORCH_FLAGS)
    assert match.conv.name == "linalg.generic"
    assert_matches_iree(text, TORCH_FLAGS, match, shape, ["dy", "x", "w"])


@pytest.mark.parametrize("source", ["jax", "conv_transpose", "convolution_backward"])
def test_permutations_give_the_kernels_layouts(source):
    """The match's permutations, applied in numpy as the util.func's linalg.transposes apply them, turn the
    frontend's NCHW dy and OIHW filter into the NPQK and KRSC arrays the kernel reads, and the kernel's NHWC dx
    into the NCHW dx the frontend expects."""
    shape = dict(n=2, h=9, w=7, c=8, k=16, r=3, stride=2, pad=1)
    if source == "jax":
        match, module = recognized(jax_dgrad_text(**shape, layout="nchw"), CPU_FLAGS)
    else:
        match, module = recognized(torch_dgrad_text(source, **shape), TORCH_FLAGS)
    problem = match.problem
    n, k, p, q, c, h, w, r = problem.n, problem.k, problem.p, problem.q, problem.c, problem.h, problem.w, problem.r
    dy_nchw = np.arange(n * k * p * q).reshape(n, k, p, q)
    w_oihw = np.arange(k * c * r * r).reshape(k, c, r, r)
    dx_nhwc = np.arange(n * h * w * c).reshape(n, h, w, c)
    assert match.dy_permutation == [0, 2, 3, 1] and match.dx_permutation == [0, 3, 1, 2]
    np.testing.assert_array_equal(np.transpose(dy_nchw, match.dy_permutation), np.einsum("nkpq->npqk", dy_nchw))
    np.testing.assert_array_equal(np.transpose(w_oihw, match.krsc_permutation), np.einsum("kcrs->krsc", w_oihw))
    np.testing.assert_array_equal(np.transpose(dx_nhwc, match.dx_permutation), np.einsum("nhwc->nchw", dx_nhwc))


def test_nhwc_needs_no_dy_or_dx_transpose():
    match, module = recognized(jax_dgrad_text(n=2, h=9, w=9, c=8, k=16, r=3, stride=2, pad=1), CPU_FLAGS)
    assert match.dy_permutation == [0, 1, 2, 3] and match.dx_permutation == [0, 1, 2, 3]
    assert match.replaced == [match.conv] and match.result == match.conv.results[0]
