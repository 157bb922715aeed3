"""Prints, space-separated, every warp-store kernel without a cluster that hides its epilogue behind another
warpgroup's or CTA's MMAs (ping-pong, or two CTAs an SM) among the batch-256 layers' candidates, f16 and bf16
(clusters left out to fit the build into the session; none of call A's gains had one): call A found warp stores
faster only in such kernels (ping-pong 128x64 on the 1x1 64<-64 layer, 64x256 on the 3x3 512<-512 at 7x7), and
slower by 0.5-4% as the twin of every cooperative ring that ships.

    python3 bench/plans/session17/pingpong_warp.py
"""
import sys

from iree_cutlass.plugin import sm90
from iree_cutlass.workloads import dgrad_problem, resnet50_layers


def main() -> int:
    names = {c.name for layer in resnet50_layers(batches=(256,)) for c in sm90.candidate_configs(dgrad_problem(layer))
             if c.warp_stores and (c.schedule == "pingpong" or c.ctas_per_sm == 2) and c.cluster == 1}
    print(" ".join(sorted(names)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
