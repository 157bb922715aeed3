"""Hopper (sm_90a) dgrad kernels: TMA loads and warpgroup MMA, per output phase, persistent (sm90_dgrad.cuh).

The kernels follow IREE's hal.dispatch.extern CUDA ABI: (const T* dy, const T* w_rsck, T* dx, uint8_t*
workspace, then 35 uint32 push constants: the shape, the box, the descriptor slots, and the tile walk's six
divisors with their multiply-high constants). The filter is the forward filter in RSCK (HWIO) order; the workspace
holds the TMA descriptors each CTA builds on the device (256 bytes per CTA).
"""
from __future__ import annotations

import dataclasses
import pathlib
import re
from dataclasses import dataclass
from typing import ClassVar

from .problem import DgradProblem, checked_push_constants

DTYPES = ("f16", "bf16")      # 16-bit operands only (wgmma f16/bf16 with f32 accumulation)

FAMILY = "sm90"
FILTER_LAYOUT = "rsck"
NVCC_ARCH = "sm_90a"          # wgmma, setmaxnreg and tensormap.replace exist only on sm_90a
TARGET_ARCHS = ("sm_90", "sm_90a")  # the compile targets these kernels run on
HEADER = pathlib.Path(__file__).parent / "sm90_dgrad.cuh"

TILE_K = 64                   # 16-bit elements per 128-byte swizzle row
THREADS = 384                 # one producer and two consumer warpgroups
DESCRIPTOR_BYTES = 128
WARPS = THREADS // 32
WORKSPACE_SLACK = 128         # the kernel aligns the workspace to 128 bytes
CONSTANTS = 35

# H200: 132 SMs; the opt-in shared memory per block is 232448 B, and each resident CTA also costs 1 KiB of
# reserved shared memory out of the SM's 233472 B.
SM_COUNT = 132
MAX_SMEM_BYTES = 232448
SM_SMEM_BYTES = 233472
RESERVED_SMEM_PER_CTA = 1024
MAX_BOX = 256                 # TMA box extent limit per dimension
MAX_PHASES = 16               # stride up to 4x4 (kMaxPhases)

_ELEMENT_TYPES = {"f16": "cutlass::half_t", "bf16": "cutlass::bfloat16_t"}
_INT32_MAX = 2**31 - 1


SCHEDULES = ("cooperative", "pingpong")
TRANSPOSED_TILE_M = (128, 192, 256, 384, 512)   # pixels of a transposed tile (the MMA's N, two warpgroups')


@dataclass(frozen=True)
class Sm90Config:
    dtype: str
    tile_m: int        # output pixels of a tile: 128 or 256 (cooperative), 64 or 128 (ping-pong)
    tile_n: int        # 64, 128 or 256 channels of dx
    stages: int        # TMA pipeline depth
    ctas_per_sm: int   # 1 (setmaxnreg gives consumers 224 registers) or 2 (80 each; hide each other's epilogue)
    schedule: str = "cooperative"  # both consumer warpgroups on each tile, or one each, taking turns
    cluster: int = 1   # CTAs per cluster sharing an operand tile through TMA multicast (1 or 2): along M the
                       # filter tile, along the channels (share_dy) the dy tile
    resident_k: int = 0  # 0: the filter streams through the stage ring; N: a resident slab of N 64-wide K blocks
                         # (1x1 filters with K <= 64 N), loaded once per channel block; dy alone streams
    store_slots: int = 0  # 0: the whole output tile is staged at once; E >= 1: a ring of E slots of tile_m x 64,
                          # one 64-channel block staged and stored at a time (stores overlap the conversion);
                          # transposed 128-channel tiles: one warpgroup's 64 channels a block
    split_k: int = 1   # CTAs of a cluster splitting each tile's reduction, summed through distributed shared memory
    wg_stores: bool = False  # cooperative 128-row tiles with a store ring: each consumer warpgroup stages and
                             # stores its own 64 rows (own barrier, own storer), so neither waits for the other
    transposed: bool = False  # the MMA computes dx^T (channels x pixels): 64 or 128 channels by tile_m pixels,
                              # tile_m any multiple of 64 the accumulators hold (1x1 problems walk flat pixels)
    tile_buffers: int = 1     # transposed: 2 stages tiles into two staging tiles in turns (stores drain meanwhile)
    share_dy: bool = False    # the cluster lies along the channels: its CTAs take neighbouring channel blocks of one
                              # M tile and each loads half of the shared dy tile for both (cluster 2)
    thread_stores: bool = False  # the staged dx leaves shared memory through the consumer threads (16-byte loads
                                 # and global stores) instead of TMA stores, which queue in the TMA unit behind the
                                 # producer's loads; at most 8 rows a thread (tiles up to 256 rows)
    wg_release: bool = False  # 2-CTA clusters: each consumer warpgroup releases a stage once to each CTA (one
                              # warp apiece, 4 arrivals a stage), as CUTLASS's multicast pipeline does, instead of
                              # every consumer warp to both CTAs (16)
    warp_stores: bool = False  # a store ring: each consumer warp stages and stores the 16 rows of each 64-row
                               # MMA slice it holds (16-row dx boxes, lane 0 of each warp storing), with no
                               # barrier between warps in the epilogue; not transposed, split-K, warpgroup- or
                               # thread-store kernels
    wg_offset: int = 0  # cooperative kernels with warpgroup or warp stores: consumer warpgroup 1 starts this many
                        # K blocks behind warpgroup 0 and stays behind, so one warpgroup's epilogue runs while the
                        # other multiplies (fewer than `stages`: the lead costs warpgroup 0 as much prefetch)
    flat: bool = False  # not transposed, 1x1 unit-stride unpadded problems only: the walk goes over flat pixels
                        # (one row of N*H*W, as transposed kernels always walk), so an M tile is tile_m consecutive
                        # pixels, one contiguous run of dy and of dx, as in a GEMM, instead of a spatial box
    halo_blocks: int = 0  # halo tiles (transposed, 64 channels, unit-stride filters of several taps): a resident
                          # slab of every tap's filter blocks (taps x K blocks, at most halo_blocks), and per K block
                          # one dy halo (the tile's rows and the R - 1 above them) that every tap reads shifted,
                          # instead of a dy box per tap; 0: none
    halo_rows: int = 0    # halo tiles: the pixel rows of 128 bytes a halo stage holds (the halo, and the S - 1
                          # rows the last tap's view reads past it)
    clip_taps: bool = False  # each tile skips the filter taps that read only dy's padding for its box, and the walk
                             # puts border boxes last (images fastest) so that CTAs draw full and clipped tiles
                             # alike; not halo tiles, M clusters or split-K
    skip_partner: bool = False  # ping-pong without a filter slab or clipped taps: each consumer warpgroup passes
                                # over its partner's tiles without decoding them where the walk is one phase
    box_walk: bool = False  # each CTA takes whole boxes (every channel unit of a box in turn) instead of units
                            # strided over the grid, so it rereads a box's dy from L2 itself whatever the CTAs'
                            # drift, and decodes a box once; one CTA a unit, no filter slab or partner skip

    family: ClassVar[str] = FAMILY

    def __post_init__(self):
        if self.dtype not in DTYPES:
            raise ValueError(f"dtype must be one of {DTYPES}, got {self.dtype!r}")
        if self.schedule not in SCHEDULES:
            raise ValueError(f"schedule must be one of {SCHEDULES}, got {self.schedule!r}")
        allowed_m = (128, 256) if self.schedule == "cooperative" else (64, 128)
        if self.transposed:
            allowed_m = TRANSPOSED_TILE_M if self.schedule == "cooperative" else (128, 256)
            if ((self.schedule != "cooperative" and (self.tile_buffers != 1 or self.store_slots
                                                      or (self.tile_n == 128 and self.tile_m != 128)))
                    or self.resident_k or self.split_k > 1
                    or self.ctas_per_sm != 1
                    or self.tile_n not in (64, 128)
                    or (self.store_slots and (self.tile_n != 128 or self.tile_buffers != 1))):
                raise ValueError("transposed tiles are one CTA per SM, 64 or 128 channels (ping-pong: 64, or 128 by "
                                 "128 pixels, a staging tile per warpgroup), without a resident filter or split-K; a "
                                 "store ring only with 128 channels and one staging tile")
        if self.tile_buffers not in (1, 2) or (self.tile_buffers == 2 and not self.transposed):
            raise ValueError(f"tile_buffers must be 1, or 2 for transposed tiles, got {self.tile_buffers}")
        if self.tile_m not in allowed_m:
            raise ValueError(f"tile_m of a {self.schedule} kernel must be one of {allowed_m}, got {self.tile_m}")
        if self.tile_n not in (64, 128, 192, 256):
            raise ValueError(f"tile_n must be 64, 128, 192 or 256, got {self.tile_n}")
        if self.accumulators_per_warpgroup > 128 * 128:
            raise ValueError(f"tile {self.tile_m}x{self.tile_n} needs more accumulator registers than a thread has")
        if self.stages < 2:
            raise ValueError(f"stages must be >= 2, got {self.stages}")
        if self.cluster not in (1, 2):
            raise ValueError(f"cluster must be 1 or 2, got {self.cluster}")
        if self.ctas_per_sm not in (1, 2):
            raise ValueError(f"ctas_per_sm must be 1 or 2, got {self.ctas_per_sm}")
        if self.share_dy and (self.cluster != 2 or self.split_k > 1):
            raise ValueError("a dy-sharing cluster is 2 CTAs along the channels, without split-K")
        if self.resident_k < 0 or (self.resident_k and self.cluster != 1):
            raise ValueError(f"resident_k must be >= 0 and needs cluster 1, got {self.resident_k} "
                             f"with cluster {self.cluster}")
        if self.store_slots < 0:
            raise ValueError(f"store_slots must be 0 (whole tile) or >= 1, got {self.store_slots}")
        if self.split_k not in (1, 2, 4):
            raise ValueError(f"split_k must be 1, 2 or 4, got {self.split_k}")
        if self.split_k > 1 and (self.schedule != "cooperative" or self.cluster != 1 or self.resident_k
                                 or self.store_slots):
            raise ValueError("split-K kernels are cooperative, without an M cluster, a resident filter or a "
                             "store ring")
        if self.wg_stores and (self.schedule != "cooperative" or self.tile_m != 128 or self.store_slots < 1
                               or self.split_k > 1):
            raise ValueError("warpgroup stores are for cooperative 128-row tiles with a store ring, without split-K")
        if self.thread_stores and (self.split_k > 1 or self.copy_rows_per_thread > 8):
            raise ValueError("thread stores are for kernels without split-K whose threads copy at most 8 rows "
                             f"(tile {self.tile_m}x{self.tile_n}: {self.copy_rows_per_thread})")
        if self.wg_release and self.cluster != 2:
            raise ValueError("a warpgroup release is for 2-CTA clusters (cluster 2)")
        if self.warp_stores and (self.store_slots < 1 or self.transposed or self.split_k > 1 or self.wg_stores
                                 or self.thread_stores):
            raise ValueError("warp stores need a store ring, and are not for transposed, split-K, warpgroup-store "
                             "or thread-store kernels")
        if self.wg_offset and (self.schedule != "cooperative" or self.transposed
                               or not (self.wg_stores or self.warp_stores)
                               or not 0 < self.wg_offset < self.stages):
            raise ValueError("a warpgroup offset is for cooperative kernels with warpgroup or warp stores, and is "
                             f"under the stage count (got {self.wg_offset} with {self.stages} stages)")
        if bool(self.halo_blocks) != bool(self.halo_rows) or self.halo_blocks < 0 or (self.halo_blocks and (
                not self.transposed or self.tile_n != 64 or self.cluster != 1 or self.store_slots
                or self.thread_stores or self.halo_rows % 8 or self.halo_rows < self.tile_m)):
            raise ValueError("halo tiles are transposed 64-channel tiles without a cluster, store ring or thread "
                             "stores, with a filter slab (halo_blocks) and a halo stage of a multiple of 8 pixel rows, "
                             f"at least a tile's (halo_rows): got {self.halo_blocks} and {self.halo_rows}")
        if self.clip_taps and (self.halo_blocks or self.cluster_m > 1 or self.split_k > 1):
            raise ValueError("clipped taps are per tile: not for halo tiles, M clusters (sharing one tap's filter "
                             "tile) or split-K")
        if self.skip_partner and (self.schedule != "pingpong" or self.resident_k or self.halo_blocks
                                  or self.clip_taps):
            raise ValueError("skipping the partner's tiles is for ping-pong kernels without a filter slab or clipped "
                             "taps")
        if self.box_walk and (self.cluster_ctas > 1 or self.resident_k or self.halo_blocks or self.skip_partner):
            raise ValueError("a box walk is for kernels of one CTA a unit without a filter slab (which keeps one "
                             "channel block a CTA) or a partner skip")
        if self.flat and self.transposed:
            raise ValueError("transposed kernels always walk 1x1 problems as flat pixels: no flat flag")
        if self.ctas_per_sm == 2 and self.rows_per_warpgroup * self.tile_n > 64 * 64:
            # Two CTAs leave 80 registers a thread: ptxas needs ~90 for a 64x128 f32 accumulator.
            raise ValueError(f"tile {self.tile_m}x{self.tile_n} needs more registers than two CTAs per SM leave")

    @property
    def rows_per_warpgroup(self) -> int:
        return self.tile_m if self.schedule == "pingpong" else self.tile_m // 2

    @property
    def copy_rows_per_thread(self) -> int:
        """Thread stores: tile rows each thread copies out (DgradKernel::kRowsPerThread): 8 chunks a row, shared
        by the tile's owners (256 threads cooperative, 128 ping-pong) or, with warpgroup stores, by one warpgroup
        over its half."""
        threads = 128 if self.schedule == "pingpong" or self.wg_stores else 256
        rows = self.tile_m // 2 if self.wg_stores else self.tile_m
        return rows * 8 // threads

    @property
    def accumulators_per_warpgroup(self) -> int:
        """f32 accumulator elements of one consumer warpgroup (transposed: its channels by its pixels)."""
        if self.transposed:
            if self.schedule == "pingpong":
                return self.tile_n * self.tile_m
            return 64 * (self.tile_m // 2 if self.tile_n == 64 else self.tile_m)
        return self.rows_per_warpgroup * self.tile_n

    @property
    def name(self) -> str:
        return (f"iree_cutlass_dgrad_sm90_{self.dtype}_{self.tile_m}x{self.tile_n}x{TILE_K}"
                f"_s{self.stages}_c{self.ctas_per_sm}{'_pp' if self.schedule == 'pingpong' else ''}"
                f"{f'_{self.cluster_axis}{self.cluster}' if self.cluster > 1 else ''}"
                f"{f'_rk{self.resident_k}' if self.resident_k else ''}"
                f"{f'_e{self.store_slots}' if self.store_slots else ''}"
                f"{'_ws' if self.wg_stores else ''}"
                f"{f'_k{self.split_k}' if self.split_k > 1 else ''}"
                f"{'_tr' if self.transposed else ''}"
                f"{'_b2' if self.tile_buffers == 2 else ''}"
                f"{'_ts' if self.thread_stores else ''}"
                f"{'_wr' if self.wg_release else ''}"
                f"{'_wp' if self.warp_stores else ''}"
                f"{f'_o{self.wg_offset}' if self.wg_offset else ''}"
                f"{'_fl' if self.flat else ''}"
                f"{f'_hl{self.halo_blocks}x{self.halo_rows}' if self.halo_blocks else ''}"
                f"{'_ct' if self.clip_taps else ''}"
                f"{'_sp' if self.skip_partner else ''}"
                f"{'_bw' if self.box_walk else ''}")

    @property
    def cluster_ctas(self) -> int:
        """CTAs of one cluster: along M or the channels (cluster) times along the reduction (split_k)."""
        return self.cluster * self.split_k

    @property
    def cluster_axis(self) -> str:
        """The name's letter for the cluster's direction: m (sharing the filter) or n (sharing dy)."""
        return "n" if self.share_dy else "m"

    @property
    def cluster_m(self) -> int:
        """CTAs of a walk unit along M (neighbouring spatial tiles sharing the filter tile)."""
        return 1 if self.share_dy else self.cluster

    @property
    def channel_unit(self) -> int:
        """Channels of a walk unit: one tile, or a dy-sharing cluster's two neighbouring tiles."""
        return self.tile_n * (self.cluster if self.share_dy else 1)


@dataclass(frozen=True)
class Box:
    """The spatial M tile: box_n images x box_h rows x box_w columns of one output phase."""
    n: int
    h: int
    w: int


def _align(value: int, alignment: int) -> int:
    return (value + alignment - 1) // alignment * alignment


def shared_storage_bytes(config: Sm90Config) -> int:
    """sizeof(DgradKernel::SharedStorage), field by field in declaration order (static_asserted in each kernel)."""
    stage_elements_a = (config.halo_rows or config.tile_m) * TILE_K * config.stages
    stage_elements_b = config.tile_n * TILE_K * (config.resident_k or config.halo_blocks or config.stages)
    offset = 0
    if config.split_k > 1:
        offset = config.tile_m * config.tile_n * 4 + 2 * 8                 # SplitKStorage base: partial, barriers
    offset = _align(offset, 1024) + stage_elements_a * 2                   # a
    offset = _align(offset, 1024) + stage_elements_b * 2                   # b
    buffers = 2 if config.schedule == "pingpong" else config.tile_buffers
    staging_elements = config.store_slots * config.tile_m * TILE_K if config.store_slots else \
        config.tile_m * config.tile_n
    if config.schedule == "pingpong" and config.halo_blocks:
        staging_elements = 8   # ping-pong halo tiles stage in the halo stage they multiplied (kStageInStage)
    offset = _align(offset, 1024) + buffers * staging_elements * 2        # staging
    offset = _align(offset, 8) + config.stages * 8                         # full
    offset = offset + config.stages * 8                                    # empty
    offset = offset + 2 * 8                                                # turn
    offset = offset + 2 * 8                                                # b_full, b_empty
    offset = _align(offset, 128) + WARPS * DESCRIPTOR_BYTES                # tensormap scratch
    return _align(offset, 1024)


def smem_bytes(config: Sm90Config) -> int:
    """Dynamic shared memory: SharedStorage plus 1 KiB to align it to 1024 bytes by hand."""
    return shared_storage_bytes(config) + 1024


def fits(config: Sm90Config) -> bool:
    """Whether ctas_per_sm CTAs of this config fit one SM's shared memory."""
    per_cta = smem_bytes(config) + RESERVED_SMEM_PER_CTA
    return smem_bytes(config) <= MAX_SMEM_BYTES and per_cta * config.ctas_per_sm <= SM_SMEM_BYTES


def zero_fills(problem: DgradProblem) -> bool:
    """Whether the kernel walks phase (0, 0) alone and zero-fills the others with plain stores beside the walk:
    a 1x1 filter with stride > 1 and no padding, whose other phases no filter tap reaches. Walked as zero tiles
    instead, they cost a tile's staging, barriers and TMA stores each, in turns with the computed tiles (the
    1x1/s2 256<-512 layer at batch 256 was 1.11x cuDNN that way)."""
    p = problem
    return (p.r, p.s) == (1, 1) and p.pad_h == p.pad_w == 0 and p.stride_h * p.stride_w > 1 and p.c % 8 == 0


def walked_phases(problem: DgradProblem) -> int:
    """Output phases the tile walk covers (TileWalk::phases): 1 with zero fill, else every phase."""
    return 1 if zero_fills(problem) else problem.stride_h * problem.stride_w


def _phase_extents(problem: DgradProblem) -> list[tuple[int, int]]:
    """(rows, columns) of each walked phase, in the walk's order."""
    p = problem
    return [(len(range(ph, p.h, p.stride_h)), len(range(pw, p.w, p.stride_w)))
            for ph in range(p.stride_h) for pw in range(p.stride_w)][:walked_phases(p)]


def is_plain_gemm(problem: DgradProblem) -> bool:
    """Whether `problem` is a 1x1 unit-stride unpadded dgrad: a plain GEMM over its N*H*W pixels."""
    p = problem
    return (p.r, p.s, p.stride_h, p.stride_w, p.pad_h, p.pad_w) == (1, 1, 1, 1, 0, 0)


def kernel_problem(config: Sm90Config, problem: DgradProblem) -> DgradProblem:
    """The problem as the kernel walks it. A transposed or flat kernel walks a 1x1 unit-stride unpadded problem (a
    plain GEMM over pixels) as one row of N*H*W pixels, or as rows of 256 for tiles over 256 pixels (a box extent
    is at most 256), so that any tile_m tiles the pixels without waste (192: 66 tiles of the 7x7 batch-256 layer's
    12544 pixels, where 192-pixel boxes of 7x7 images would need 98) and each tile is one contiguous run."""
    p = problem
    if not (config.transposed or config.flat) or not is_plain_gemm(p):
        return p
    pixels = p.n * p.h * p.w
    if config.tile_m <= MAX_BOX:
        rows, width = 1, pixels
    elif pixels % MAX_BOX == 0:
        rows, width = pixels // MAX_BOX, MAX_BOX
    else:
        return p
    return dataclasses.replace(p, n=rows, h=1, w=width, p=1, q=width)


def choose_box(config: Sm90Config, problem: DgradProblem) -> Box | None:
    """The box (n, h, w) with n*h*w == tile_m that covers every phase in the fewest live tiles; ties go to the
    widest rows (longer contiguous runs of dx per tile). A halo tile's box is rows of one image, wide enough for
    every column its taps read (W + S - 1): None if tile_m has no such box."""
    p = kernel_problem(config, problem)
    extents = _phase_extents(p)
    best, best_key = None, None
    for w in range(1, min(config.tile_m, MAX_BOX) + 1):
        if config.halo_blocks and w < p.w + p.s - 1:
            continue
        for h in range(1, config.tile_m // w + 1):
            if config.tile_m % (w * h):
                continue
            n = config.tile_m // (w * h)
            if n <= MAX_BOX and not (config.halo_blocks and n != 1):
                tiles = sum(-(-p.n // n) * -(-rows // h) * -(-cols // w) for rows, cols in extents if rows and cols)
                key = (tiles, -w, -h)
                if best_key is None or key < best_key:
                    best, best_key = Box(n, h, w), key
    return best


def _spatial_tiles(problem: DgradProblem, box: Box) -> int:
    """Boxes covering one phase (every phase gets as many as the largest one): TileWalk::tiles_m."""
    p = problem
    rows_max, cols_max = -(-p.h // p.stride_h), -(-p.w // p.stride_w)
    return -(-cols_max // box.w) * -(-rows_max // box.h) * -(-p.n // box.n)


def tile_count(config: Sm90Config, problem: DgradProblem, box: Box | None = None) -> int:
    """Tiles the kernel covers: channel blocks x walked phases x spatial boxes."""
    p = kernel_problem(config, problem)
    box = box or choose_box(config, problem)
    return -(-p.c // config.tile_n) * walked_phases(p) * _spatial_tiles(p, box)


def channel_units(config: Sm90Config, problem: DgradProblem) -> int:
    """Channel units of a box (TileWalk::tiles_c): the walk's fastest digit."""
    return -(-kernel_problem(config, problem).c // config.channel_unit)


def unit_count(config: Sm90Config, problem: DgradProblem, box: Box | None = None) -> int:
    """Units the kernel walks (TileWalk::count): tiles, or per cluster one tile per CTA (along M or the
    channels)."""
    p = kernel_problem(config, problem)
    box = box or choose_box(config, problem)
    return channel_units(config, problem) * walked_phases(p) * -(-_spatial_tiles(p, box) // config.cluster_m)


@dataclass(frozen=True)
class Sm90Launch:
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    smem_bytes: int
    box: Box


def launch_geometry(config: Sm90Config, problem: DgradProblem) -> Sm90Launch:
    """A persistent grid: one CTA per SM per resident slot, or fewer when there are fewer units; whole clusters.
    A resident-filter kernel takes a multiple of the channel blocks where one fits, so that each CTA keeps one
    channel block (tiles are walked channels fastest) and loads its filter slab once. With zero fill every slot
    is taken, so that all SMs share the zeros even where the walk has fewer units."""
    box = choose_box(config, problem)
    slots = SM_COUNT * config.ctas_per_sm // config.cluster_ctas
    channel_blocks = -(-problem.c // config.tile_n)
    if config.resident_k and channel_blocks <= slots:
        slots -= slots % channel_blocks
    units = unit_count(config, problem, box)
    if config.box_walk:
        units //= channel_units(config, problem)   # a CTA takes whole boxes
    clusters = slots if zero_fills(problem) else min(units, slots)
    ctas = clusters * config.cluster_ctas
    return Sm90Launch(grid=(ctas, 1, 1), block=(THREADS, 1, 1), smem_bytes=smem_bytes(config), box=box)


def descriptors_per_cta(problem: DgradProblem) -> int:
    """dy, the filter, and dx once per output phase."""
    return 2 + problem.stride_h * problem.stride_w


def workspace_bytes(config: Sm90Config, problem: DgradProblem) -> int:
    slots = launch_geometry(config, problem).grid[0]
    return slots * descriptors_per_cta(problem) * DESCRIPTOR_BYTES + WORKSPACE_SLACK


def fast_divisor(value: int) -> tuple[int, int, int]:
    """(value, multiplier, shift) with x // value == (x * multiplier >> 32) >> shift for 0 <= x < 2**31
    (CUTLASS's FastDivmod; value 1 is a copy on the device, multiplier and shift unused)."""
    if not 1 <= value <= 2**31 - 1:
        raise ValueError(f"divisor {value} is outside [1, 2^31)")
    if value == 1:
        return 1, 0, 0
    power = 31 + (value - 1).bit_length()        # 31 + ceil(log2(value))
    return value, -(-(1 << power) // value), power - 32


def walk_divisors(config: Sm90Config, problem: DgradProblem, box: Box) -> list[int]:
    """The divisors of TileWalk::decode, each as fast_divisor's triple: channel units, phases, boxes across a
    phase's columns and rows, and the two strides."""
    p = kernel_problem(config, problem)
    rows_max, cols_max = -(-p.h // p.stride_h), -(-p.w // p.stride_w)
    divisors = (-(-p.c // config.channel_unit), walked_phases(p), -(-cols_max // box.w), -(-rows_max // box.h),
                p.stride_h, p.stride_w)
    return [part for divisor in divisors for part in fast_divisor(divisor)]


def push_constants(config: Sm90Config, problem: DgradProblem) -> list[int]:
    """The CONSTANTS uint32 push constants in kernel-parameter order (the shape the kernel walks)."""
    p = kernel_problem(config, problem)
    geometry = launch_geometry(config, problem)
    box = geometry.box
    return checked_push_constants([p.n, p.h, p.w, p.c, p.k, p.r, p.s, p.p, p.q, p.pad_h, p.pad_w,
                                   p.stride_h, p.stride_w, box.n, box.h, box.w, geometry.grid[0]]) + \
        walk_divisors(config, problem, box)


def supports(config: Sm90Config, problem: DgradProblem) -> str | None:
    """None if `config` computes `problem` correctly, else a one-line reason."""
    p = problem
    if config.dtype != p.dtype:
        return f"kernel is {config.dtype}, problem is {p.dtype}"
    if p.k % 8:
        return f"K={p.k} is not a multiple of 8 (TMA row strides are multiples of 16 bytes)"
    if p.c % 8:
        return f"C={p.c} is not a multiple of 8 (16-byte dx stores, TMA row strides)"
    if p.stride_h * p.stride_w > MAX_PHASES:
        return f"stride {p.stride_h}x{p.stride_w} has more than {MAX_PHASES} output phases"
    if config.flat and not is_plain_gemm(p):
        return "a flat walk is for 1x1 unit-stride unpadded problems"
    walked = kernel_problem(config, p)
    if max(p.n, p.h, p.w, p.c, p.k, p.p, p.q, p.r * p.s, walked.w, walked.q) > _INT32_MAX:
        return "a dimension exceeds the 32-bit range of TMA coordinates"
    if p.n * p.p * p.q * p.k * 2 >= 2**40 or p.n * p.h * p.w * p.c * 2 >= 2**40:
        return "dy or dx is too large for a TMA descriptor (strides under 2^40 bytes)"
    if config.resident_k:
        if (p.r, p.s) != (1, 1):
            return f"a resident filter slab needs a 1x1 filter, not {p.r}x{p.s}"
        if -(-p.k // TILE_K) > config.resident_k:
            return f"K={p.k} needs {-(-p.k // TILE_K)} K blocks of {TILE_K}; the slab holds {config.resident_k}"
    if config.halo_blocks:
        reason = _halo_refusal(config, p)
        if reason:
            return reason
    if config.share_dy:
        box = choose_box(config, p)
        extent = next((e for e in (box.n, box.h, box.w) if e >= 2), 1)
        if extent % 2:
            return f"box {box.n}x{box.h}x{box.w} cannot be halved between a dy-sharing cluster's CTAs"
    if not fits(config):
        return (f"kernel needs {smem_bytes(config)} B of shared memory per CTA, too much for "
                f"{config.ctas_per_sm} CTA(s) per SM")
    return None


def halo_rows(tile_m: int, problem: DgradProblem) -> int | None:
    """The pixel rows a halo stage needs for `problem` at tile_m (a multiple of 8), or None without a halo box."""
    p = problem
    probe = Sm90Config(p.dtype, tile_m, 64, 2, 1, transposed=True, halo_blocks=1, halo_rows=_align(tile_m, 8))
    box = choose_box(probe, p)
    return None if box is None else _align(_halo_rows_read(box, p), 8)


def _halo_rows_read(box: Box, p: DgradProblem) -> int:
    """Pixel rows a halo tile's taps read from its stage: the halo box (box_h + R - 1 rows of box_w) and the S - 1
    rows the last tap's view reads past it (the kernel's halo_fits)."""
    return (box.h + p.r - 1) * box.w + p.s - 1


def halo_config(problem: DgradProblem, tile_m: int, schedule: str = "cooperative",
                tile_buffers: int = 1) -> Sm90Config | None:
    """The halo-tile config of tile_m pixels for `problem` at the deepest pipeline that fits (every tap's filter
    resident, a stage of halo_rows), or None where the problem is not a unit-stride filter of several taps on
    C <= 64, tile_m has no halo box, or fewer than two stages fit."""
    p = problem
    if (p.stride_h, p.stride_w) != (1, 1) or p.r * p.s < 2 or p.c > 64:
        return None
    rows = halo_rows(tile_m, p)
    if rows is None:
        return None
    stages = max_stages(tile_m, 64, 1, p.dtype, schedule, transposed=True, tile_buffers=tile_buffers,
                        halo_blocks=halo_blocks(p), halo_rows=rows)
    if stages < 2:
        return None
    return Sm90Config(p.dtype, tile_m, 64, stages, 1, schedule, transposed=True, tile_buffers=tile_buffers,
                      halo_blocks=halo_blocks(p), halo_rows=rows)


def kernel_code(entry: str) -> str:
    """An entry point without a halo kernel's capacities (`_hlBxR` -> `_hl`): the same code on every problem."""
    return re.sub(r"_hl\d+x\d+$", "_hl", entry)


def halo_blocks(problem: DgradProblem) -> int:
    """Filter blocks of 64 x 64 a halo kernel keeps resident for `problem`: every tap's K blocks."""
    return problem.r * problem.s * -(-problem.k // TILE_K)


def _halo_refusal(config: Sm90Config, p: DgradProblem) -> str | None:
    """Why a halo kernel cannot compute `p`, or None (the kernel's halo_fits, and one channel block)."""
    if (p.stride_h, p.stride_w) != (1, 1) or p.r * p.s < 2:
        return "halo tiles are for unit-stride filters of several taps"
    if p.c > config.tile_n:
        return f"a halo kernel keeps one channel block's filter resident: C={p.c} is over {config.tile_n}"
    if halo_blocks(p) > config.halo_blocks:
        return f"the filter needs {halo_blocks(p)} blocks of {TILE_K}x{TILE_K}; the slab holds {config.halo_blocks}"
    box = choose_box(config, p)
    if box is None:
        return f"no box of {config.tile_m} pixels spans a row of {p.w + p.s - 1} (W + S - 1)"
    if box.h + p.r - 1 > MAX_BOX:
        return f"the halo box is {box.h + p.r - 1} rows tall, over TMA's {MAX_BOX}"
    if _halo_rows_read(box, p) > config.halo_rows:
        return f"the halo needs {_halo_rows_read(box, p)} pixel rows; a stage holds {config.halo_rows}"
    return None


_ENTRY = """
// Generated by iree_cutlass.plugin.sm90 for config {name}.
using Kernel = iree_cutlass_sm90::DgradKernel<{element}, {tile_m}, {tile_n}, {stages}, {ctas}, {pingpong}, {cluster},
                                             {resident_k}, {store_slots}, {split_k}, {wg_stores}, {transposed},
                                             {tile_buffers}, {share_dy}, {thread_stores}, {wg_release},
                                             {warp_stores}, {wg_offset}, {halo_blocks}, {halo_rows}, {clip_taps},
                                             {skip_partner}, {box_walk}>;
static_assert(sizeof(Kernel::SharedStorage) == {shared_storage}, "shared storage formula (sm90.py) out of date");
static_assert(Kernel::kSmemBytes == {smem}, "dynamic shared memory formula (sm90.py) out of date");
IREE_CUTLASS_SM90_DGRAD_ENTRY({name}, {element}, {tile_m}, {tile_n}, {stages}, {ctas}, {pingpong}, {cluster},
                              {resident_k}, {store_slots}, {split_k}, {wg_stores}, {transposed}, {tile_buffers},
                              {share_dy}, {thread_stores}, {wg_release}, {warp_stores}, {wg_offset},
                              {halo_blocks}, {halo_rows}, {clip_taps}, {skip_partner}, {box_walk})
"""


def generate_source(config: Sm90Config) -> str:
    """The kernel header followed by this config's entry point: one self-contained translation unit, so the
    kernel cache key (a hash of the source) covers the header too."""
    header = HEADER.read_text().replace("#pragma once\n", "")
    return header + _ENTRY.format(
        name=config.name, element=_ELEMENT_TYPES[config.dtype], tile_m=config.tile_m, tile_n=config.tile_n,
        stages=config.stages, ctas=config.ctas_per_sm, pingpong=str(config.schedule == "pingpong").lower(),
        cluster=config.cluster, resident_k=config.resident_k, store_slots=config.store_slots,
        split_k=config.split_k, wg_stores=str(config.wg_stores).lower(), transposed=str(config.transposed).lower(),
        tile_buffers=config.tile_buffers, share_dy=str(config.share_dy).lower(),
        thread_stores=str(config.thread_stores).lower(), wg_release=str(config.wg_release).lower(),
        warp_stores=str(config.warp_stores).lower(), wg_offset=config.wg_offset,
        halo_blocks=config.halo_blocks, halo_rows=config.halo_rows, clip_taps=str(config.clip_taps).lower(),
        skip_partner=str(config.skip_partner).lower(), box_walk=str(config.box_walk).lower(),
        shared_storage=shared_storage_bytes(config),
        smem=smem_bytes(config))


# (schedule, tile_m, tile_n, CTAs per SM, cluster) of the candidate space; each at the deepest pipeline that fits.
CANDIDATE_SHAPES = (
    ("cooperative", 128, 64, 1, 1), ("cooperative", 128, 64, 2, 1), ("cooperative", 128, 128, 1, 1),
    ("cooperative", 128, 256, 1, 1), ("cooperative", 256, 64, 1, 1), ("cooperative", 256, 128, 1, 1),
    ("pingpong", 64, 128, 1, 1), ("pingpong", 64, 256, 1, 1), ("pingpong", 128, 64, 1, 1),
    ("pingpong", 128, 128, 1, 1),
    ("cooperative", 128, 128, 1, 2), ("cooperative", 128, 256, 1, 2), ("cooperative", 256, 128, 1, 2),
    ("pingpong", 128, 128, 1, 2), ("pingpong", 64, 256, 1, 2),
)


# (schedule, tile_m, tile_n) of the resident-filter candidates for 1x1 problems (one CTA per SM, no cluster),
# each with a slab of exactly the problem's K blocks and the deepest dy ring that fits beside it.
RESIDENT_SHAPES = (
    ("cooperative", 128, 128), ("cooperative", 128, 256), ("cooperative", 256, 64), ("cooperative", 256, 128),
    ("pingpong", 128, 64), ("pingpong", 128, 128),
)


# (tile_m, tile_n) of the cooperative split-K candidates, each with 2 and 4 CTAs per tile, for problems whose
# tiles cannot fill the GPU once.
SPLIT_K_SHAPES = ((128, 64), (128, 128), (128, 256))
SPLIT_K = (2, 4)

# (tile_m pixels, tile_n channels) of the transposed candidates, each alone and in a 2-CTA cluster sharing the
# filter tile: cuDNN's own Hopper 1x1 dgrad kernels run 64 x 512 (C = 64) and 128 x 192 (the 7x7 C = 512 layer,
# five stages) this way round.
TRANSPOSED_SHAPES = ((128, 64), (256, 64), (384, 64), (512, 64), (128, 128), (192, 128), (256, 128))

# (tile_m pixels, tile_n channels) of the ping-pong transposed candidates (one warpgroup's whole tile, a staging
# tile each), alone and in a 2-CTA cluster sharing the filter tile.
PINGPONG_TRANSPOSED_SHAPES = ((128, 64), (256, 64), (128, 128))

# Pixels of the halo-tile candidates (transposed, 64 channels; unit-stride filters of several taps, C <= 64).
HALO_TILE_M = (128, 256)

# Head starts of consumer warpgroup 0 over warpgroup 1, in K blocks (`wg_offset`), below each kernel's stage count.
WG_OFFSETS = (1, 2, 3)

# Store rings measured beside whole-tile staging (store_slots 0): E slots of tile_m x 64, up to two tiles' worth
# (one slot leaves room for one more stage of the 256x128 tiles).
STORE_SLOTS = (1, 2, 4, 8)


def candidate_configs(problem: DgradProblem, split_k: bool = False) -> list[Sm90Config]:
    """The tile space a tuner measures: CANDIDATE_SHAPES at the deepest pipeline that fits, and for 1x1 filters
    RESIDENT_SHAPES with a resident filter slab; each with whole-tile staging and with every store ring of
    STORE_SLOTS that holds at most two tiles and leaves room for two stages; TRANSPOSED_SHAPES, and the ping-pong
    transposed tiles of PINGPONG_TRANSPOSED_SHAPES. Each 2-CTA cluster is offered along M (sharing the filter tile)
    and along the channels (sharing the dy tile); each kernel also with thread stores where they fit, each
    TMA-stored ring also with warp stores, and each cluster also with a warpgroup release; each cooperative kernel
    with warpgroup or warp stores also with warpgroup 1 started WG_OFFSETS K blocks behind warpgroup 0; on a plain
    GEMM (1x1, unit stride, no padding) every kernel that is not transposed also walking flat pixels; for
    unit-stride filters of several taps on C <= 64, halo tiles of HALO_TILE_M pixels; where the walk is one
    phase, each ping-pong kernel also skipping its partner's tiles (`skip_partner`); where a box has several
    channel units, each kernel of one CTA a unit without a filter slab also walking whole boxes (`box_walk`).

    Split-K kernels join only when asked (`split_k`): they compute correctly (every measured run was valid) but
    compute-sanitizer's racecheck reports hazards on their distributed-shared-memory handoff, which it does not
    see through, so they are not shipped until the handoff is one racecheck can verify."""
    shapes = [(schedule, tile_m, tile_n, ctas, cluster, 0)
              for schedule, tile_m, tile_n, ctas, cluster in CANDIDATE_SHAPES]
    if (problem.r, problem.s) == (1, 1):
        kblocks = -(-problem.k // TILE_K)
        shapes += [(schedule, tile_m, tile_n, 1, 1, kblocks) for schedule, tile_m, tile_n in RESIDENT_SHAPES]
    configs = []
    for schedule, tile_m, tile_n, ctas, cluster, resident_k in shapes:
        for store_slots in (0, *(e for e in STORE_SLOTS if e <= 2 * tile_n // TILE_K)):
            stages = max_stages(tile_m, tile_n, ctas, problem.dtype, schedule, resident_k=resident_k,
                                store_slots=store_slots)
            if stages >= 2:
                configs.append(Sm90Config(problem.dtype, tile_m, tile_n, stages, ctas, schedule, cluster,
                                          resident_k, store_slots))
                if schedule == "cooperative" and tile_m == 128 and store_slots:
                    configs.append(Sm90Config(problem.dtype, tile_m, tile_n, stages, ctas, schedule, cluster,
                                              resident_k, store_slots, wg_stores=True))
    for tile_m, tile_n in TRANSPOSED_SHAPES:
        # Whole-tile staging in one or two buffers, and for 128 channels a one-slot ring where it buys a stage.
        whole_tile = max_stages(tile_m, tile_n, 1, problem.dtype, transposed=True)
        stagings = [(1, 0, whole_tile), (2, 0, max_stages(tile_m, tile_n, 1, problem.dtype, transposed=True,
                                                           tile_buffers=2))]
        if tile_n == 128:
            ring = max_stages(tile_m, tile_n, 1, problem.dtype, transposed=True, store_slots=1)
            if ring > whole_tile:
                stagings.append((1, 1, ring))
        for tile_buffers, store_slots, stages in stagings:
            if stages >= 2:
                for cluster in (1, 2):
                    configs.append(Sm90Config(problem.dtype, tile_m, tile_n, stages, 1, cluster=cluster,
                                              transposed=True, tile_buffers=tile_buffers, store_slots=store_slots))
    for tile_m, tile_n in PINGPONG_TRANSPOSED_SHAPES:
        stages = max_stages(tile_m, tile_n, 1, problem.dtype, "pingpong", transposed=True)
        if stages >= 2:
            configs += [Sm90Config(problem.dtype, tile_m, tile_n, stages, 1, "pingpong", cluster, transposed=True)
                        for cluster in (1, 2)]
    # Halo tiles, cooperative with one or two staging tiles and ping-pong, where the filter's every tap fits beside
    # two halo stages.
    configs += [config for tile_m in HALO_TILE_M
                for schedule, tile_buffers in (("cooperative", 1), ("cooperative", 2), ("pingpong", 1))
                if (config := halo_config(problem, tile_m, schedule, tile_buffers)) is not None]
    # Each kind of twin, where Sm90Config's own checks accept it: every 2-CTA cluster also along the channels
    # (sharing dy instead of the filter); every kernel also with thread stores instead of TMA stores (at most 8
    # rows a thread); every non-transposed TMA-stored ring also with warp stores (16-row boxes, no barrier between
    # warps); every cooperative kernel whose warpgroups never meet in the epilogue also with warpgroup 1 started
    # behind; every 2-CTA cluster also with one release a stage per warpgroup and CTA; where the walk is one phase,
    # every ping-pong kernel also skipping its partner's tiles.
    configs += _twins(configs, share_dy=True)
    configs += _twins(configs, thread_stores=True)
    configs += _twins(configs, warp_stores=True)
    configs += [t for c in configs for offset in WG_OFFSETS if (t := twin(c, wg_offset=offset)) is not None]
    configs += _twins(configs, wg_release=True)
    if is_plain_gemm(problem):
        configs += _twins(configs, flat=True)
    if (problem.r > 1 and problem.pad_h) or (problem.s > 1 and problem.pad_w):
        configs += _twins(configs, clip_taps=True)   # padding some taps read alone at the borders
    if walked_phases(problem) == 1:
        configs += _twins(configs, skip_partner=True)   # where the walk is one phase, the skip can apply
    # Where a box has several channel units: a twin walking whole boxes (a CTA each) of every kernel that allows it.
    configs += _twins([c for c in configs if channel_units(c, problem) > 1], box_walk=True)
    for tile_m, tile_n in SPLIT_K_SHAPES if split_k else ():
        for ctas in SPLIT_K:
            stages = max_stages(tile_m, tile_n, 1, problem.dtype, split_k=ctas)
            if stages < 2:
                continue
            config = Sm90Config(problem.dtype, tile_m, tile_n, stages, 1, split_k=ctas)
            if unit_count(config, problem) < SM_COUNT:
                configs.append(config)
    return [c for c in configs if supports(c, problem) is None]


def twin(config, **fields):
    """`config` with `fields` set, or None where that leaves it as it is or its own checks refuse the result."""
    try:
        changed = dataclasses.replace(config, **fields)
    except ValueError:
        return None
    return changed if changed != config else None


def _twins(configs: list[Sm90Config], **fields) -> list[Sm90Config]:
    """Each of `configs` with `fields` set, where that changes it and Sm90Config's own checks accept the result."""
    return [t for c in configs if (t := twin(c, **fields)) is not None]


def max_stages(tile_m: int, tile_n: int, ctas_per_sm: int, dtype: str = "f16", schedule: str = "cooperative",
               limit: int = 8, resident_k: int = 0, store_slots: int = 0, split_k: int = 1,
               transposed: bool = False, tile_buffers: int = 1, halo_blocks: int = 0, halo_rows: int = 0) -> int:
    best = 0
    for stages in range(2, limit + 1):
        if fits(Sm90Config(dtype, tile_m, tile_n, stages, ctas_per_sm, schedule, resident_k=resident_k,
                           store_slots=store_slots, split_k=split_k, transposed=transposed,
                           tile_buffers=tile_buffers, halo_blocks=halo_blocks, halo_rows=halo_rows)):
            best = stages
    return best
