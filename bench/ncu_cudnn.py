"""Runs cuDNN's dgrad (torch convolution_backward, channels_last) for chosen ResNet-50 layers, with only the timed
call inside a profiler range, so Nsight Compute names and profiles the kernels cuDNN picked:

    ncu --profile-from-start off --clock-control none --section LaunchStats --section Occupancy \
        --section SpeedOfLight python3 bench/ncu_cudnn.py --layers s2_1x1_512_128_n256_f16 ...

Layer tags are those of iree_cutlass.workloads (bench/prepare_gpu.py); inputs are random, never zeros.
"""
from __future__ import annotations

import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", nargs="+", required=True, metavar="TAG")
    args = parser.parse_args()
    import torch
    from iree_cutlass.workloads import resnet50_layers
    layers = {layer.tag: layer for layer in resnet50_layers((8, 256), ("f16", "bf16"))}
    unknown = [tag for tag in args.layers if tag not in layers]
    if unknown:
        print(f"ncu_cudnn: unknown layer tags {unknown}", file=sys.stderr)
        return 2
    torch.backends.cudnn.benchmark = True
    for tag in args.layers:
        layer = layers[tag]
        dtype = {"f16": torch.float16, "bf16": torch.bfloat16}[layer.dtype]
        make = lambda *shape: torch.randn(*shape, device="cuda").to(dtype).contiguous(memory_format=torch.channels_last)
        dy, x, w = make(layer.n, layer.k, layer.p, layer.q), make(layer.n, layer.c, layer.h, layer.w), \
            make(layer.k, layer.c, layer.r, layer.r)
        run = lambda: torch.ops.aten.convolution_backward(dy, x, w, None, [layer.stride] * 2, [layer.pad] * 2,
                                                          [1, 1], False, [0, 0], 1, [True, False, False])
        for _ in range(5):   # the benchmark-mode search and warm-up, outside the profiled range
            run()
        torch.cuda.synchronize()
        print(f"[ncu_cudnn] {tag}", flush=True)
        torch.cuda.cudart().cudaProfilerStart()
        run()
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
