"""iree-cutlass: offload convolution backward-data (dgrad) to CUTLASS kernels inside IREE.

    import iree_cutlass
    compiled = iree_cutlass.compile(jax.jit(f).lower(dy, w))   # StableHLO text, bytecode or a Path work too
    print(compiled.report.summary())
    (dx,) = iree_cutlass.run(compiled.vmfb, dy, w)              # numpy in, numpy out, on the CUDA HAL
"""

_API = {"Compiled", "compile"}
_RUNTIME = {"Module", "RunError", "run"}
__all__ = sorted(_API | _RUNTIME | {"CompileError"})


def __getattr__(name):
    # Imported on first use, so that modules with no compiler needs (workloads, jax_models) load on machines
    # that have only the IREE runtime.
    if name in _RUNTIME:
        from iree_cutlass import runtime
        return getattr(runtime, name)
    if name in _API:
        from iree_cutlass import api
        return getattr(api, name)
    if name == "CompileError":
        from iree_cutlass.driver import CompileError
        return CompileError
    raise AttributeError(f"module 'iree_cutlass' has no attribute {name!r}")
