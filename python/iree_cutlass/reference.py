"""The float64 dgrad every check compares against, for numpy or CuPy arrays alike."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np


def dgrad_reference(problem, dy, w_krsc, xp=np):
    """dx[n,h,w,c] = sum over k,r,s of dy[n,p,q,k] * w_krsc[k,r,s,c] with h = p*stride_h - pad_h + r and
    w = q*stride_w - pad_w + s, in float64: one matrix product per filter tap.

    `problem` is a DgradProblem or a dict of its fields; `xp` is numpy or cupy (the arrays' module).
    """
    p = SimpleNamespace(**problem) if isinstance(problem, dict) else problem
    dy, w_krsc = dy.astype(xp.float64), w_krsc.astype(xp.float64)
    dx = xp.zeros((p.n, p.h, p.w, p.c), dtype=xp.float64)
    for r in range(p.r):
        rows = np.arange(p.p) * p.stride_h - p.pad_h + r
        row_ok = np.nonzero((rows >= 0) & (rows < p.h))[0]
        for s in range(p.s):
            cols = np.arange(p.q) * p.stride_w - p.pad_w + s
            col_ok = np.nonzero((cols >= 0) & (cols < p.w))[0]
            if len(row_ok) == 0 or len(col_ok) == 0:
                continue
            taps = dy[:, xp.asarray(row_ok)][:, :, xp.asarray(col_ok)] @ w_krsc[:, r, s, :]
            # Distinct dy rows land on distinct dx rows for one tap, so this read-add-write has no collisions.
            dx[:, xp.asarray(rows[row_ok])[:, None], xp.asarray(cols[col_ok])[None, :], :] += taps
    return dx
