"""Running vmfbs on the IREE CUDA HAL with numpy in and out (needs only the iree-base-runtime wheel)."""

from __future__ import annotations

from typing import Sequence

import numpy as np


class RunError(Exception):
    """A vmfb that cannot be loaded or called as asked; the message is one line."""


_CONFIGS: dict = {}

# How modules run on the CUDA HAL. IREE 3.13 allocates each call's results from stream-ordered memory pools whose
# release threshold is 0 (no flag sets it), so the pool hands its memory back at every synchronization and the
# next call maps it again: on an H200 a batch-256 dgrad (411 MB dx, kernel 0.16 ms) took 1.35 ms per call.
# Synchronous allocations through IREE's caching allocator reuse freed buffers instead: 0.22 ms for that call,
# and 1.3x (batch 8) / 1.15x (batch 256) of kernel time amortized over 16 dgrads, against 1.9x / 4.4x
# (bench/results/h200_2026-12-02_session3.json). A one-dgrad call at batch 8 costs ~0.01 ms more.
CUDA_RUNTIME_FLAGS = ("--cuda_async_allocations=false",)
CUDA_ALLOCATORS = ("caching",)


def _device_config(device: str, tuned: bool = True):
    """One runtime configuration (driver and device) per device name, shared by every module loaded on it. The
    CUDA device gets the settings above unless `tuned` is false (IREE's defaults)."""
    import iree.runtime as ireert
    key = (device, tuned)
    if key not in _CONFIGS:
        if tuned and device == "cuda":
            # The CUDA driver reads these flags when it is created (it is then cached by the runtime).
            ireert.flags.parse_flags(*CUDA_RUNTIME_FLAGS)
            driver = ireert.get_driver(device)
            _CONFIGS[key] = ireert.Config(device=driver.create_default_device(allocators=list(CUDA_ALLOCATORS)))
        else:
            _CONFIGS[key] = ireert.Config(device)
    return _CONFIGS[key]


class Module:
    """A vmfb loaded on one device; call its functions with numpy arrays, get numpy arrays back."""

    def __init__(self, vmfb: bytes, device: str = "cuda", runtime_flags: Sequence[str] = (),
                 tuned_runtime: bool = True):
        """`runtime_flags` are IREE runtime flags (they apply to drivers created after them); `tuned_runtime`
        false keeps IREE's own CUDA allocation settings instead of CUDA_RUNTIME_FLAGS and CUDA_ALLOCATORS."""
        import iree.runtime as ireert
        if runtime_flags:
            ireert.flags.parse_flags(*runtime_flags)
        try:
            self._config = _device_config(device, tuned_runtime)
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
            vm_function = self._vm_module.lookup_function(function)
            if vm_function.reflection.get("iree.abi.model") == "coarse-fences":
                results = self._call_with_fences(vm_function, inputs)
            else:
                results = self._functions[function](*inputs)
        except (RuntimeError, ValueError, TypeError) as error:
            raise RunError(f"calling '{function}' failed: {_first_line(error)}") from None
        if not isinstance(results, (tuple, list)):
            results = (results,)
        return [np.asarray(r.to_host() if hasattr(r, "to_host") else r) for r in results]

    def _call_with_fences(self, vm_function, inputs: Sequence[np.ndarray]) -> list:
        """A function compiled with --iree-execution-model=async-external takes a wait and a signal fence after its
        arguments: it waits on nothing here and is waited for before its results are read."""
        import iree.runtime as ireert
        device = self._config.device
        arguments = ireert.VmVariantList(len(inputs) + 2)
        for array in inputs:
            arguments.push_ref(ireert.asdevicearray(device, np.asarray(array))._buffer_view)
        done = ireert.HalFence.create_at(device.create_semaphore(0), 1)
        arguments.push_ref(ireert.HalFence(1))  # a fence with no timepoints is already reached
        arguments.push_ref(done)
        results = ireert.VmVariantList(1)
        self._context.vm_context.invoke(vm_function, arguments, results)
        done.wait()
        return [ireert.DeviceArray(device, results.get_as_object(index, ireert.HalBufferView),
                                   implicit_host_transfer=True) for index in range(results.size)]


def _first_line(error: Exception) -> str:
    lines = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    return lines[0] if lines else type(error).__name__


def run(vmfb: bytes, *inputs: np.ndarray, function: str = "main", device: str = "cuda") -> list[np.ndarray]:
    """Loads `vmfb` on `device`, calls `function` once with numpy inputs, returns numpy outputs."""
    return Module(vmfb, device)(*inputs, function=function)
