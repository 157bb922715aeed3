"""GPU time of a call, measured from CUDA graphs: `calls` back-to-back launches captured once and replayed
between two events, so the host's launch cost is not in the figure.

A loop of host launches between two events (what kernel loops measure) is bound by the host once a kernel
runs shorter than its launch path: about 10 us for a CuPy RawKernel call and 20-40 us for a torch
convolution_backward call on the H200 machine, which is what every batch-8 layer takes."""

from __future__ import annotations

import statistics


def cupy_graph_ms(launch, rounds: int = 7, calls: int = 20) -> float:
    """Median per-call milliseconds of `launch()` (CuPy work on the current stream) replayed from a graph."""
    import cupy as cp
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        launch()                        # loads the module and warms caches outside the capture
        stream.synchronize()
        stream.begin_capture()
        for _ in range(calls):
            launch()
        graph = stream.end_capture()
        graph.launch(stream)
        stream.synchronize()
        times = []
        for _ in range(rounds):
            start, end = cp.cuda.Event(), cp.cuda.Event()
            start.record(stream)
            graph.launch(stream)
            end.record(stream)
            end.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, end) / calls)
    return statistics.median(times)


def torch_graph_ms(torch, run, rounds: int = 7, calls: int = 20) -> float:
    """Median per-call milliseconds of `run()` (torch work) replayed from a torch CUDA graph. `run` is warmed
    on a side stream first, so cuDNN's benchmark-mode algorithm search happens before the capture."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            run()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            run()
    graph.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(rounds):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / calls)
    return statistics.median(times)
