"""Python API: compile StableHLO to a vmfb with the dgrad plugin on, and run vmfbs on the IREE CUDA HAL.

    import iree_cutlass
    result = iree_cutlass.compile(jax.jit(f).lower(dy, w))          # or MLIR text, bytecode, a path
    print(result.report.summary())
    (dx,) = iree_cutlass.run(result.vmfb, dy_np, w_np)              # numpy in, numpy out
"""

from __future__ import annotations

import os
import pathlib
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from iree_cutlass.driver import CompileError, CompileResult, compile_source
from iree_cutlass.passes.report import Report

DEFAULT_TARGET = "sm_90"


class RunError(Exception):
    """A vmfb that cannot be loaded or called as asked; the message is one line."""


@dataclass
class Compiled:
    vmfb: bytes
    report: Report | None


def _source_bytes(source: Any) -> tuple[bytes, str]:
    """MLIR bytes and a name for diagnostics, from the forms users hold a module in."""
    if isinstance(source, pathlib.Path):
        try:
            return source.read_bytes(), str(source)
        except OSError as error:
            raise CompileError(f"cannot read '{source}': {error.strerror}") from None
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source), "source.mlir"
    if isinstance(source, str):
        return source.encode(), "source.mlir"
    if hasattr(source, "as_text"):  # jax.stages.Lowered: its StableHLO as text
        return source.as_text().encode(), "jax.mlir"
    raise CompileError(f"cannot compile a {type(source).__name__}: pass MLIR text, bytecode, a pathlib.Path "
                       "or a jax.jit(...).lower(...) result")


def compile(source: Any, *, target: str = DEFAULT_TARGET, flags: Sequence[str] = (), plugin: bool = True,
            compile_to: str = "end", cache_dir: os.PathLike | None = None, remarks: bool = False) -> Compiled:
    """Compiles a StableHLO (or linalg) module for the CUDA HAL; with `plugin`, dgrads go to CUTLASS.

    `target` is the GPU (`--iree-cuda-target`); `flags` are more iree-compile flags. Raises CompileError.
    """
    data, name = _source_bytes(source)
    all_flags = ["--iree-hal-target-device=cuda", f"--iree-cuda-target={target}", *flags]
    collected: list[str] = []
    result: CompileResult = compile_source(
        data, name, all_flags, plugin=plugin, compile_to=compile_to,
        cache_dir=pathlib.Path(cache_dir) if cache_dir else None,
        remark=(lambda line: print(line)) if remarks else collected.append)
    return Compiled(result.output, result.report)


class Module:
    """A vmfb loaded on one device; call its functions with numpy arrays, get numpy arrays back."""

    def __init__(self, vmfb: bytes, device: str = "cuda", runtime_flags: Sequence[str] = ()):
        import iree.runtime as ireert
        if runtime_flags:
            ireert.flags.parse_flags(*runtime_flags)
        try:
            self._config = ireert.Config(device)
            self._context = ireert.SystemContext(config=self._config)
            self._vm_module = ireert.VmModule.copy_buffer(self._context.instance, vmfb)
            self._context.add_vm_module(self._vm_module)
        except (RuntimeError, ValueError) as error:
            raise RunError(f"cannot load the module on '{device}': {_first_line(error)}") from None
        self._functions = self._context.modules[self._vm_module.name]

    def function_names(self) -> list[str]:
        return [f for f in self._vm_module.function_names if not f.startswith("__")]

    def __call__(self, *inputs: np.ndarray, function: str = "main") -> list[np.ndarray]:
        if function not in self.function_names():
            raise RunError(f"no function '{function}' (the module has: {', '.join(self.function_names())})")
        try:
            results = self._functions[function](*inputs)
        except (RuntimeError, ValueError, TypeError) as error:
            raise RunError(f"calling '{function}' failed: {_first_line(error)}") from None
        if not isinstance(results, (tuple, list)):
            results = (results,)
        return [np.asarray(r.to_host() if hasattr(r, "to_host") else r) for r in results]


def _first_line(error: Exception) -> str:
    lines = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    return lines[0] if lines else type(error).__name__


def run(vmfb: bytes, *inputs: np.ndarray, function: str = "main", device: str = "cuda") -> list[np.ndarray]:
    """Loads `vmfb` on `device`, calls `function` once with numpy inputs, returns numpy outputs."""
    return Module(vmfb, device)(*inputs, function=function)
