"""Launching one of our fatbins outside IREE, exactly as IREE's CUDA HAL does (bindings, then 32-bit constants),
through CuPy: for kernel-only timing, tuning and sanitizer runs on a GPU machine. Needs cupy and numpy only."""

from __future__ import annotations

import pathlib
import statistics

import numpy as np

# Quiet NaN bit patterns: dx is filled with them first, so an element the kernel never writes stays NaN.
POISON_BITS = {"f16": 0x7E00, "bf16": 0x7FC0, "f32": 0x7FC00000}

# Where each filter layout's dimensions sit in KRSC (the reference layout of the checks).
_FROM_KRSC = {"krsc": (0, 1, 2, 3), "rsck": (1, 2, 3, 0)}


def filter_in_layout(w_krsc: np.ndarray, layout: str) -> np.ndarray:
    """The filter, given as [K, R, S, C], in the kernel's binding layout ("krsc" or "rsck"), contiguous."""
    return np.ascontiguousarray(np.transpose(w_krsc, _FROM_KRSC[layout]))


class KernelLauncher:
    """One loaded kernel: `launch` runs it once, `time_ms` gives the median of CUDA-event loops of host launches,
    `graph_time_ms` that of CUDA-graph replays.

    `record` is kernels.launch_record(...) plus the fatbin it was built into; a kernel with a workspace gets
    one allocated here, as IREE allocates the dispatch's second result."""

    def __init__(self, fatbin: pathlib.Path, record: dict):
        import cupy
        self.cupy = cupy
        self.module = cupy.RawModule(path=str(fatbin))
        self.function = self.module.get_function(record["entry"])
        self.function.max_dynamic_shared_size_bytes = record["smem_bytes"]
        self.grid, self.block = tuple(record["grid"]), tuple(record["block"])
        self.smem_bytes = record["smem_bytes"]
        self.constants = tuple(np.uint32(c) for c in record["constants"])
        self.filter_layout = record.get("filter_layout", "krsc")
        workspace = record.get("workspace_bytes", 0)
        self.workspace = cupy.zeros(workspace, dtype=cupy.uint8) if workspace else None

    def launch(self, dy_d, w_d, dx_d) -> None:
        """dy [N,P,Q,K], the filter in `self.filter_layout`, dx [N,H,W,C], all on the device."""
        bindings = (dy_d, w_d, dx_d) + ((self.workspace,) if self.workspace is not None else ())
        self.function(self.grid, self.block, (*bindings, *self.constants), shared_mem=self.smem_bytes)

    def time_ms(self, dy_d, w_d, dx_d, rounds: int = 7, calls: int = 20) -> float:
        cp = self.cupy
        for _ in range(3):
            self.launch(dy_d, w_d, dx_d)
        cp.cuda.Device().synchronize()
        times = []
        for _ in range(rounds):
            start, end = cp.cuda.Event(), cp.cuda.Event()
            start.record()
            for _ in range(calls):
                self.launch(dy_d, w_d, dx_d)
            end.record()
            end.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, end) / calls)
        return statistics.median(times)

    def rotating_time_ms(self, dys, w_d, dxs, rounds: int = 7, graph: bool = False) -> float:
        """Per-launch milliseconds of one pass over len(dys) launches, launch i reading dys[i] and writing
        dxs[i]: what IREE's amortized module does with its separate buffers, which the single-buffer loops of
        `time_ms` hide by keeping dy (and dx) in L2 between launches."""
        def launch_all():
            for dy_d, dx_d in zip(dys, dxs):
                self.launch(dy_d, w_d, dx_d)
        if graph:
            from iree_cutlass.timing import cupy_graph_ms
            return cupy_graph_ms(launch_all, rounds=rounds, calls=1) / len(dys)
        cp = self.cupy
        launch_all()
        cp.cuda.Device().synchronize()
        times = []
        for _ in range(rounds):
            start, end = cp.cuda.Event(), cp.cuda.Event()
            start.record()
            launch_all()
            end.record()
            end.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, end) / len(dys))
        return statistics.median(times)

    def graph_time_ms(self, dy_d, w_d, dx_d, rounds: int = 7, calls: int = 20) -> float:
        """The kernel's GPU time per launch, replayed from a CUDA graph (timing.py: without the host's launch
        cost, which bounds `time_ms` for kernels under ~10 us)."""
        from iree_cutlass.timing import cupy_graph_ms
        return cupy_graph_ms(lambda: self.launch(dy_d, w_d, dx_d), rounds=rounds, calls=calls)


def bits_dtype(dtype: str):
    """The unsigned integer type that holds one element's bit pattern (cupy has no bf16 type)."""
    return np.uint32 if dtype == "f32" else np.uint16


def poisoned_output(shape, dtype: str):
    """A device array of NaN bit patterns (uint16, or uint32 for f32) in the shape of dx."""
    import cupy
    return cupy.full(shape, POISON_BITS[dtype], dtype=bits_dtype(dtype))


def as_float64(bits, dtype: str):
    """Device data as bit patterns (uint16; uint32 for f32) widened to float64 on the device."""
    import cupy
    if dtype == "f32":
        return bits.view(cupy.float32).astype(cupy.float64)
    if dtype == "f16":
        return bits.view(cupy.float16).astype(cupy.float64)
    return (bits.astype(cupy.uint32) << 16).view(cupy.float32).astype(cupy.float64)
