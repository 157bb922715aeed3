"""CPU checks of the sm90 kernel family: its tile walk, phase decomposition and box choice, emulated in numpy.

The emulation follows plugin/sm90_dgrad.cuh step by step (TileWalk::decode, the producer's TMA coordinates with
zero fill off the edges of dy, the epilogue's row -> dx mapping), so a wrong phase, tap or offset formula shows
up here as a wrong dx, without a GPU.
"""
import dataclasses
import random

import numpy as np
import pytest

from iree_cutlass.plugin import sm90
from iree_cutlass.plugin.kernels import launch, supports
from iree_cutlass.plugin.problem import DgradProblem
from iree_cutlass.reference import dgrad_reference


def tma_box(dy: np.ndarray, n0: int, p0: int, q0: int, box: sm90.Box) -> np.ndarray:
    """dy[n0:n0+bn, p0:p0+bh, q0:q0+bw, :] with zeros wherever the box leaves dy (TMA's zero fill)."""
    n, p, q, k = dy.shape
    out = np.zeros((box.n, box.h, box.w, k))
    for bn in range(box.n):
        for bh in range(box.h):
            for bw in range(box.w):
                nn, pp, qq = n0 + bn, p0 + bh, q0 + bw
                if 0 <= nn < n and 0 <= pp < p and 0 <= qq < q:
                    out[bn, bh, bw] = dy[nn, pp, qq]
    return out


@dataclasses.dataclass(frozen=True)
class WalkTile:
    """One tile of the persistent walk, as TileWalk::decode gives it for a unit and a CTA rank of its cluster."""
    unit: int
    rank: int
    ph: int            # the output phase
    pw: int
    rows: int          # the phase's extent
    cols: int
    n0: int            # first image, phase row, phase column and channel
    i0: int
    j0: int
    c0: int
    live: bool         # the tile lies inside its phase (it has something to store)


def walk(config: sm90.Sm90Config, prob: DgradProblem) -> tuple[DgradProblem, sm90.Box, list[WalkTile]]:
    """The problem as the kernel walks it (its push constants), its box, and every tile of the walk in order,
    checked against the divisors the host passes; no tile decoded twice."""
    constants = launch(config, prob).constants
    box = sm90.Box(*constants[13:16])
    d = DgradProblem(*constants[:13], prob.dtype)
    # A transposed or flat kernel walks a 1x1 unit-stride problem as rows of flat pixels (sm90.kernel_problem).
    assert d == sm90.kernel_problem(config, prob)
    assert d == prob or ((config.transposed or config.flat) and d.n * d.h * d.w == prob.n * prob.h * prob.w)
    rows_max, cols_max = -(-d.h // d.stride_h), -(-d.w // d.stride_w)
    tiles_c = -(-d.c // config.channel_unit)   # channel units: one tile, or a dy-sharing cluster's two
    tiles_n, tiles_h, tiles_w = -(-d.n // box.n), -(-rows_max // box.h), -(-cols_max // box.w)
    # The divisors the kernel decodes with (push constants 17..34) are the walk's own extents; the walk covers
    # phase (0, 0) alone where the kernel zero-fills the others (TileWalk::zero_fill).
    phases = constants[20]
    zero_fill = phases == 1 and d.stride_h * d.stride_w > 1
    assert zero_fill == sm90.zero_fills(d)
    assert list(constants[17:35:3]) == [tiles_c, phases if zero_fill else d.stride_h * d.stride_w, tiles_w,
                                        tiles_h, d.stride_h, d.stride_w]
    tiles_m = tiles_w * tiles_h * tiles_n
    count = tiles_c * phases * -(-tiles_m // config.cluster_m)
    assert count == sm90.unit_count(config, d, box)
    decoded, tiles = set(), []
    for index, rank in ((u, r) for u in range(count) for r in range(config.cluster)):
        rest = index
        cn, rest = rest % tiles_c, rest // tiles_c
        phase, rest = rest % phases, rest // phases
        rank_m, rank_c = (0, rank) if config.share_dy else (rank, 0)
        m = rest * config.cluster_m + rank_m
        if config.clip_taps:
            # Images fastest, then box columns and rows, each with the border boxes last (TileWalk::border_last).
            tn, m = m % tiles_n, m // tiles_n
            tw, th = border_last(m % tiles_w, tiles_w), border_last(m // tiles_w, tiles_h)
        else:
            tw, m = m % tiles_w, m // tiles_w
            th, tn = m % tiles_h, m // tiles_h
        assert (cn, rank_c, phase, tn, th, tw) not in decoded, "a tile decoded twice"
        decoded.add((cn, rank_c, phase, tn, th, tw))
        ph, pw = phase // d.stride_w, phase % d.stride_w
        rows = len(range(ph, d.h, d.stride_h))
        cols = len(range(pw, d.w, d.stride_w))
        n0, i0, j0 = tn * box.n, th * box.h, tw * box.w
        c0 = (cn * config.channel_unit // config.tile_n + rank_c) * config.tile_n
        tiles.append(WalkTile(index, rank, ph, pw, rows, cols, n0, i0, j0, c0,
                              i0 < rows and j0 < cols and n0 < d.n and c0 < d.c))
    return d, box, tiles


def emulate(config: sm90.Sm90Config, prob: DgradProblem, dy: np.ndarray, w_rsck: np.ndarray) -> np.ndarray:
    """dx as the kernel computes it (the problem its push constants describe); NaN where no tile writes."""
    d, box, tiles = walk(config, prob)
    dy = dy.reshape(d.n, d.p, d.q, d.k)
    dx = np.full((d.n, d.h, d.w, d.c), np.nan)
    for t in (t for t in tiles if t.live):
        channels = slice(t.c0, min(t.c0 + config.tile_n, d.c))
        if config.halo_blocks:
            acc = halo_tile(config, d, dy, w_rsck, t.n0, t.i0, t.j0, channels, box)
        else:
            acc = streamed_tile(config, d, dy, w_rsck, t.n0, t.i0, t.j0, channels, box, t.ph, t.pw)
        # The tile's rows in the kernel's order (m = (bn * box.h + bh) * box.w + bw), stored box by box.
        tile_rows = acc.reshape(box.n * box.h * box.w, config.tile_n)
        for (on, oh, ow), part, first_row in store_boxes(config, box):
            for bn in range(part.n):
                for bh in range(part.h):
                    for bw in range(part.w):
                        n, i, j = t.n0 + on + bn, t.i0 + oh + bh, t.j0 + ow + bw
                        row = first_row + (bn * part.h + bh) * part.w + bw
                        if n < d.n and i < t.rows and j < t.cols:
                            dx[n, i * d.stride_h + t.ph, j * d.stride_w + t.pw, channels] = \
                                tile_rows[row, :channels.stop - t.c0]
    if sm90.zero_fills(d):
        zero_fill_phases(dx, d, launch(config, prob).grid[0])
    return dx.reshape(prob.n, prob.h, prob.w, prob.c)


def border_last(i: int, count: int) -> int:
    """TileWalk::border_last: box index i of `count` with the interior boxes first, then the first, then the last."""
    return i + 1 if i < count - 2 else 0 if i == count - 2 else count - 1


def tile_taps(config, d, i0, j0, box, ph, pw) -> tuple[int, int, int, int, int, int]:
    """TileWalk::decode's taps of a tile: (r_first, taps_h, dy_row0, s_first, taps_w, dy_col0); with clip_taps
    without the taps whose dy rows (or columns) all lie outside dy for the box's stored rows (columns)."""
    r_first, s_first = (ph + d.pad_h) % d.stride_h, (pw + d.pad_w) % d.stride_w
    dy_row0, dy_col0 = (ph + d.pad_h) // d.stride_h, (pw + d.pad_w) // d.stride_w
    taps_h = (d.r - 1 - r_first) // d.stride_h + 1 if r_first < d.r else 0
    taps_w = (d.s - 1 - s_first) // d.stride_w + 1 if s_first < d.s else 0
    if config.clip_taps:
        rows, cols = len(range(ph, d.h, d.stride_h)), len(range(pw, d.w, d.stride_w))
        lo_h, hi_h = max(0, i0 + dy_row0 - (d.p - 1)), min(taps_h - 1, min(i0 + box.h, rows) - 1 + dy_row0)
        lo_w, hi_w = max(0, j0 + dy_col0 - (d.q - 1)), min(taps_w - 1, min(j0 + box.w, cols) - 1 + dy_col0)
        r_first, s_first = r_first + lo_h * d.stride_h, s_first + lo_w * d.stride_w
        dy_row0, dy_col0 = dy_row0 - lo_h, dy_col0 - lo_w
        taps_h, taps_w = max(0, hi_h - lo_h + 1), max(0, hi_w - lo_w + 1)
    return r_first, taps_h, dy_row0, s_first, taps_w, dy_col0


def streamed_tile(config, d, dy, w_rsck, n0, i0, j0, channels, box, ph, pw) -> np.ndarray:
    """A tile's accumulator (box.n, box.h, box.w, tile_n) as the kernel computes it from a dy box a tap."""
    c0 = channels.start
    r_first, taps_h, dy_row0, s_first, taps_w, dy_col0 = tile_taps(config, d, i0, j0, box, ph, pw)
    # The (tap row, tap column, K block) iterations, split as the kernel's slice_begin splits them over the
    # split-K CTAs of a cluster (one CTA without split-K); each CTA's partial covers its slice.
    kblocks = -(-d.k // sm90.TILE_K)
    iterations = taps_h * taps_w * kblocks
    partials = []
    for split in range(config.split_k):
        partial = np.zeros((box.n, box.h, box.w, config.tile_n))
        for it in range(iterations * split // config.split_k, iterations * (split + 1) // config.split_k):
            kb, tap_index = it % kblocks, it // kblocks
            t_w, t_h = tap_index % taps_w, tap_index // taps_w
            r, s = r_first + t_h * d.stride_h, s_first + t_w * d.stride_w
            a = dy_tile(config, dy, n0, i0 + dy_row0 - t_h, j0 + dy_col0 - t_w, box)
            b = np.zeros((config.tile_n, d.k))
            b[:channels.stop - c0] = w_rsck[r, s, channels]
            ks = slice(kb * sm90.TILE_K, (kb + 1) * sm90.TILE_K)
            partial += a[..., ks] @ b[:, ks].T
        partials.append(partial)
    # 64-channel block b is summed and stored by the CTA of rank b % split_k, from every CTA's partial.
    acc = np.full((box.n, box.h, box.w, config.tile_n), np.nan)
    stored_by = np.zeros(config.split_k, dtype=int)
    for block in range(config.tile_n // sm90.TILE_K):
        block_channels = slice(block * sm90.TILE_K, (block + 1) * sm90.TILE_K)
        acc[..., block_channels] = sum(partial[..., block_channels] for partial in partials)
        stored_by[block % config.split_k] += 1
    assert stored_by.sum() == config.tile_n // sm90.TILE_K
    return acc


def halo_tile(config, d, dy, w_rsck, n0, i0, j0, channels, box) -> np.ndarray:
    """A halo tile's accumulator as the kernel computes it: per K block one halo box (the tile's rows and the R - 1
    above them, from tap (R - 1, S - 1)'s column) as pixel rows at the start of a stage of halo_rows rows, whose
    rows past the halo hold NaN (whatever shared memory held: only junk columns may read them), and each tap
    multiplying tile_m rows of the stage from its shift."""
    assert box.n == 1 and d.stride_h == d.stride_w == 1 and box.w >= d.w + d.s - 1
    halo_box = sm90.Box(1, box.h + d.r - 1, box.w)
    acc = np.zeros((config.tile_m, config.tile_n))
    for kb in range(-(-d.k // sm90.TILE_K)):
        ks = slice(kb * sm90.TILE_K, (kb + 1) * sm90.TILE_K)
        stage = np.full((config.halo_rows, d.k), np.nan)
        halo = tma_box(dy, n0, i0 + d.pad_h - (d.r - 1), j0 + d.pad_w - (d.s - 1), halo_box).reshape(-1, d.k)
        stage[:len(halo)] = halo
        for r in range(d.r):
            for s in range(d.s):
                shift = (d.r - 1 - r) * box.w + (d.s - 1 - s)
                assert shift + config.tile_m <= config.halo_rows
                b = np.zeros((config.tile_n, d.k))
                b[:channels.stop - channels.start] = w_rsck[r, s, channels]
                acc += stage[shift:shift + config.tile_m, ks] @ b[:, ks].T
    return acc.reshape(box.n, box.h, box.w, config.tile_n)


def zero_fill_phases(dx: np.ndarray, d: DgradProblem, ctas: int) -> None:
    """The kernel's zero_fill_phases over a flat dx, chunk by chunk (8 channels each), for every CTA; a chunk
    written twice or inside phase (0, 0) is an error."""
    flat = dx.reshape(-1)
    written = np.zeros(flat.size // 8, dtype=bool)
    chunks_per_pixel = d.c // 8
    zero_cols = d.w - -(-d.w // d.stride_w)
    gaps = d.stride_w - 1
    for cta in range(ctas):
        for row in range(cta, d.n * d.h, ctas):
            base = row * d.w * chunks_per_pixel
            if (row % d.h) % d.stride_h:
                chunks = [base + j for j in range(d.w * chunks_per_pixel)]
            else:
                chunks = []
                for j in range(zero_cols * chunks_per_pixel):
                    z = j // chunks_per_pixel
                    col = z // gaps * d.stride_w + 1 + z % gaps
                    assert col % d.stride_w
                    chunks.append(base + col * chunks_per_pixel + j - z * chunks_per_pixel)
            for chunk in chunks:
                assert not written[chunk] and np.isnan(flat[chunk * 8:chunk * 8 + 8]).all()
                written[chunk] = True
                flat[chunk * 8:chunk * 8 + 8] = 0.0


def half_box(box: sm90.Box) -> tuple[sm90.Box, tuple[int, int, int]]:
    """HalfBox in the kernel: the box cut in two along images, else rows, else columns; the second half's
    offset."""
    if box.n >= 2:
        return sm90.Box(box.n // 2, box.h, box.w), (box.n // 2, 0, 0)
    if box.h >= 2:
        return sm90.Box(box.n, box.h // 2, box.w), (0, box.h // 2, 0)
    return sm90.Box(box.n, box.h, box.w // 2), (0, 0, box.w // 2)


def dy_tile(config: sm90.Sm90Config, dy: np.ndarray, n0: int, p0: int, q0: int, box: sm90.Box) -> np.ndarray:
    """The dy tile in shared memory: one box, or in a dy-sharing cluster the two half boxes its CTAs load, one
    after the other in the tile's rows."""
    if not config.share_dy:
        return tma_box(dy, n0, p0, q0, box)
    half, (on, oh, ow) = half_box(box)
    rows = [tma_box(dy, n0 + r * on, p0 + r * oh, q0 + r * ow, half).reshape(-1, dy.shape[3]) for r in range(2)]
    return np.concatenate(rows).reshape(box.n, box.h, box.w, dy.shape[3])


def warp_slice(box: sm90.Box, row0: int) -> tuple[sm90.Box, tuple[int, int, int]]:
    """DgradKernel::warp_slice: the 16 tile rows from row0 as a box (columns, then rows, then images) and its
    offset in the tile's box."""
    w = min(box.w, 16)
    h = min(box.h, 16 // w)
    return sm90.Box(16 // (w * h), h, w), (row0 // (box.w * box.h), row0 // box.w % box.h, row0 % box.w)


def store_boxes(config: sm90.Sm90Config, box: sm90.Box):
    """(offset, box, first tile row) of each dx TMA store of a tile: the whole box; with warpgroup stores the
    half box of each warpgroup; with warp stores, for each consumer warp, the 16-row box of every 64-row MMA slice
    it holds (WarpSlices::make)."""
    if config.warp_stores:
        stores = []
        pingpong = config.schedule == "pingpong"
        for mma_thread in range(0, 128 if pingpong else 256, 32):
            first_row = (0 if pingpong else mma_thread // 128 * 64) + mma_thread % 128 // 32 * 16
            for i in range(config.rows_per_warpgroup // 64):
                row0 = first_row + i * (64 if pingpong else 128)
                part, offset = warp_slice(box, row0)
                stores.append((offset, part, row0))
        assert sorted(row0 for _, _, row0 in stores) == list(range(0, config.tile_m, 16))
        return stores
    if not config.wg_stores:
        return [((0, 0, 0), box, 0)]
    half, offset = half_box(box)
    return [((0, 0, 0), half, 0), (offset, half, config.tile_m // 2)]


def random_inputs(prob: DgradProblem, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """dy (N, P, Q, K) and the filter (K, R, S, C), standard normal."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal((prob.n, prob.p, prob.q, prob.k)), rng.standard_normal((prob.k, prob.r, prob.s, prob.c))


def assert_walk_matches_reference(config: sm90.Sm90Config, prob: DgradProblem, seed: int) -> None:
    """The emulated kernel writes every dx element, and the reference's values."""
    assert supports(config, prob) is None
    dy, w_krsc = random_inputs(prob, seed)
    dx = emulate(config, prob, dy, np.transpose(w_krsc, (1, 2, 3, 0)))
    assert not np.isnan(dx).any(), "some dx elements are written by no tile"
    np.testing.assert_allclose(dx, dgrad_reference(prob, dy, w_krsc), rtol=1e-10, atol=1e-10)


def random_problems(count: int, seed: int):
    rng = random.Random(seed)
    for _ in range(count):
        r = rng.choice([1, 1, 2, 3, 3, 5])
        s = rng.choice([r, r, 1, 3])
        stride_h, stride_w = rng.randint(1, 3), rng.randint(1, 3)
        pad_h, pad_w = rng.randint(0, r - 1), rng.randint(0, s - 1)
        h, w = rng.randint(max(1, r - 2 * pad_h), 13), rng.randint(max(1, s - 2 * pad_w), 13)
        p, q = (h + 2 * pad_h - r) // stride_h + 1, (w + 2 * pad_w - s) // stride_w + 1
        yield DgradProblem(rng.randint(1, 3), h, w, 8 * rng.randint(1, 5), 8 * rng.randint(1, 3), r, s, p, q,
                           pad_h, pad_w, stride_h, stride_w, "f16")


PROBLEMS = list(random_problems(24, 3)) + [
    DgradProblem(2, 8, 8, 16, 16, 1, 1, 4, 4, 0, 0, 2, 2, "f16"),      # 1x1/s2: three phases of zeros
    DgradProblem(1, 7, 9, 24, 8, 3, 3, 4, 5, 1, 1, 2, 2, "f16"),       # odd sizes, 3x3/s2
    DgradProblem(2, 5, 5, 8, 16, 3, 3, 5, 5, 1, 1, 1, 1, "f16"),       # unit stride, padded
    DgradProblem(1, 10, 10, 8, 8, 2, 2, 3, 3, 0, 0, 4, 4, "f16"),      # stride > filter: rows no tap reaches
    DgradProblem(2, 7, 9, 16, 8, 1, 1, 4, 5, 0, 0, 2, 2, "f16"),       # zero fill, odd sizes
    DgradProblem(1, 9, 6, 8, 8, 1, 1, 3, 6, 0, 0, 3, 1, "f16"),        # zero fill, whole rows only
    DgradProblem(2, 5, 10, 24, 16, 1, 1, 5, 4, 0, 0, 1, 3, "f16"),     # zero fill, columns only (two per gap)
]


@pytest.mark.parametrize("index", range(len(PROBLEMS)))
def test_emulated_warp_stores_match_reference(index):
    # Every schedule and tile height with warp stores (16-row boxes), on every problem: boxes of every shape
    # (the box follows the problem) and tiles off every edge.
    prob = PROBLEMS[index]
    shapes = [("cooperative", 128, 64, 1), ("cooperative", 256, 64, 2), ("pingpong", 64, 128, 1),
              ("pingpong", 128, 64, 1)]
    schedule, tile_m, tile_n, cluster = shapes[index % len(shapes)]
    config = sm90.Sm90Config("f16", tile_m, tile_n, 3, 1, schedule, cluster, store_slots=2, warp_stores=True)
    assert config.name.endswith("_e2_wp")
    assert_walk_matches_reference(config, prob, 300 + index)


@pytest.mark.parametrize("index", range(len(PROBLEMS)))
def test_emulated_walk_matches_reference(index):
    prob = PROBLEMS[index]
    # (schedule, tile_m, tile_n, cluster, warpgroup stores): the last with a 2-slot store ring.
    shapes = [("cooperative", 128, 128, 1, False), ("cooperative", 128, 64, 2, False),
              ("pingpong", 64, 128, 1, False), ("pingpong", 128, 64, 2, False), ("cooperative", 128, 256, 2, True)]
    schedule, tile_m, tile_n, cluster, wg_stores = shapes[index % len(shapes)]
    config = sm90.Sm90Config("f16", tile_m, tile_n, 3 if wg_stores else 4, 1, schedule, cluster,
                             store_slots=2 if wg_stores else 0, wg_stores=wg_stores)
    assert_walk_matches_reference(config, prob, index)


@pytest.mark.parametrize("index", range(len(PROBLEMS)))
def test_clipped_taps_walk_matches_reference(index):
    # Clipped taps (a tile skips the taps that read only padding) and their walk order, on every problem (padded
    # or not, strided, tiles off every edge), across schedules, a store ring with warp stores, a dy-sharing
    # cluster and transposed tiles.
    prob = PROBLEMS[index]
    configs = [sm90.Sm90Config("f16", 128, 128, 4, 1, clip_taps=True),
               sm90.Sm90Config("f16", 64, 256, 4, 1, "pingpong", store_slots=4, warp_stores=True, clip_taps=True),
               sm90.Sm90Config("f16", 128, 64, 4, 1, "pingpong", 2, share_dy=True, clip_taps=True),
               sm90.Sm90Config("f16", 256, 64, 3, 1, transposed=True, clip_taps=True)]
    config = configs[index % len(configs)]
    if supports(config, prob) is not None:
        config = configs[0]
    assert config.name.endswith("_ct")
    assert_walk_matches_reference(config, prob, 500 + index)


def test_clipped_taps_skip_the_padding_of_resnets_7x7_layer():
    # ResNet-50's 3x3 512<-512 layer at 7x7: one-pixel boxes of 64 images; the clipped walk multiplies 361 of every
    # 441 tap-pixels (19 x 19 of 21 x 21), and its order gives the 132 persistent CTAs of the 64x256 ping-pong
    # kernel at most 24 tap-tiles each where the unclipped walk gives some 27.
    prob = DgradProblem(256, 7, 7, 512, 512, 3, 3, 7, 7, 1, 1, 1, 1, "f16")
    config = sm90.Sm90Config("f16", 64, 256, 4, 1, "pingpong", store_slots=4, warp_stores=True, clip_taps=True)
    box = sm90.choose_box(config, prob)
    assert box == sm90.Box(64, 1, 1)
    taps = [tile_taps(config, prob, border_last(m // 4 // 7, 7), border_last(m // 4 % 7, 7), box, 0, 0)
            for m in range(4 * 49) for _ in range(2)]   # images fastest, two channel blocks each
    work = [t[1] * t[4] for t in taps]
    assert sum(work) == 2 * 4 * 361
    ctas = 132
    assert max(sum(work[cta::ctas]) for cta in range(ctas)) == 24


def test_clipped_taps_limits():
    with pytest.raises(ValueError, match="clipped taps"):
        sm90.Sm90Config("f16", 128, 128, 4, 1, cluster=2, clip_taps=True)   # an M cluster shares one tap's filter
    with pytest.raises(ValueError, match="clipped taps"):
        sm90.Sm90Config("f16", 128, 128, 4, 1, split_k=2, clip_taps=True)
    assert sm90.twin(sm90.Sm90Config("f16", 128, 64, 4, 1, "pingpong", 2, share_dy=True), clip_taps=True) is not None
    padded = DgradProblem(2, 7, 7, 64, 64, 3, 3, 7, 7, 1, 1, 1, 1, "f16")
    unpadded = DgradProblem(2, 7, 7, 64, 64, 3, 3, 5, 5, 0, 0, 1, 1, "f16")
    assert any(c.clip_taps for c in sm90.candidate_configs(padded))
    assert not any(c.clip_taps for c in sm90.candidate_configs(unpadded))


def test_box_covers_resnet_phases_exactly():
    # 7x7, 14x14, 28x28 and 56x56 phases at batch 256 tile without waste.
    for h, stride in ((7, 1), (14, 1), (28, 1), (56, 1), (56, 2), (28, 2), (14, 2)):
        prob = DgradProblem(256, h, h, 64, 64, 3, 3, -(-h // stride), -(-h // stride), 1, 1, stride, stride, "f16")
        config = sm90.Sm90Config("f16", 128, 64, 4, 1)
        box = sm90.choose_box(config, prob)
        assert box.n * box.h * box.w == 128
        live_rows = sum(prob.n * rows * cols for rows, cols in sm90._phase_extents(prob))
        assert sm90.tile_count(config, prob, box) * 128 == live_rows, (h, stride, box)


def test_workspace_and_constants():
    prob = DgradProblem(256, 56, 56, 128, 128, 3, 3, 28, 28, 1, 1, 2, 2, "f16")
    config = sm90.Sm90Config("f16", 128, 128, 5, 1)
    geometry = launch(config, prob)
    assert geometry.grid == (sm90.SM_COUNT, 1, 1)
    assert geometry.block == (384, 1, 1)
    assert geometry.filter_layout == "rsck"
    assert len(geometry.constants) == sm90.CONSTANTS
    assert geometry.constants[16] == geometry.grid[0]          # one descriptor slot per CTA
    assert geometry.workspace_bytes == geometry.grid[0] * (2 + 4) * 128 + 128  # dy, filter, 4 dx phases
    small = DgradProblem(1, 4, 4, 8, 8, 1, 1, 4, 4, 0, 0, 1, 1, "f16")
    assert launch(config, small).grid == (1, 1, 1)           # never more CTAs than tiles
    clustered = sm90.Sm90Config("f16", 128, 256, 3, 1, "cooperative", 2)
    assert launch(clustered, small).grid == (2, 1, 1)        # whole clusters, even for one tile
    assert launch(clustered, prob).grid == (sm90.SM_COUNT, 1, 1)


@pytest.mark.parametrize("c, k, match", [(12, 8, "C=12"), (8, 20, "K=20")])
def test_supports_needs_channels_of_eight(c, k, match):
    prob = DgradProblem(1, 4, 4, c, k, 1, 1, 4, 4, 0, 0, 1, 1, "f16")
    assert match in supports(sm90.Sm90Config("f16", 128, 64, 4, 1), prob)


def test_config_limits():
    with pytest.raises(ValueError, match="registers"):
        sm90.Sm90Config("f16", 128, 128, 2, 2)
    with pytest.raises(ValueError, match="tile_m"):
        sm90.Sm90Config("f16", 64, 128, 2, 1)
    for config in sm90.candidate_configs(DgradProblem(8, 8, 8, 64, 64, 1, 1, 8, 8, 0, 0, 1, 1, "bf16")):
        assert sm90.fits(config)
        assert sm90.smem_bytes(config) <= sm90.MAX_SMEM_BYTES


RESIDENT_PROBLEMS = [
    DgradProblem(2, 9, 7, 200, 72, 1, 1, 9, 7, 0, 0, 1, 1, "f16"),    # K of 72: two K blocks, the last ragged
    DgradProblem(3, 8, 10, 136, 64, 1, 1, 4, 5, 0, 0, 2, 2, "bf16"),  # 1x1/s2: one phase of taps, three of zeros
    DgradProblem(1, 5, 5, 520, 128, 1, 1, 5, 5, 0, 0, 1, 1, "f16"),   # channel blocks that do not divide the grid
]


@pytest.mark.parametrize("index", range(len(RESIDENT_PROBLEMS)))
def test_resident_filter_walk_matches_reference(index):
    prob = RESIDENT_PROBLEMS[index]
    kblocks = -(-prob.k // sm90.TILE_K)
    for schedule, tile_m, tile_n in (("cooperative", 128, 128), ("pingpong", 64, 256)):
        assert_walk_matches_reference(sm90.Sm90Config(prob.dtype, tile_m, tile_n, 3, 1, schedule, 1, kblocks),
                                      prob, 100 + index)


def test_resident_filter_grid_keeps_one_channel_block_per_cta():
    # Tiles are walked channel blocks fastest and CTA b takes tiles b, b + grid, ...: with a grid that is a
    # multiple of the channel blocks, every CTA loads its filter slab once.
    prob = DgradProblem(256, 28, 28, 512 * 2, 128, 1, 1, 28, 28, 0, 0, 1, 1, "f16")
    config = sm90.Sm90Config("f16", 128, 128, 4, 1, "cooperative", 1, 2)
    grid = launch(config, prob).grid[0]
    channel_blocks = -(-prob.c // config.tile_n)
    assert grid % channel_blocks == 0 and grid == 128
    assert launch(sm90.Sm90Config("f16", 128, 128, 4, 1), prob).grid[0] == sm90.SM_COUNT  # streamed: every SM
    assert launch(config, DgradProblem(1, 4, 4, 8, 8, 1, 1, 4, 4, 0, 0, 1, 1, "f16")).grid == (1, 1, 1)


def test_resident_filter_limits():
    prob_3x3 = DgradProblem(1, 8, 8, 64, 64, 3, 3, 8, 8, 1, 1, 1, 1, "f16")
    prob_wide_k = DgradProblem(1, 8, 8, 64, 200, 1, 1, 8, 8, 0, 0, 1, 1, "f16")
    config = sm90.Sm90Config("f16", 128, 64, 4, 1, "cooperative", 1, 2)
    assert "1x1 filter" in supports(config, prob_3x3)
    assert "K=200 needs 4 K blocks" in supports(config, prob_wide_k)
    with pytest.raises(ValueError, match="cluster 1"):
        sm90.Sm90Config("f16", 128, 128, 4, 1, "cooperative", 2, 2)
    # The slab is in the shared-memory formula: a slab of 16 K blocks of 256 channels (512 KiB) fits nowhere.
    assert not sm90.fits(sm90.Sm90Config("f16", 128, 256, 2, 1, "cooperative", 1, 16))
    assert sm90.Sm90Config("f16", 128, 128, 4, 1, "cooperative", 1, 2).name.endswith("_s4_c1_rk2")
    # 1x1 problems get resident candidates, with a slab of exactly their K blocks; 3x3 ones get none.
    one_by_one = sm90.candidate_configs(DgradProblem(8, 14, 14, 1024, 256, 1, 1, 14, 14, 0, 0, 1, 1, "f16"))
    assert {c.resident_k for c in one_by_one} == {0, 4}
    assert all(c.resident_k == 0 for c in sm90.candidate_configs(prob_3x3))


SPLIT_K_PROBLEMS = [
    DgradProblem(2, 7, 7, 136, 200, 3, 3, 7, 7, 1, 1, 1, 1, "f16"),   # 9 taps x 4 K blocks over 2 or 4 CTAs
    DgradProblem(1, 9, 9, 64, 24, 3, 3, 5, 5, 1, 1, 2, 2, "bf16"),    # phases with 1, 2 and 4 iterations
    DgradProblem(1, 6, 6, 128, 8, 1, 1, 6, 6, 0, 0, 1, 1, "f16"),     # one iteration: CTAs with empty slices
]


@pytest.mark.parametrize("index", range(len(SPLIT_K_PROBLEMS)))
def test_split_k_walk_matches_reference(index):
    prob = SPLIT_K_PROBLEMS[index]
    for tile_n, split_k in ((64, 2), (128, 2), (128, 4)):
        assert_walk_matches_reference(sm90.Sm90Config(prob.dtype, 128, tile_n, 3, 1, split_k=split_k), prob,
                                      200 + index)


def test_split_k_grid_is_whole_clusters():
    prob = DgradProblem(8, 7, 7, 512, 512, 3, 3, 7, 7, 1, 1, 1, 1, "f16")   # 4 x 4 = 16 tiles of 128x128
    for split_k in (2, 4):
        config = sm90.Sm90Config("f16", 128, 128, 3, 1, split_k=split_k)
        assert config.cluster_ctas == split_k and config.name.endswith(f"_s3_c1_k{split_k}")
        assert launch(config, prob).grid == (16 * split_k, 1, 1)
    # More tiles than clusters fit: a persistent grid of whole clusters.
    big = DgradProblem(64, 28, 28, 512, 512, 3, 3, 28, 28, 1, 1, 1, 1, "f16")
    assert launch(sm90.Sm90Config("f16", 128, 128, 3, 1, split_k=4), big).grid == (132, 1, 1)
    assert launch(sm90.Sm90Config("f16", 128, 64, 3, 1, split_k=2), big).grid == (132, 1, 1)


def test_split_k_and_store_ring_limits():
    with pytest.raises(ValueError, match="split_k must be"):
        sm90.Sm90Config("f16", 128, 128, 3, 1, split_k=3)
    with pytest.raises(ValueError, match="split-K kernels are cooperative"):
        sm90.Sm90Config("f16", 128, 128, 3, 1, "pingpong", split_k=2)
    with pytest.raises(ValueError, match="split-K kernels are cooperative"):
        sm90.Sm90Config("f16", 128, 128, 3, 1, store_slots=2, split_k=2)
    with pytest.raises(ValueError, match="store_slots"):
        sm90.Sm90Config("f16", 128, 128, 3, 1, store_slots=-1)
    # One slot leaves a 256x128 tile four stages (cuDNN's shape on the 1x1 1024<-512 layer), two only three.
    assert sm90.max_stages(256, 128, 1, store_slots=1) == 4 == sm90.max_stages(256, 128, 1, store_slots=2) + 1
    # The f32 partial tile is in the shared-memory formula: 128x256 leaves no room for two stages.
    assert sm90.max_stages(128, 256, 1, split_k=2) == 0
    assert sm90.max_stages(128, 128, 1, split_k=2) == 3
    # A store ring of 2 slots of 128 x 64 takes half of a 128x256 tile's staging: one more stage fits.
    assert sm90.max_stages(128, 256, 1, store_slots=2) == sm90.max_stages(128, 256, 1) + 1
    assert sm90.Sm90Config("f16", 128, 256, 4, 1, store_slots=2).name.endswith("_s4_c1_e2")
    # Warpgroup stores: cooperative 128-row tiles with a store ring only; candidates beside each such ring.
    assert sm90.Sm90Config("f16", 128, 256, 4, 1, store_slots=2, wg_stores=True).name.endswith("_s4_c1_e2_ws")
    for bad in (dict(store_slots=0), dict(store_slots=2, schedule="pingpong"), dict(store_slots=2, tile_m=256)):
        fields = {**dict(dtype="f16", tile_m=128, tile_n=128, stages=3, ctas_per_sm=1, wg_stores=True), **bad}
        with pytest.raises(ValueError, match="warpgroup stores"):
            sm90.Sm90Config(**fields)
    layer = DgradProblem(256, 14, 14, 1024, 256, 1, 1, 14, 14, 0, 0, 1, 1, "f16")
    ring = [c for c in sm90.candidate_configs(layer) if c.tile_m == 128 and c.store_slots and
            c.schedule == "cooperative"]
    assert ring and {c.wg_stores for c in ring} == {False, True}
    assert not any(c.wg_stores for c in sm90.candidate_configs(layer) if c.tile_m != 128 or not c.store_slots)
    # Warp stores: any TMA-stored, non-transposed ring without split-K; candidates beside each such ring.
    assert sm90.Sm90Config("f16", 128, 64, 4, 1, "pingpong", store_slots=2, warp_stores=True).name.endswith(
        "_s4_c1_pp_e2_wp")
    for bad in (dict(store_slots=0), dict(store_slots=2, wg_stores=True), dict(store_slots=2, thread_stores=True),
                dict(store_slots=1, tile_m=192, transposed=True)):
        fields = {**dict(dtype="f16", tile_m=128, tile_n=128, stages=3, ctas_per_sm=1, warp_stores=True), **bad}
        with pytest.raises(ValueError, match="warp stores"):
            sm90.Sm90Config(**fields)
    candidates = sm90.candidate_configs(layer)
    warp = [c for c in candidates if c.warp_stores]
    assert warp and all(c.store_slots and not (c.transposed or c.wg_stores or c.thread_stores) for c in warp)
    assert {dataclasses.replace(c, warp_stores=True) for c in candidates
            if c.store_slots and not (c.transposed or c.wg_stores or c.thread_stores)} == set(warp)
    # Warpgroup offset: cooperative kernels whose warpgroups never meet in the epilogue (warpgroup or warp stores),
    # a head start under the stage count; candidates beside each such kernel, one per head start that fits.
    assert sm90.Sm90Config("f16", 128, 256, 4, 1, store_slots=2, wg_stores=True, wg_offset=3).name.endswith(
        "_s4_c1_e2_ws_o3")
    for bad in (dict(store_slots=2), dict(store_slots=2, warp_stores=True, schedule="pingpong"),
                dict(store_slots=2, wg_stores=True, wg_offset=3), dict(store_slots=2, warp_stores=True, wg_offset=-1),
                dict(tile_m=192, transposed=True, store_slots=1, wg_offset=1)):
        fields = {**dict(dtype="f16", tile_m=128, tile_n=128, stages=3, ctas_per_sm=1, wg_offset=1), **bad}
        with pytest.raises(ValueError, match="warpgroup offset"):
            sm90.Sm90Config(**fields)
    behind = [c for c in candidates if c.wg_offset]
    decoupled = [c for c in candidates if c.schedule == "cooperative" and (c.wg_stores or c.warp_stores)
                 and not c.wg_offset]
    assert behind and {dataclasses.replace(c, wg_offset=d) for c in decoupled for d in sm90.WG_OFFSETS
                       if d < c.stages} == set(behind)
    # Split-K candidates only when asked for, and only where the tiles cannot fill the GPU once.
    small = DgradProblem(8, 7, 7, 512, 512, 3, 3, 7, 7, 1, 1, 1, 1, "f16")
    large = DgradProblem(256, 7, 7, 512, 512, 3, 3, 7, 7, 1, 1, 1, 1, "f16")
    assert {c.split_k for c in sm90.candidate_configs(small, split_k=True)} == {1, 2, 4}
    assert {c.split_k for c in sm90.candidate_configs(small)} == {1}
    assert {c.split_k for c in sm90.candidate_configs(large, split_k=True)} == {1}


def _umulhi_divide(x: int, triple: tuple[int, int, int]) -> int:
    """The device's FastDivisor::div: a copy for 1, else the high word of a 32x32 product, shifted."""
    value, multiplier, shift = triple
    return x if value == 1 else ((x * multiplier) >> 32) >> shift


@pytest.mark.parametrize("value", [1, 2, 3, 4, 5, 7, 12, 13, 28, 56, 97, 128, 196, 1000, 4097, 65535, 2**20 + 7,
                                   2**30 + 1, 2**31 - 1])
def test_fast_divisor_divides_exactly(value):
    triple = sm90.fast_divisor(value)
    assert 0 <= triple[1] < 2**32 and 0 <= triple[2] < 32
    rng = random.Random(value)
    edges = [0, 1, value - 1, value, value + 1, 2 * value - 1, 2 * value, 2**31 - 1, 2**31 - 2]
    samples = [x for x in edges if 0 <= x < 2**31] + [rng.randrange(2**31) for _ in range(2000)] + \
        list(range(min(3 * value + 50, 5000)))
    for x in samples:
        assert _umulhi_divide(x, triple) == x // value, (value, x)


def test_fast_divisor_refuses_zero():
    with pytest.raises(ValueError, match="divisor 0"):
        sm90.fast_divisor(0)


def test_walk_divisors_follow_the_shape():
    # 3x3 stride 2 c256/k512 at 56x56: 2 channel blocks of 128, 4 phases, boxes over a phase's 28 x 28 outputs.
    prob = DgradProblem(8, 56, 56, 256, 512, 3, 3, 28, 28, 1, 1, 2, 2, "f16")
    config = sm90.Sm90Config("f16", 128, 128, 5, 1)
    constants = launch(config, prob).constants
    box = sm90.Box(*constants[13:16])
    values = constants[17:35:3]
    assert values == [2, 4, -(-28 // box.w), -(-28 // box.h), 2, 2]
    for index in range(6):
        assert tuple(constants[17 + 3 * index:20 + 3 * index]) == sm90.fast_divisor(values[index])


def test_zero_fill_walks_one_phase_on_every_sm():
    # 1x1 stride 2 without padding: the walk covers phase (0, 0) alone (phases divisor 1) and the grid takes
    # every SM even where the walk has fewer units (batch 1: 2 channel blocks x 7 boxes of 128 = 14 units).
    for n in (1, 256):
        prob = DgradProblem(n, 56, 56, 256, 512, 1, 1, 28, 28, 0, 0, 2, 2, "f16")
        config = sm90.Sm90Config("f16", 128, 128, 5, 1)
        geometry = launch(config, prob)
        assert sm90.zero_fills(prob) and geometry.constants[20] == 1
        assert geometry.grid[0] == sm90.SM_COUNT
        assert sm90.unit_count(config, prob) == 2 * -(-n * 28 * 28 // 128)
    # Padding or a filter wider than one tap puts taps into other phases: no zero fill.
    for prob in (DgradProblem(2, 8, 8, 16, 16, 1, 1, 5, 5, 1, 1, 2, 2, "f16"),
                 DgradProblem(2, 8, 8, 16, 16, 3, 3, 4, 4, 1, 1, 2, 2, "f16"),
                 DgradProblem(2, 8, 8, 16, 16, 1, 1, 8, 8, 0, 0, 1, 1, "f16")):
        assert not sm90.zero_fills(prob)
        assert launch(sm90.Sm90Config("f16", 128, 128, 5, 1), prob).constants[20] == prob.stride_h * prob.stride_w


# Transposed tiles (the MMA computes dx^T; the walk is the plain one, over flat pixels for 1x1 unit-stride
# problems), alone or in 2-CTA clusters taking neighbouring pixel tiles: (problem, tile_m, tile_n, cluster[,
# schedule]); ping-pong transposed tiles (64 channels, or 128 by 128 pixels) give each warpgroup a whole tile in
# turns.
TRANSPOSED_CASES = [
    (DgradProblem(3, 7, 7, 200, 72, 1, 1, 7, 7, 0, 0, 1, 1, "f16"), 192, 128, 1),  # 147 flat pixels, ragged C
    (DgradProblem(2, 9, 11, 64, 24, 1, 1, 9, 11, 0, 0, 1, 1, "bf16"), 512, 64, 1), # 198 pixels: no rows of 256,
    # so the box covers images (n x h x w)
    (DgradProblem(4, 8, 8, 64, 64, 1, 1, 8, 8, 0, 0, 1, 1, "f16"), 512, 64, 1),    # 256 flat pixels in rows of 256
    (DgradProblem(2, 7, 9, 136, 16, 3, 3, 4, 5, 1, 1, 2, 2, "f16"), 192, 128, 1),  # 3x3/s2: phases, 192-row boxes
    (DgradProblem(2, 6, 6, 64, 8, 1, 1, 3, 3, 0, 0, 2, 2, "f16"), 384, 64, 1),     # zero fill beside it
    (DgradProblem(3, 9, 7, 128, 24, 3, 3, 5, 4, 1, 1, 2, 2, "f16"), 256, 64, 2),   # 3x3/s2 in clusters: an odd
    # tile count per phase, so a cluster's second CTA only helps load at the edge
    (DgradProblem(3, 7, 7, 136, 40, 1, 1, 7, 7, 0, 0, 1, 1, "bf16"), 128, 128, 2), # flat pixels in clusters
    (DgradProblem(3, 9, 7, 128, 24, 3, 3, 5, 4, 1, 1, 2, 2, "f16"), 256, 64, 2, "pingpong"),  # 3x3/s2, ping-pong
    # pairs: tiles alternate between the warpgroups, an odd count per phase
    (DgradProblem(2, 7, 9, 72, 16, 3, 3, 4, 5, 1, 1, 2, 2, "bf16"), 128, 64, 1, "pingpong"),  # ragged C
    (DgradProblem(3, 7, 7, 64, 40, 1, 1, 7, 7, 0, 0, 1, 1, "f16"), 128, 64, 1, "pingpong"),   # flat pixels
    (DgradProblem(2, 9, 7, 200, 24, 3, 3, 5, 4, 1, 1, 2, 2, "bf16"), 128, 128, 2, "pingpong"),  # 128 channels a
    # warpgroup, ragged C, in pairs
]


@pytest.mark.parametrize("index", range(len(TRANSPOSED_CASES)))
def test_transposed_walk_matches_reference(index):
    prob, tile_m, tile_n, cluster, *schedule = TRANSPOSED_CASES[index]
    config = sm90.Sm90Config(prob.dtype, tile_m, tile_n, 2, 1, *schedule, cluster=cluster, transposed=True)
    assert_walk_matches_reference(config, prob, 300 + index)


def test_transposed_tiles_walk_flat_pixels():
    # ResNet-50's 1x1 512<-2048 at 7x7, batch 256: 192-pixel tiles over the 12544 flat pixels are 66 per channel
    # block, 264 in all: two full waves on 132 SMs (192-pixel boxes of 7x7 images would need 98 per block).
    prob = DgradProblem(256, 7, 7, 512, 2048, 1, 1, 7, 7, 0, 0, 1, 1, "f16")
    config = sm90.Sm90Config("f16", 192, 128, 4, 1, transposed=True)
    assert config.name == "iree_cutlass_dgrad_sm90_f16_192x128x64_s4_c1_tr"
    assert sm90.kernel_problem(config, prob) == DgradProblem(1, 1, 12544, 512, 2048, 1, 1, 1, 12544, 0, 0, 1, 1, "f16")
    assert sm90.choose_box(config, prob) == sm90.Box(1, 1, 192)
    assert sm90.unit_count(config, prob) == 264
    assert launch(config, prob).constants[:3] == [1, 1, 12544]
    # Over 256 pixels a tile takes rows of 256; the plain kernels keep the problem as it is.
    wide = sm90.Sm90Config("f16", 512, 64, 2, 1, transposed=True)
    assert sm90.kernel_problem(wide, prob) == DgradProblem(49, 1, 256, 512, 2048, 1, 1, 1, 256, 0, 0, 1, 1, "f16")
    assert sm90.kernel_problem(sm90.Sm90Config("f16", 128, 256, 4, 1), prob) == prob
    assert {c.name for c in sm90.candidate_configs(prob) if c.transposed} >= {config.name, wide.name}
    # A one-slot store ring buys the 192x128 tile a fifth stage (cuDNN's kernel on this layer has five): offered
    # alone and in both clusters; 128x128 tiles gain no stage from it and are not offered one.
    ring = sm90.Sm90Config("f16", 192, 128, 5, 1, transposed=True, store_slots=1)
    assert ring.name == "iree_cutlass_dgrad_sm90_f16_192x128x64_s5_c1_e1_tr" and sm90.supports(ring, prob) is None
    assert not sm90.fits(dataclasses.replace(ring, stages=6))
    names = {c.name for c in sm90.candidate_configs(prob)}
    assert {ring.name, "iree_cutlass_dgrad_sm90_f16_192x128x64_s5_c1_m2_e1_tr",
            "iree_cutlass_dgrad_sm90_f16_192x128x64_s5_c1_n2_e1_tr"} <= names
    assert not any(name.startswith("iree_cutlass_dgrad_sm90_f16_128x128x64_") and name.endswith("_e1_tr")
                   for name in names)


@pytest.mark.parametrize("bad, match", [(dict(schedule="pingpong"), "transposed"),
                                        (dict(schedule="pingpong", tile_n=64, tile_m=256, tile_buffers=2),
                                         "transposed"),
                                        (dict(schedule="pingpong", tile_n=64, tile_m=384), "tile_m"),
                                        (dict(schedule="pingpong", tile_m=256), "transposed"),
                                        (dict(schedule="pingpong", tile_m=128, store_slots=1), "transposed"),
                                        (dict(resident_k=2), "transposed"),
                                        (dict(store_slots=2, tile_n=64), "transposed"),
                                        (dict(store_slots=1, tile_buffers=2), "transposed"),
                                        (dict(tile_n=256), "transposed"),
                                        (dict(tile_m=320), "tile_m"), (dict(tile_m=512, tile_n=128), "registers")])
def test_transposed_limits(bad, match):
    fields = {**dict(dtype="f16", tile_m=192, tile_n=128, stages=2, ctas_per_sm=1, transposed=True), **bad}
    with pytest.raises(ValueError, match=match):
        sm90.Sm90Config(**fields)


# dy-sharing clusters: two CTAs take neighbouring channel blocks of one M tile, each loading half of the dy box for
# both: (problem, config fields).
SHARE_DY_CASES = [
    (DgradProblem(2, 9, 7, 200, 72, 1, 1, 9, 7, 0, 0, 1, 1, "f16"), dict(tile_m=128, tile_n=64)),   # 4 channel
    # blocks in 2 units, the last block ragged
    (DgradProblem(3, 7, 7, 136, 40, 3, 3, 7, 7, 1, 1, 1, 1, "bf16"), dict(tile_m=128, tile_n=128)),  # 2 blocks: the
    # second unit's second CTA only helps load
    (DgradProblem(2, 7, 9, 136, 16, 3, 3, 4, 5, 1, 1, 2, 2, "f16"), dict(tile_m=64, tile_n=64, schedule="pingpong")),
    (DgradProblem(1, 9, 6, 264, 24, 1, 1, 3, 6, 0, 0, 3, 1, "f16"),                                  # zero fill
     dict(tile_m=128, tile_n=128, store_slots=2, wg_stores=True)),
    (DgradProblem(3, 7, 7, 200, 72, 1, 1, 7, 7, 0, 0, 1, 1, "f16"), dict(tile_m=192, tile_n=128, transposed=True)),
    (DgradProblem(2, 9, 11, 64, 24, 3, 3, 9, 11, 1, 1, 1, 1, "bf16"), dict(tile_m=256, tile_n=64, transposed=True)),
]


@pytest.mark.parametrize("index", range(len(SHARE_DY_CASES)))
def test_share_dy_walk_matches_reference(index):
    prob, fields = SHARE_DY_CASES[index]
    config = sm90.Sm90Config(**{**dict(dtype=prob.dtype, stages=2, ctas_per_sm=1, cluster=2, share_dy=True),
                                **fields})
    assert_walk_matches_reference(config, prob, 400 + index)


def test_share_dy_units_and_limits():
    # ResNet-50's 1x1 1024<-512 at 14x14, batch 256: 4 channel blocks of 256 walk as 2 units of 512 channels.
    prob = DgradProblem(256, 14, 14, 1024, 512, 1, 1, 14, 14, 0, 0, 1, 1, "f16")
    config = sm90.Sm90Config("f16", 128, 256, 4, 1, cluster=2, store_slots=2, wg_stores=True, share_dy=True)
    assert config.name == "iree_cutlass_dgrad_sm90_f16_128x256x64_s4_c1_n2_e2_ws"
    assert sm90.unit_count(config, prob) == 2 * 392 and sm90.tile_count(config, prob) == 4 * 392
    assert launch(config, prob).constants[17] == 2                      # the channel-unit divisor
    assert launch(config, prob).grid == (sm90.SM_COUNT, 1, 1)
    with pytest.raises(ValueError, match="dy-sharing"):
        sm90.Sm90Config("f16", 128, 256, 4, 1, share_dy=True)
    # A box whose halved extent is odd cannot be shared: 192 rows of 8x8 images are boxes of 3 images.
    odd = DgradProblem(6, 8, 8, 64, 64, 3, 3, 8, 8, 1, 1, 1, 1, "f16")
    tr = sm90.Sm90Config("f16", 192, 64, 2, 1, cluster=2, transposed=True, share_dy=True)
    assert sm90.choose_box(tr, odd).n == 3
    assert "cannot be halved" in supports(tr, odd)
    # Every 2-CTA cluster candidate is offered along both axes, where its box halves (384 pixels walk as boxes of
    # 3 rows of 128 here).
    candidates = sm90.candidate_configs(prob)
    along_m = {c for c in candidates if c.cluster == 2 and not c.share_dy}
    missing = {dataclasses.replace(c, share_dy=True) for c in along_m} - set(candidates)
    assert len(along_m) > 20 and {c.tile_m for c in missing} == {384}
    assert all(sm90.choose_box(c, prob).n == 3 for c in missing)


def test_thread_stores_limits_and_candidates():
    # Thread stores replace the TMA stores of the staged dx: same shared memory, a `_ts` twin of every kernel
    # whose threads copy at most 8 rows (tiles up to 256 rows; 128 per warpgroup with warpgroup stores).
    shipped = sm90.Sm90Config("f16", 128, 256, 4, 1, store_slots=2, wg_stores=True)
    twin = dataclasses.replace(shipped, thread_stores=True)
    assert twin.name == shipped.name + "_ts" and twin.copy_rows_per_thread == 4
    assert sm90.smem_bytes(twin) == sm90.smem_bytes(shipped)
    assert sm90.Sm90Config("f16", 128, 128, 4, 1, schedule="pingpong", thread_stores=True).copy_rows_per_thread == 8
    assert sm90.Sm90Config("f16", 192, 128, 4, 1, transposed=True, thread_stores=True).copy_rows_per_thread == 6
    for fields in (dict(tile_m=384, tile_n=64, transposed=True), dict(tile_m=128, tile_n=128, split_k=2)):
        with pytest.raises(ValueError, match="thread stores"):
            sm90.Sm90Config(**{"dtype": "f16", "stages": 2, "ctas_per_sm": 1, "thread_stores": True, **fields})
    prob = DgradProblem(256, 14, 14, 1024, 512, 1, 1, 14, 14, 0, 0, 1, 1, "f16")
    names = {c.name for c in sm90.candidate_configs(prob)}
    assert twin.name in names and shipped.name in names
    assert not any(name.endswith("_ts") and ("_384x" in name or "_512x" in name) for name in names)


def assert_refused(reason: str, option: dict, *field_sets: dict) -> None:
    """A 128x128 three-stage f16 config with `option` and each of `field_sets` is refused for `reason`."""
    for fields in field_sets:
        with pytest.raises(ValueError, match=reason):
            sm90.Sm90Config(**{"dtype": "f16", "tile_m": 128, "tile_n": 128, "stages": 3, "ctas_per_sm": 1,
                               **option, **fields})


def test_wg_release_limits_and_candidates():
    # A warpgroup release changes only how a 2-CTA cluster's consumers free a stage: same shared memory, a `_wr`
    # twin of every clustered candidate (both directions), refused without a 2-CTA cluster.
    clustered = sm90.Sm90Config("f16", 256, 128, 4, 1, cluster=2, share_dy=True, store_slots=1)
    twin = dataclasses.replace(clustered, wg_release=True)
    assert twin.name == clustered.name + "_wr" == "iree_cutlass_dgrad_sm90_f16_256x128x64_s4_c1_n2_e1_wr"
    assert sm90.smem_bytes(twin) == sm90.smem_bytes(clustered)
    assert_refused("warpgroup release", dict(wg_release=True), dict(), dict(split_k=2))
    prob = DgradProblem(256, 14, 14, 1024, 512, 1, 1, 14, 14, 0, 0, 1, 1, "f16")
    candidates = sm90.candidate_configs(prob)
    released = {c for c in candidates if c.wg_release}
    assert released == {dataclasses.replace(c, wg_release=True) for c in candidates if c.cluster == 2 and not c.wg_release}
    assert twin in released and any(not c.share_dy for c in released)
    # The template's last arguments: share_dy, thread_stores, wg_release, warp_stores, wg_offset, halo_blocks,
    # halo_rows, clip_taps, skip_partner, box_walk.
    assert ("1, true, false, true, false, 0, 0, 0, false, false, false>;"
            in " ".join(sm90.generate_source(twin).split()))
    assert ("1, true, false, false, false, 0, 0, 0, false, false, false>;"
            in " ".join(sm90.generate_source(clustered).split()))
    warp = dataclasses.replace(clustered, warp_stores=True)
    assert ("1, true, false, false, true, 0, 0, 0, false, false, false>;"
            in " ".join(sm90.generate_source(warp).split()))
    behind = dataclasses.replace(clustered, warp_stores=True, wg_offset=2)
    assert ("1, true, false, false, true, 2, 0, 0, false, false, false>;"
            in " ".join(sm90.generate_source(behind).split()))
    clipped = dataclasses.replace(clustered, clip_taps=True)
    assert ("1, true, false, false, false, 0, 0, 0, true, false, false>;"
            in " ".join(sm90.generate_source(clipped).split()))


@pytest.mark.parametrize("fields", [dict(), dict(schedule="pingpong"), dict(cluster=2),
                                    dict(cluster=2, share_dy=True), dict(tile_m=256, tile_n=64)])
def test_flat_walk_matches_reference(fields):
    # Flat pixels (`flat`) on plain GEMMs whose pixel count no tile divides: one tile a unit, M and dy-sharing
    # clusters, ping-pong, 256-pixel tiles.
    config = sm90.Sm90Config(**{"dtype": "f16", "tile_m": 128, "tile_n": 64, "stages": 3, "ctas_per_sm": 1,
                                "store_slots": 1, "flat": True, **fields})
    for index, prob in enumerate((DgradProblem(3, 7, 9, 24, 16, 1, 1, 7, 9, 0, 0, 1, 1, "f16"),
                                  DgradProblem(2, 13, 11, 72, 40, 1, 1, 13, 11, 0, 0, 1, 1, "f16"))):
        assert sm90.kernel_problem(config, prob).w == prob.n * prob.h * prob.w
        assert_walk_matches_reference(config, prob, 800 + index)
    assert config.name.endswith("_fl")
    padded = DgradProblem(2, 5, 5, 8, 16, 3, 3, 5, 5, 1, 1, 1, 1, "f16")
    assert supports(config, padded) == "a flat walk is for 1x1 unit-stride unpadded problems"
    with pytest.raises(ValueError, match="flat"):
        sm90.Sm90Config("f16", 192, 128, 3, 1, transposed=True, flat=True)
    plain = DgradProblem(256, 7, 7, 512, 2048, 1, 1, 7, 7, 0, 0, 1, 1, "f16")
    candidates = sm90.candidate_configs(plain)
    assert {c for c in candidates if c.flat} == {dataclasses.replace(c, flat=True) for c in candidates
                                                  if not c.flat and not c.transposed}
    assert not any(c.flat for c in sm90.candidate_configs(dataclasses.replace(plain, stride_h=2, stride_w=2, h=14,
                                                                                w=14)))


def _unit_stride(n, h, w, c, k, r, s, pad_h, pad_w, dtype="f16") -> DgradProblem:
    return DgradProblem(n, h, w, c, k, r, s, h + 2 * pad_h - r + 1, w + 2 * pad_w - s + 1, pad_h, pad_w, 1, 1, dtype)


# Halo tiles (one dy halo per K block, every tap reading it shifted): (problem, tile_m). Ragged channels and K
# blocks, filters wider than tall and the other way, no padding and more padding than the filter reaches, images
# narrower than a box and boxes off the bottom edge.
HALO_CASES = [
    (_unit_stride(2, 5, 6, 64, 64, 3, 3, 1, 1), 128),
    (_unit_stride(1, 9, 13, 48, 40, 3, 3, 1, 1, "bf16"), 256),
    (_unit_stride(2, 6, 7, 64, 128, 2, 3, 0, 0), 128),
    (_unit_stride(1, 7, 5, 16, 8, 3, 2, 2, 1), 128),
    (_unit_stride(3, 14, 14, 64, 64, 3, 3, 1, 1), 256),
    (_unit_stride(2, 4, 30, 24, 40, 1, 3, 0, 1), 256),
    (_unit_stride(2, 9, 3, 64, 200, 3, 1, 1, 0), 128),
]


@pytest.mark.parametrize("schedule", ["cooperative", "pingpong"])
@pytest.mark.parametrize("index", range(len(HALO_CASES)))
def test_halo_walk_matches_reference(index, schedule):
    # The halo's rows past what the TMA box loads are NaN in the emulation: a stored dx that read one fails.
    # Ping-pong tiles walk and store the same boxes (each warpgroup a whole tile, in turns).
    prob, tile_m = HALO_CASES[index]
    config = sm90.Sm90Config(prob.dtype, tile_m, 64, 2, 1, schedule, transposed=True,
                             halo_blocks=sm90.halo_blocks(prob), halo_rows=sm90.halo_rows(tile_m, prob))
    box = sm90.choose_box(config, prob)
    assert box.n == 1 and box.w >= prob.w + prob.s - 1 and box.h * box.w == tile_m
    assert_walk_matches_reference(config, prob, 700 + index)


def test_halo_candidates_and_limits():
    # ResNet-50's 3x3 64<-64 layer at 56x56: 256 pixels are four rows of 64 (56 and the 2 a 3x3 tap reaches,
    # padded to a power of two), the halo six rows and the last tap's 2 more (392 with the 8-row rounding), the
    # slab every tap's one K block; two stages fit beside it, one staging tile.
    prob = _unit_stride(256, 56, 56, 64, 64, 3, 3, 1, 1)
    config = sm90.Sm90Config("f16", 256, 64, 2, 1, transposed=True, halo_blocks=9, halo_rows=392)
    assert config.name == "iree_cutlass_dgrad_sm90_f16_256x64x64_s2_c1_tr_hl9x392"
    assert sm90.halo_rows(256, prob) == 392 and sm90.halo_blocks(prob) == 9
    assert sm90.choose_box(config, prob) == sm90.Box(1, 4, 64)
    assert sm90.tile_count(config, prob) == 256 * 14
    assert sm90.shared_storage_bytes(config) == _aligned_1k(2 * 392 * 128) + 9 * 64 * 128 + 256 * 64 * 2 + 2048
    halos = [c for c in sm90.candidate_configs(prob) if c.halo_blocks]
    assert config in halos and all(c.tile_m in sm90.HALO_TILE_M and sm90.fits(c) for c in halos)
    # Ping-pong: each warpgroup a whole 256-pixel tile, staged in its own halo stage (no staging tiles), so a third
    # stage fits beside the slab.
    pingpong = dataclasses.replace(config, schedule="pingpong", stages=3)
    assert pingpong.name == "iree_cutlass_dgrad_sm90_f16_256x64x64_s3_c1_pp_tr_hl9x392" and pingpong in halos
    assert pingpong.accumulators_per_warpgroup == 64 * 256
    # (the two 8-element staging stand-ins, the barriers and the descriptor scratch round up to 2 KiB)
    assert sm90.shared_storage_bytes(pingpong) == 3 * 392 * 128 + 9 * 64 * 128 + 2048
    assert not sm90.fits(dataclasses.replace(pingpong, stages=4))
    assert not sm90.fits(dataclasses.replace(config, stages=3))
    assert not sm90.fits(dataclasses.replace(config, tile_buffers=2))
    # Not offered where a halo cannot help or cannot hold: 1x1, strided, over one channel block.
    for other in (_unit_stride(256, 56, 56, 64, 64, 1, 1, 0, 0), _unit_stride(256, 28, 28, 128, 64, 3, 3, 1, 1),
                  DgradProblem(256, 56, 56, 64, 64, 3, 3, 28, 28, 1, 1, 2, 2, "f16")):
        assert not any(c.halo_blocks for c in sm90.candidate_configs(other))
    refusals = [(DgradProblem(256, 56, 56, 64, 64, 3, 3, 28, 28, 1, 1, 2, 2, "f16"), "unit-stride"),
                (_unit_stride(8, 56, 56, 128, 64, 3, 3, 1, 1), "one channel block"),
                (_unit_stride(8, 56, 56, 64, 128, 3, 3, 1, 1), "slab holds 9"),
                (_unit_stride(8, 56, 300, 64, 64, 3, 3, 1, 1), "no box of 256 pixels"),
                (_unit_stride(8, 56, 63, 64, 64, 3, 3, 1, 1), "a stage holds 392")]
    for other, match in refusals:
        assert match in sm90.supports(config, other)


def _aligned_1k(value: int) -> int:
    return -(-value // 1024) * 1024


@pytest.mark.parametrize("bad", [dict(transposed=False, tile_m=128), dict(tile_n=128), dict(cluster=2),
                                 dict(halo_rows=0), dict(halo_blocks=0), dict(halo_rows=388),
                                 dict(halo_rows=248), dict(thread_stores=True)])
def test_halo_config_limits(bad):
    fields = {**dict(dtype="f16", tile_m=256, tile_n=64, stages=2, ctas_per_sm=1, transposed=True, halo_blocks=9,
                     halo_rows=392), **bad}
    with pytest.raises(ValueError, match="halo"):
        sm90.Sm90Config(**fields)


def test_skip_partner_limits_and_candidates():
    # `skip_partner` is a ping-pong option without a filter slab or clipped taps (`_sp`), offered as a twin of every
    # ping-pong candidate where the walk is one phase (unit stride, or a zero-filled 1x1 stride), and none elsewhere.
    pingpong = sm90.Sm90Config("f16", 128, 64, 8, 1, "pingpong", transposed=True)
    twin = dataclasses.replace(pingpong, skip_partner=True)
    assert twin.name == pingpong.name + "_sp" and sm90.smem_bytes(twin) == sm90.smem_bytes(pingpong)
    assert " ".join(sm90.generate_source(twin).split()).endswith("0, 0, 0, false, true, false)")
    assert_refused("partner", dict(skip_partner=True), dict(), dict(schedule="pingpong", resident_k=1),
                   dict(schedule="pingpong", clip_taps=True))
    unit = DgradProblem(256, 56, 56, 256, 64, 1, 1, 56, 56, 0, 0, 1, 1, "f16")
    candidates = sm90.candidate_configs(unit)
    skipping = {c for c in candidates if c.skip_partner}
    assert twin in skipping
    assert skipping == {dataclasses.replace(c, skip_partner=True) for c in candidates
                        if c.schedule == "pingpong" and not c.skip_partner and not c.resident_k and not c.clip_taps
                        and not c.halo_blocks and not c.box_walk}
    strided = DgradProblem(8, 28, 28, 128, 128, 3, 3, 14, 14, 1, 1, 2, 2, "f16")
    assert not any(c.skip_partner for c in sm90.candidate_configs(strided))


@pytest.mark.parametrize("index", range(len(PROBLEMS)))
def test_one_phase_walks_are_uniform(index):
    # What kSkipPartner relies on: in a walk of one phase without clipped taps every unit has a live tile and every
    # tile (a dead cluster peer's included) runs as many taps as the walk's first, so a consumer warpgroup can move
    # the stage ring on over its partner's tiles by that count without decoding them.
    prob = PROBLEMS[index]
    for config in (c for c in sm90.candidate_configs(prob) if c.skip_partner):
        d, box, tiles = walk(config, prob)
        assert launch(config, prob).constants[20] == 1, "a skipping kernel walks one phase"
        assert {t.unit for t in tiles if t.live} == {t.unit for t in tiles}, f"{config.name}: a unit of {prob} " \
                                                                               "has no live tile"
        taps = {tile_taps(config, d, t.i0, t.j0, box, t.ph, t.pw)[1::3] for t in tiles}
        assert len(taps) == 1, f"{config.name}: tiles of {prob} run different taps {taps}"


def test_box_walk_limits_and_candidates():
    # `box_walk` (`_bw`) changes only the order a CTA takes its units in: same shared memory, refused with a cluster
    # or split-K (units of several CTAs), a filter slab (one channel block a CTA) or a partner skip; offered as a
    # twin of every such candidate where a box has several channel units, and nowhere else.
    plain = sm90.Sm90Config("f16", 128, 64, 8, 1, "pingpong", transposed=True)
    twin = dataclasses.replace(plain, box_walk=True)
    assert twin.name == plain.name + "_bw" and sm90.smem_bytes(twin) == sm90.smem_bytes(plain)
    assert " ".join(sm90.generate_source(twin).split()).endswith("0, 0, 0, false, false, true)")
    assert_refused("box walk", dict(box_walk=True), dict(cluster=2), dict(cluster=2, share_dy=True),
                   dict(split_k=2), dict(resident_k=1), dict(schedule="pingpong", skip_partner=True))
    unit = DgradProblem(256, 56, 56, 256, 64, 1, 1, 56, 56, 0, 0, 1, 1, "f16")
    candidates = sm90.candidate_configs(unit)
    boxed = {c for c in candidates if c.box_walk}
    assert twin in boxed
    assert boxed == {dataclasses.replace(c, box_walk=True) for c in candidates
                     if not c.box_walk and c.cluster_ctas == 1 and not c.resident_k and not c.halo_blocks
                     and not c.skip_partner and sm90.channel_units(c, unit) > 1}
    one_unit = DgradProblem(256, 56, 56, 64, 256, 1, 1, 56, 56, 0, 0, 1, 1, "f16")
    assert not any(c.box_walk for c in sm90.candidate_configs(one_unit))


BOX_PROBLEMS = [
    DgradProblem(2, 8, 8, 256, 64, 1, 1, 8, 8, 0, 0, 1, 1, "f16"),      # 1x1: four channel units of 64
    DgradProblem(1, 7, 9, 136, 16, 3, 3, 4, 5, 1, 1, 2, 2, "f16"),      # 3x3/s2, odd sizes, a part channel unit
    DgradProblem(2, 7, 7, 192, 32, 3, 3, 7, 7, 1, 1, 1, 1, "bf16"),     # padded 3x3: clipped taps offered
    DgradProblem(2, 8, 8, 128, 64, 1, 1, 4, 4, 0, 0, 2, 2, "f16"),      # 1x1/s2: zero fill, every SM launched
]


@pytest.mark.parametrize("index", range(len(BOX_PROBLEMS)))
def test_box_walk_takes_whole_boxes(index):
    # A box walk's CTA b takes every channel unit of box b, then of box b + grid, ... (DgradKernel::first_unit,
    # next_unit): every unit once over the grid, which launches one CTA a box at most (every SM with zero fill).
    # The tiles a CTA derives from its box's first (unit_tile: the channels and liveness) are TileWalk::decode's.
    prob = BOX_PROBLEMS[index]
    boxed = [c for c in sm90.candidate_configs(prob) if c.box_walk]
    assert boxed, f"no box-walk candidate for {prob}"
    for config in boxed:
        d, box, tiles = walk(config, prob)
        decoded = {t.unit: t for t in tiles}
        tiles_c = sm90.channel_units(config, prob)
        assert tiles_c > 1 and len(tiles) % tiles_c == 0
        grid = launch(config, prob).grid[0]
        slots = sm90.SM_COUNT * config.ctas_per_sm
        assert grid == (slots if sm90.zero_fills(prob) else min(len(tiles) // tiles_c, slots))
        taken = []
        for cta in range(grid):
            index, cu = cta * tiles_c, 0
            while index < len(tiles):
                if cu == 0:
                    first = decoded[index]
                c0 = first.c0 + cu * config.tile_n
                derived = dataclasses.replace(first, unit=index, c0=c0, live=first.live and c0 < d.c)
                assert derived == decoded[index], f"{config.name}: unit {index} of {prob}"
                taken.append(index)
                cu += 1
                if cu == tiles_c:
                    cu, index = 0, index + 1 + (grid - 1) * tiles_c
                else:
                    index += 1
        assert sorted(taken) == list(range(len(tiles))), f"{config.name}: units of {prob} taken not once each"
