"""The matcher reads the problem right: a float64 numpy dgrad built from what it recognized equals IREE's own
llvm-cpu result for the original module, on random inputs, over randomly drawn shapes, strides and paddings.

Inputs are drawn from {-1, 0, 1} so that every f16 and f32 product and sum is exact: the comparison is exact too,
and any misread parameter (a padding off by one, a swapped stride, a wrong filter permutation) fails it.
"""

import numpy as np
from hypothesis import given, settings
from iree.compiler import ir

from helpers import conv_shapes, jax_dgrad_text, numpy_dgrad
from iree_cutlass.driver import compile_source
from iree_cutlass.passes.dgrad_match import match_dgrad
from iree_cutlass.runtime import Module

NUMPY_DTYPES = {"f16": np.float16, "f32": np.float32}
CPU_FLAGS = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu",
             "--iree-llvmcpu-target-cpu=host"]



def recognized(text: str):
    input_ir = compile_source(text.encode(), "t.mlir", CPU_FLAGS, plugin=False, compile_to="input").output
    module = ir.Module.parse(input_ir.decode(), ir.Context())
    main = module.body.operations[0]
    ops = [op.operation for op in main.regions[0].blocks[0].operations]
    convs = [op for op in ops if op.name == "linalg.conv_2d_nhwc_hwcf"]
    assert len(convs) == 1
    match = match_dgrad(convs[0])
    arguments = list(main.regions[0].blocks[0].arguments)
    assert match.dy == arguments[0] and match.filter_source == arguments[1]
    return match


@settings(max_examples=24, deadline=None, derandomize=True)
@given(conv_shapes(dtypes=("f16", "f32")))
def test_recognized_problem_matches_iree_cpu(shape):
    text = jax_dgrad_text(**shape)
    match = recognized(text)
    problem = match.problem
    assert (problem.n, problem.h, problem.w, problem.c, problem.k) == \
        (shape["n"], shape["h"], shape["w"], shape["c"], shape["k"])
    assert (problem.stride_h, problem.pad_h, problem.r) == (shape["stride"], shape["pad"], shape["r"])
    assert problem.dtype == shape["dtype"]

    rng = np.random.default_rng(shape["h"] * 131 + shape["w"])
    dtype = NUMPY_DTYPES[shape["dtype"]]
    dy = rng.integers(-1, 2, (problem.n, problem.p, problem.q, problem.k)).astype(dtype)
    w = rng.integers(-1, 2, (problem.r, problem.s, problem.c, problem.k)).astype(dtype)
    vmfb = compile_source(text.encode(), "t.mlir", CPU_FLAGS, plugin=False).output
    (dx_iree,) = Module(vmfb, "local-task")(dy, w)
    expected = numpy_dgrad(problem, dy, np.transpose(w, match.krsc_permutation))
    assert np.count_nonzero(expected) > 0
    np.testing.assert_array_equal(dx_iree.astype(np.float64), expected)


def test_bf16_is_recognized_with_its_dtype():
    match = recognized(jax_dgrad_text(n=1, h=8, w=8, c=16, k=16, r=3, stride=2, pad=1, dtype="bf16"))
    assert match.problem.dtype == "bf16" and match.form == "strided"


def test_odd_channels_are_recognized():
    # Odd C and K reach the matcher unchanged (the kernels, not the matcher, decide what they can take).
    match = recognized(jax_dgrad_text(n=1, h=7, w=7, c=3, k=5, r=3, stride=2, pad=1, dtype="f32"))
    assert (match.problem.c, match.problem.k, match.problem.dtype) == (3, 5, "f32")
