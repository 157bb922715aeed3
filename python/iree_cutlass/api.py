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

from iree_cutlass.driver import CompileError, CompileResult, compile_source, parse_card, parse_kernel_families
from iree_cutlass.passes.report import Report
from iree_cutlass.plugin.select import DEFAULT_CARD
from iree_cutlass.runtime import Module, RunError, run

DEFAULT_TARGET = "sm_90"


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
            compile_to: str = "end", cache_dir: os.PathLike | None = None, remarks: bool = False,
            kernels: str = "auto", card: str = DEFAULT_CARD) -> Compiled:
    """Compiles a StableHLO (or linalg) module for the CUDA HAL; with `plugin`, dgrads go to CUTLASS.

    `target` is the GPU (`--iree-cuda-target`); `flags` are more iree-compile flags; `kernels` is the
    --iree-cutlass-kernels choice (auto, sm80, sm90, sm90_gemm); `card` is the --iree-cutlass-card choice, whose
    tuning table picks each kernel (h100, h200). Raises CompileError.
    """
    data, name = _source_bytes(source)
    all_flags = ["--iree-hal-target-device=cuda", f"--iree-cuda-target={target}", *flags]
    collected: list[str] = []
    result: CompileResult = compile_source(
        data, name, all_flags, plugin=plugin, compile_to=compile_to,
        cache_dir=pathlib.Path(cache_dir) if cache_dir else None, kernel_families=parse_kernel_families(kernels),
        card=parse_card(card),
        remark=(lambda line: print(line)) if remarks else collected.append)
    return Compiled(result.output, result.report)

__all__ = ["Compiled", "Module", "RunError", "compile", "run"]
