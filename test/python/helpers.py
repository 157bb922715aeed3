"""Small builders the tests share: JAX dgrad modules of chosen shapes and a float64 numpy dgrad."""

from __future__ import annotations

import numpy as np

from iree_cutlass.jax_models import dgrad_module
from iree_cutlass.plugin.problem import DgradProblem
from iree_cutlass.workloads import ConvLayer


def layer(n=2, h=9, w=9, c=8, k=16, r=3, stride=2, pad=1, dtype="f16", name="t") -> ConvLayer:
    return ConvLayer(name, n, h, w, c, k, r, stride, pad, dtype)


def jax_dgrad_text(**shape) -> str:
    return dgrad_module(layer(**shape))


def numpy_dgrad(problem: DgradProblem, dy: np.ndarray, w_krsc: np.ndarray) -> np.ndarray:
    """dx[n,h,w,c] = sum over k,r,s of dy[n,p,q,k] w[k,r,s,c] with h = p*sh - pad_h + r (float64)."""
    p = problem
    dy, w_krsc = dy.astype(np.float64), w_krsc.astype(np.float64)
    dx = np.zeros((p.n, p.h, p.w, p.c))
    for r in range(p.r):
        rows = np.arange(p.p) * p.stride_h - p.pad_h + r
        row_ok = (rows >= 0) & (rows < p.h)
        for s in range(p.s):
            cols = np.arange(p.q) * p.stride_w - p.pad_w + s
            col_ok = (cols >= 0) & (cols < p.w)
            contribution = np.einsum("npqk,kc->npqc", dy[:, row_ok][:, :, col_ok], w_krsc[:, r, s, :])
            dx[:, rows[row_ok][:, None], cols[col_ok][None, :], :] += contribution
    return dx
