"""Prints, space-separated, the warp-store kernels (sm90 `warp_stores`, session 17) to measure beside what ships:
for every batch-256 layer, f16 and bf16, the warp-store twin of the shipped kernel and of each kernel within
WITHIN of the best of an earlier tune (at most CAP a layer, nearest first), where the kernel has a TMA-stored ring
and the twin is one of the layer's candidates. A twin is the same kernel with warp stores in place of its
single-storer, warpgroup or thread stores.

    python3 bench/plans/session17/warp_twins.py 0.03 4
"""
import dataclasses
import pathlib
import sys

from iree_cutlass.plugin import sm90
from iree_cutlass.plugin.select import select_kernel

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "session16"))
from near_best import near_best_per_layer  # noqa: E402


def warp_twin(config):
    """`config` storing through warp stores, or None where warp stores do not apply to it (Sm90Config's own
    checks refuse them: no ring, transposed, split-K)."""
    if config.family != sm90.FAMILY:
        return None
    try:
        return dataclasses.replace(config, wg_stores=False, thread_stores=False, warp_stores=True)
    except ValueError:
        return None


def main() -> int:
    within, cap = float(sys.argv[1]), int(sys.argv[2])
    chosen = set()
    for problem, candidates, ranked in near_best_per_layer(within):
        sources = [select_kernel(problem, arch="sm_90")] + [candidates[e] for e in ranked]
        twins = [t for t in map(warp_twin, sources) if t is not None and t.name in candidates]
        chosen |= {t.name for t in list(dict.fromkeys(twins))[:cap + 1]}
    print(" ".join(sorted(chosen)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
