"""Prints, space-separated, the warpgroup-offset kernels (sm90 `wg_offset`, session 18) to measure beside what
ships: for every batch-256 layer, f16 and bf16, the shipped kernel and each kernel within WITHIN of the best of an
earlier tune (at most CAP a layer, nearest first), each as a cooperative kernel whose warpgroups never meet in the
epilogue (its own warpgroup or warp stores, else warpgroup stores added), with warpgroup 1 started 1, 2 and 3 K
blocks behind (those under its stage count), and that kernel without the offset (the same-run baseline of a
kernel that stores differently today). Only kernels that are candidates of their layer are printed.

    python3 bench/plans/session18/offset_twins.py 0.03 3
"""
import pathlib
import sys

from iree_cutlass.plugin import sm90
from iree_cutlass.plugin.select import select_kernel

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "session16"))
from near_best import near_best_per_layer  # noqa: E402


def decoupled(config):
    """`config` as a cooperative kernel whose two consumer warpgroups never wait for each other in the epilogue, or
    None where Sm90Config's own checks refuse that (transposed, no store ring, split-K)."""
    if config.family != sm90.FAMILY or config.schedule != "cooperative":
        return None
    if config.wg_stores or config.warp_stores:
        return config
    return sm90.twin(config, wg_stores=True, thread_stores=False)


def offset_twins(config) -> list:
    """`config` decoupled, without and with each head start of sm90.WG_OFFSETS that its checks accept."""
    base = decoupled(config)
    if base is None:
        return []
    return [base] + [t for d in sm90.WG_OFFSETS if (t := sm90.twin(base, wg_offset=d)) is not None]


def main() -> int:
    within, cap = float(sys.argv[1]), int(sys.argv[2])
    chosen = set()
    for problem, candidates, ranked in near_best_per_layer(within):
        sources = [select_kernel(problem, arch="sm_90")] + [candidates[e] for e in ranked[:cap]]
        chosen |= {t.name for s in sources for t in offset_twins(s) if t.name in candidates}
    print(" ".join(sorted(chosen)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
