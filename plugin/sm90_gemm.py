"""The sm90_gemm family: CUTLASS's own Hopper GEMM kernels (3.x collective builder, TMA + wgmma, warp-specialized
persistent) for the dgrad problems that are plain GEMMs, behind IREE's extern-dispatch ABI (sm90_gemm.cuh).

dx[N*H*W, C] = dy[N*H*W, K] x w[C, K]^T for a 1x1 filter, unit stride, no padding; or, swapped, dx^T[C, N*H*W] =
w[C, K] x dy[N*H*W, K]^T (tiles of channels by pixels, stored column-major: the same dx). A CUTLASS GEMM kernel takes
host-built Params (TMA descriptors included); they are built at kernel build time by the header's generator (a
host program, no GPU) for one problem, embedded in the kernel, and completed on the device for each launch's
buffers. So a config names its problem's GEMM extents (m, n, k) too, and one kernel serves one problem shape.
"""
from __future__ import annotations

import json
import pathlib
import re
from dataclasses import dataclass

from .problem import DgradProblem, checked_push_constants
from .sm90 import SM_COUNT, is_plain_gemm

DTYPES = ("f16", "bf16")
FAMILY = "sm90_gemm"
FILTER_LAYOUT = "rsck"          # a 1x1 filter as [C][K]: B of the GEMM, K contiguous
NVCC_ARCH = "sm_90a"
TARGET_ARCHS = ("sm_90", "sm_90a")
HEADER = pathlib.Path(__file__).parent / "sm90_gemm.cuh"
SCHEDULES = ("cooperative", "pingpong")
WORKSPACE_SLACK = 128           # the kernel aligns the workspace to 128 bytes
_ELEMENT_TYPES = {"f16": "cutlass::half_t", "bf16": "cutlass::bfloat16_t"}

# The tiles measured against cuDNN on the ResNet-50 1x1 layers (bench/cutlass_gemm, sessions 19-20): ping-pong
# 128x128 won four of the five layers where CUTLASS beat our kernels, ping-pong 128x64 the fifth.
CANDIDATE_SHAPES = ((128, 128, "pingpong"), (128, 64, "pingpong"), (64, 256, "pingpong"),
                    (128, 128, "cooperative"), (128, 256, "cooperative"), (256, 128, "cooperative"))
# The shapes also built as 2-CTA clusters along M (the filter tile multicast to both): ping-pong 128x128 with a
# 2x1 cluster won the 7x7 2048<-512 layer in session 20.
CLUSTER_SHAPES = ((128, 128, "pingpong"), (128, 256, "cooperative"), (256, 128, "cooperative"))
# Swapped kernels (channels by pixels), each also as a 2-CTA cluster along the channels (the dy tile multicast to
# both). cuDNN's kernel on the 7x7 1x1 512<-2048 layer is of this kind on the H200: a 128x192 tile, 2-CTA clusters,
# five stages (bench/NOTES.md, session 13); 128 channels by 192 pixels fills exactly two waves there.
SWAPPED_SHAPES = ((128, 192, "cooperative"), (128, 256, "cooperative"), (256, 128, "cooperative"),
                  (128, 128, "pingpong"))


@dataclass(frozen=True)
class Sm90GemmConfig:
    dtype: str
    tile_m: int        # GEMM rows (dx pixels) of a tile
    tile_n: int        # GEMM columns (dx channels) of a tile
    schedule: str      # "pingpong" (one consumer warpgroup a tile, taking turns) or "cooperative" (both)
    m: int             # the problem's GEMM extents: N*H*W, C, K (the Params are built for them)
    n: int
    k: int
    cluster_m: int = 1  # CTAs a cluster along M, sharing the filter tile through TMA multicast (1 or 2)
    swapped: bool = False  # dx^T = w x dy^T: tile_m counts channels, tile_n pixels; a cluster shares the dy tile

    def __post_init__(self):
        if self.dtype not in DTYPES:
            raise ValueError(f"sm90_gemm kernels take {' and '.join(DTYPES)}, not {self.dtype!r}")
        if self.schedule not in SCHEDULES:
            raise ValueError(f"schedule must be one of {SCHEDULES}, got {self.schedule!r}")
        shape = (self.tile_m, self.tile_n, self.schedule)
        kind = "swapped " if self.swapped else ""
        if shape not in (SWAPPED_SHAPES if self.swapped else CANDIDATE_SHAPES):
            raise ValueError(f"no {kind}sm90_gemm kernel of tile {self.tile_m}x{self.tile_n} {self.schedule}")
        if self.cluster_m not in (1, 2) or (
                self.cluster_m == 2 and not self.swapped and shape not in CLUSTER_SHAPES):
            raise ValueError(f"no {kind}sm90_gemm kernel of tile {self.tile_m}x{self.tile_n} {self.schedule} "
                             f"with a cluster of {self.cluster_m}")
        for name in ("m", "n", "k"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")

    @property
    def family(self) -> str:
        return FAMILY

    @property
    def name(self) -> str:
        schedule = "pp" if self.schedule == "pingpong" else "co"
        cluster = f"_c{self.cluster_m}" if self.cluster_m > 1 else ""
        swapped = "_sw" if self.swapped else ""
        return (f"iree_cutlass_gemm_sm90_{self.dtype}_{self.tile_m}x{self.tile_n}_{schedule}{cluster}{swapped}"
                f"_m{self.m}_n{self.n}_k{self.k}")


_PROBLEM_SUFFIX = re.compile(r"_m\d+_n\d+_k\d+$")


def kernel_code(entry: str) -> str:
    """An entry point without the GEMM extents a kernel of this family was built for: the code that checks on
    other problems vouch for (random problems' numerics, sanitizer runs), since only the Params differ."""
    return _PROBLEM_SUFFIX.sub("", entry) if entry.startswith("iree_cutlass_gemm_") else entry


def gemm_extents(problem: DgradProblem) -> tuple[int, int, int]:
    """(M, N, K) of a plain-GEMM dgrad: pixels, dx channels, dy channels."""
    return problem.n * problem.h * problem.w, problem.c, problem.k


def supports(config: Sm90GemmConfig, problem: DgradProblem) -> str | None:
    """None if `config` computes `problem` correctly, else a one-line reason."""
    p = problem
    if config.dtype != p.dtype:
        return f"kernel is {config.dtype}, problem is {p.dtype}"
    if not is_plain_gemm(p) or (p.p, p.q) != (p.h, p.w):
        return "a CUTLASS GEMM kernel is for 1x1 unit-stride unpadded problems"
    if (config.m, config.n, config.k) != gemm_extents(p):
        return (f"kernel was built for GEMM {config.m}x{config.n}x{config.k}, problem is "
                f"{'x'.join(str(e) for e in gemm_extents(p))}")
    if p.k % 8 or p.c % 8:
        return f"C={p.c} and K={p.k} must be multiples of 8 (16-byte TMA rows)"
    if max(gemm_extents(p)) >= 2**31 or p.n * p.h * p.w * max(p.c, p.k) * 2 >= 2**40:
        return "the GEMM is too large for 32-bit extents or a TMA descriptor"
    return None


@dataclass(frozen=True)
class GemmLaunch:
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    smem_bytes: int


def generated(config: Sm90GemmConfig) -> dict:
    """The generator's output for `config`: Params bytes, descriptor recipes, grid, block and shared memory. The
    build room runs the generator once a process per config; each call parses a fresh copy of its output."""
    from .build import generator_output   # the build room runs nvcc and the generator (cached)
    return json.loads(generator_output(generator_defines(config), HEADER,
                                       [config.m, config.n, config.k, SM_COUNT]))


def generator_defines(config: Sm90GemmConfig) -> dict[str, str]:
    """The macros that pick the generator's kernel type (sm90_gemm.cuh)."""
    return {"IREE_CUTLASS_GEMM_ELEMENT": _ELEMENT_TYPES[config.dtype], "IREE_CUTLASS_GEMM_TILE_M": str(config.tile_m),
            "IREE_CUTLASS_GEMM_TILE_N": str(config.tile_n),
            "IREE_CUTLASS_GEMM_PINGPONG": _cpp_bool(config.schedule == "pingpong"),
            "IREE_CUTLASS_GEMM_CLUSTER_M": str(config.cluster_m),
            "IREE_CUTLASS_GEMM_SWAPPED": _cpp_bool(config.swapped)}


def _cpp_bool(value: bool) -> str:
    return "true" if value else "false"


def launch_geometry(config: Sm90GemmConfig, problem: DgradProblem) -> GemmLaunch:
    """CUTLASS's persistent grid for the problem (its raster picks the axis), its block and shared memory."""
    out = generated(config)
    return GemmLaunch(grid=tuple(out["grid"]), block=(out["block"], 1, 1), smem_bytes=out["smem_bytes"])


def workspace_bytes(config: Sm90GemmConfig, problem: DgradProblem) -> int:
    """One slot per CTA, for the descriptors it builds (at their offsets in the Params)."""
    out = generated(config)
    grid = out["grid"]
    return grid[0] * grid[1] * grid[2] * out["slot_bytes"] + WORKSPACE_SLACK


def push_constants(config: Sm90GemmConfig, problem: DgradProblem) -> list[int]:
    """The GEMM extents: the kernel traps unless they are the ones its Params were built for."""
    return checked_push_constants(list(gemm_extents(problem)))


_ENTRY = """
// Generated by iree_cutlass.plugin.sm90_gemm for config {name}: Params built for GEMM {m}x{n}x{k} by the
// generator above (their descriptors zeroed; each CTA rebuilds them from kRecipes).
using Kernel = iree_cutlass_gemm::Gemm<{element}, {tile_m}, {tile_n}, {pingpong}, {cluster_m}, {swapped}>::Kernel;
static_assert(sizeof(Kernel::Params) == {params_bytes}, "Params differ from the generator's");
static_assert(iree_cutlass_gemm::slot_bytes<Kernel>() == {slot_bytes}, "slot size differs from the generator's");
static_assert(iree_cutlass_gemm::smem_bytes<Kernel>() == {smem}, "shared memory differs from the generator's");
namespace {{
__device__ __align__(128) unsigned char const kParams[{slot_bytes}] = {{
{params}}};
__device__ iree_cutlass_gemm::Recipe const kRecipes[{recipe_count}] = {{
{recipes}}};
}}  // namespace
extern "C" __global__ void __cluster_dims__({cluster_m}, 1, 1)
    __launch_bounds__(Kernel::MaxThreadsPerBlock, Kernel::MinBlocksPerMultiprocessor)
    {name}({element} const* dy, {element} const* w_rsck, {element}* dx, uint8_t* workspace, uint32_t m,
           uint32_t n, uint32_t k) {{
  if (threadIdx.x == 0) {{
    uint32_t dynamic_smem;
    asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dynamic_smem));
    // A launch that does not match what the Params were built for would corrupt memory: fail loudly.
    if (m != {m}u || n != {n}u || k != {k}u || gridDim.x != {grid_x}u || gridDim.y != {grid_y}u ||
        gridDim.z != {grid_z}u || blockDim.x != {block}u || blockDim.y != 1u || blockDim.z != 1u ||
        dynamic_smem < {smem}u ||
        ((reinterpret_cast<uintptr_t>(dy) | reinterpret_cast<uintptr_t>(w_rsck) | reinterpret_cast<uintptr_t>(dx)) &
         15) != 0) {{
      __trap();
    }}
  }}
  void const* const operands[3] = {{dy, w_rsck, dx}};
  iree_cutlass_gemm::run<Kernel>(kParams, kRecipes, {recipe_count}, operands, workspace);
}}
"""


def _byte_lines(hex_bytes: str) -> str:
    values = [f"0x{hex_bytes[i:i + 2]}" for i in range(0, len(hex_bytes), 2)]
    return "".join(", ".join(values[i:i + 16]) + ",\n" for i in range(0, len(values), 16))


def _recipe_line(recipe: dict) -> str:
    dims, box, strides = recipe["dims"], recipe["box"], recipe["strides"]
    return (f"    {{{recipe['offset']}u, {recipe['operand']}u, {recipe['swizzle']}u, {{{dims[0]}u, {dims[1]}u, "
            f"{dims[2]}u}}, {{{box[0]}u, {box[1]}u, {box[2]}u}}, 0u, {{{strides[0]}ull, {strides[1]}ull}}}},\n")


def generate_source(config: Sm90GemmConfig) -> str:
    """The header followed by this config's Params and entry point: one self-contained translation unit."""
    out = generated(config)
    header = HEADER.read_text().replace("#pragma once\n", "")
    return header + _ENTRY.format(
        name=config.name, m=config.m, n=config.n, k=config.k, element=_ELEMENT_TYPES[config.dtype],
        tile_m=config.tile_m, tile_n=config.tile_n, pingpong=_cpp_bool(config.schedule == "pingpong"),
        cluster_m=config.cluster_m, swapped=_cpp_bool(config.swapped),
        params_bytes=out["params_bytes"], slot_bytes=out["slot_bytes"], smem=out["smem_bytes"],
        params=_byte_lines(out["params"]), recipe_count=len(out["recipes"]),
        recipes="".join(_recipe_line(r) for r in out["recipes"]), grid_x=out["grid"][0], grid_y=out["grid"][1],
        grid_z=out["grid"][2], block=out["block"])


def candidate_configs(problem: DgradProblem) -> list[Sm90GemmConfig]:
    """Every CANDIDATE_SHAPES kernel built for `problem`, CLUSTER_SHAPES in 2-CTA clusters, and SWAPPED_SHAPES
    alone and in 2-CTA clusters, where it is a plain GEMM this family supports."""
    if problem.dtype not in DTYPES or not is_plain_gemm(problem):
        return []
    m, n, k = gemm_extents(problem)
    configs = [Sm90GemmConfig(problem.dtype, tile_m, tile_n, schedule, m, n, k)
               for tile_m, tile_n, schedule in CANDIDATE_SHAPES]
    configs += [Sm90GemmConfig(problem.dtype, tile_m, tile_n, schedule, m, n, k, cluster_m=2)
                for tile_m, tile_n, schedule in CLUSTER_SHAPES]
    configs += [Sm90GemmConfig(problem.dtype, tile_m, tile_n, schedule, m, n, k, cluster_m=cluster, swapped=True)
                for tile_m, tile_n, schedule in SWAPPED_SHAPES for cluster in (1, 2)]
    return [config for config in configs if supports(config, problem) is None]
