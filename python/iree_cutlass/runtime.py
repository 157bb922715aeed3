"""Running vmfbs on the IREE CUDA HAL with numpy in and out (needs only the iree-base-runtime wheel)."""

from __future__ import annotations

from typing import Sequence

import numpy as np


class RunError(Exception):
    """A vmfb that cannot be loaded or called as asked; the message is one line."""


_CONFIGS: dict = {}


def _device_config(device: str):
    """One runtime configuration (driver and device) per device name, shared by every module loaded on it."""
    import iree.runtime as ireert
    if device not in _CONFIGS:
        _CONFIGS[device] = ireert.Config(device)
    return _CONFIGS[device]


class Module:
    """A vmfb loaded on one device; call its functions with numpy arrays, get numpy arrays back."""

    def __init__(self, vmfb: bytes, device: str = "cuda", runtime_flags: Sequence[str] = ()):
        import iree.runtime as ireert
        if runtime_flags:
            ireert.flags.parse_flags(*runtime_flags)
        try:
            self._config = _device_config(device)
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
