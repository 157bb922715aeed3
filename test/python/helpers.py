"""Small builders the tests share: JAX dgrad modules of chosen shapes and a float64 numpy dgrad."""

from __future__ import annotations

import numpy as np

from iree_cutlass.jax_models import dgrad_module
from iree_cutlass.plugin.problem import DgradProblem
from iree_cutlass.reference import dgrad_reference
from iree_cutlass.workloads import ConvLayer


def layer(n=2, h=9, w=9, c=8, k=16, r=3, stride=2, pad=1, dtype="f16", name="t") -> ConvLayer:
    return ConvLayer(name, n, h, w, c, k, r, stride, pad, dtype)


def jax_dgrad_text(**shape) -> str:
    return dgrad_module(layer(**shape))


def numpy_dgrad(problem: DgradProblem, dy: np.ndarray, w_krsc: np.ndarray) -> np.ndarray:
    return dgrad_reference(problem, dy, w_krsc)
