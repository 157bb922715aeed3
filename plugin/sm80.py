"""CUTLASS 2.x sm80 dgrad kernel configurations: what each one supports, its CUDA source and launch geometry.

The kernels follow IREE's hal.dispatch.extern CUDA ABI: (const T* dy, const T* w_krsc, T* dx, then 13 uint32
push constants). The host can pass nothing else, so thread 0 builds CUTLASS's Params in dynamic shared memory.
They run on any GPU from sm_80 on (built for the target the user names).

Element types and math:
    f16, bf16  mma.sync 16x8x16, f32 accumulate.
    f32        3xTF32 (cutlass::arch::OpMultiplyAddFastF32 on mma.sync 16x8x8 tf32, f32 accumulate): each
               operand is split into a tf32 "big" and a tf32 "small" part and three products are summed, which
               keeps f32 accuracy (relative L2 ~1e-6 against float64, where plain tf32 gives ~1e-3) at about
               a third of the tf32 tensor-op rate.

Mainloops: stages >= 3 is CUTLASS's multistage cp.async pipeline, whose copies move 4, 8 or 16 bytes, so an
operand's alignment is 16, 8 or 4 bytes of elements (8/4/2 for 16-bit types, 4/2/1 for f32). stages == 2 is the
register-staged ImplicitGemmPipelined mainloop (what CUTLASS's Sm75 kernels use): ordinary global loads of any
width, so 16-bit operands may also have alignment 1 there. Odd channel counts of 16-bit types run on it, at unit
stride only: its strided form (TileIteratorStridedDgrad, CUTLASS 4.2) makes one load per 16-byte thread-map
vector and skips the rest of a narrower alignment's loads (on an H200 such a kernel faulted).
"""
from dataclasses import dataclass
from string import Template
from typing import ClassVar

from .problem import DTYPES, ELEMENT_BYTES, DgradProblem, checked_push_constants

FAMILY = "sm80"
FILTER_LAYOUT = "krsc"
NVCC_ARCH = None  # built for the CUDA target the compile names
TARGET_ARCHS = None  # runs on any target the plugin accepts (sm_80 and newer)

STRIDE_SUPPORTS = ("unity", "strided")

# Alignments (elements, widest first) an operand may have. cp.async (stages >= 3) moves 4, 8 or 16 bytes; the
# 2-stage mainloop loads through registers, so there 16-bit operands may also be read one element at a time.
CP_ASYNC_ALIGNMENTS = {"f16": (8, 4, 2), "bf16": (8, 4, 2), "f32": (4, 2, 1)}
REGISTER_LOAD_ALIGNMENTS = {"f16": (8, 4, 2, 1), "bf16": (8, 4, 2, 1), "f32": (4, 2, 1)}

# The optimized dgrad iterators keep filter-position masks in 32-bit words.
MAX_FILTER_EXTENT = 32

# H200: the opt-in maximum of shared memory per block (232448 B), less the 1 KiB of static shared memory
# cuobjdump -res-usage reports for these kernels on sm_90.
MAX_SMEM_BYTES = 232448 - 1024

# Room reserved after SharedStorage for the device-built Params (the kernel static_asserts it fits).
PARAMS_RESERVE_BYTES = 1024
SMEM_ALIGN = 16

_INT32_MAX = 2**31 - 1
_GRID_YZ_MAX = 65535

_ELEMENT_TYPES = {"f16": "cutlass::half_t", "bf16": "cutlass::bfloat16_t", "f32": "float"}
# mma.sync shape (m, n, k) and CUTLASS math operator per element type; f32 is 3xTF32 (see the module docstring).
INSTRUCTION_SHAPES = {"f16": (16, 8, 16), "bf16": (16, 8, 16), "f32": (16, 8, 8)}
_MATH_OPERATORS = {"f16": "OpMultiplyAdd", "bf16": "OpMultiplyAdd", "f32": "OpMultiplyAddFastF32"}
_ACCUMULATOR_BYTES = 4


def alignments(dtype: str, stages: int) -> tuple[int, ...]:
    """The alignments, widest first, that a config of `dtype` with `stages` stages may load operands with."""
    return REGISTER_LOAD_ALIGNMENTS[dtype] if stages == 2 else CP_ASYNC_ALIGNMENTS[dtype]


@dataclass(frozen=True)
class Sm80Config:
    dtype: str  # "f16" | "bf16" | "f32" (3xTF32)
    stride_support: str  # "unity" (stride 1 only) | "strided" (any stride, skips the inserted zeros)
    tile_m: int
    tile_n: int
    tile_k: int
    warp_m: int
    warp_n: int
    warp_k: int
    stages: int  # 2: register-staged mainloop (any alignment); >= 3: cp.async multistage
    align_a: int  # elements; A = dy, divides K
    align_b: int  # B = filter, divides C
    align_c: int  # C = dx, divides C

    family: ClassVar[str] = FAMILY

    def __post_init__(self):
        if self.dtype not in DTYPES:
            raise ValueError(f"dtype must be one of {DTYPES}, got {self.dtype!r}")
        if self.stride_support not in STRIDE_SUPPORTS:
            raise ValueError(f"stride_support must be one of {STRIDE_SUPPORTS}, got {self.stride_support!r}")
        for tile, warp in ((self.tile_m, self.warp_m), (self.tile_n, self.warp_n), (self.tile_k, self.warp_k)):
            if warp < 1 or tile < warp or tile % warp:
                raise ValueError(f"warp shape {self.warp_m}x{self.warp_n}x{self.warp_k} does not divide "
                                 f"tile {self.tile_m}x{self.tile_n}x{self.tile_k}")
        # Every warp tile must hold whole mma.sync instructions.
        im, in_, ik = INSTRUCTION_SHAPES[self.dtype]
        if self.warp_m % im or self.warp_n % in_ or self.warp_k % ik:
            raise ValueError(f"warp shape {self.warp_m}x{self.warp_n}x{self.warp_k} is not a multiple of "
                             f"{im}x{in_}x{ik}")
        if self.stages < 2:
            raise ValueError(f"stages must be >= 2, got {self.stages}")
        allowed = alignments(self.dtype, self.stages)
        for name in ("align_a", "align_b", "align_c"):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} of a {self.stages}-stage {self.dtype} kernel must be one of {allowed}, "
                                 f"got {getattr(self, name)}")
        if self.stages == 2 and self.stride_support == "strided" and \
                min(self.align_a, self.align_b) < CP_ASYNC_ALIGNMENTS[self.dtype][0]:
            raise ValueError("a 2-stage strided kernel needs 16-byte dy and filter alignments (CUTLASS's "
                             "TileIteratorStridedDgrad skips narrower loads)")

    @property
    def name(self) -> str:
        """The kernel's extern "C" entry point: a C identifier unique per config."""
        return (
            f"iree_cutlass_dgrad_{self.dtype}_{self.stride_support}"
            f"_{self.tile_m}x{self.tile_n}x{self.tile_k}_{self.warp_m}x{self.warp_n}x{self.warp_k}"
            f"_s{self.stages}_a{self.align_a}x{self.align_b}x{self.align_c}"
        )

    @property
    def warp_count(self) -> tuple[int, int, int]:
        return (self.tile_m // self.warp_m, self.tile_n // self.warp_n, self.tile_k // self.warp_k)

    @property
    def threads(self) -> int:
        wm, wn, wk = self.warp_count
        return wm * wn * wk * 32


@dataclass(frozen=True)
class LaunchGeometry:
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    smem_bytes: int


def _round_up(value: int, multiple: int) -> int:
    return (value + multiple - 1) // multiple * multiple


def shared_storage_bytes(config: Sm80Config) -> int:
    """sizeof(Kernel::SharedStorage), or an upper bound: the union of the mainloop and the epilogue buffers.

    Mainloop: `stages` unpadded A (tile_m x tile_k) and B (tile_k x tile_n) tiles of the element type (the
    tensor-op cores use swizzled layouts without padding, in both mainloops). Epilogue (f32 accumulators):
    16 rows per warp row and k-partition, tile_n + 8 columns of padding. Checked against sizeof() for every
    candidate tile with nvcc, and static_asserted in each kernel.
    """
    element_bytes = ELEMENT_BYTES[config.dtype]
    mainloop = config.stages * (config.tile_m * config.tile_k + config.tile_k * config.tile_n) * element_bytes
    warps_m, _, warps_k = config.warp_count
    epilogue = warps_m * warps_k * 16 * (config.tile_n + 8) * _ACCUMULATOR_BYTES
    return max(mainloop, epilogue)


def params_offset(config: Sm80Config) -> int:
    """Byte offset of the device-built Params in dynamic shared memory."""
    return _round_up(shared_storage_bytes(config), SMEM_ALIGN)


def smem_bytes(config: Sm80Config) -> int:
    """Dynamic shared memory of one threadblock: SharedStorage, padding, then room for Params."""
    return params_offset(config) + PARAMS_RESERVE_BYTES


def tiled_shape(config: Sm80Config, problem: DgradProblem) -> tuple[int, int]:
    """CUTLASS's grid_tiled_shape (m, n) for the implicit GEMM dx[NHW, C] = dy * w.

    Unity (GemmIdentityThreadblockSwizzle::get_tiled_shape): m = ceil(N*H*W / tile_m).
    Strided (StridedDgradIdentityThreadblockSwizzle, get_strided_dgrad_tile_m): one set of m tiles per
    starting filter phase, m = ceil(N * ceil(H/stride_h) * ceil(W/stride_w) / tile_m) * stride_h * stride_w.
    Both: n = ceil(C / tile_n); k = 1 (no split-K).
    """
    p = problem
    if config.stride_support == "strided":
        rows = p.n * -(-p.h // p.stride_h) * -(-p.w // p.stride_w)
        m = -(-rows // config.tile_m) * p.stride_h * p.stride_w
    else:
        m = -(-(p.n * p.h * p.w) // config.tile_m)
    n = -(-p.c // config.tile_n)
    return m, n


def launch_geometry(config: Sm80Config, problem: DgradProblem) -> LaunchGeometry:
    """Grid, block and dynamic shared memory; swizzle log_tile is 0 (template N = 1), so grid = (m, n, 1)."""
    m, n = tiled_shape(config, problem)
    return LaunchGeometry(grid=(m, n, 1), block=(config.threads, 1, 1), smem_bytes=smem_bytes(config))


def workspace_bytes(config: Sm80Config, problem: DgradProblem) -> int:
    """No workspace: Params live in shared memory."""
    return 0


def push_constants(config: Sm80Config, problem: DgradProblem) -> list[int]:
    """The 13 uint32 push constants in kernel-parameter order."""
    p = problem
    return checked_push_constants([p.n, p.h, p.w, p.c, p.k, p.r, p.s, p.p, p.q, p.pad_h, p.pad_w,
                                   p.stride_h, p.stride_w])


def supports(config: Sm80Config, problem: DgradProblem) -> str | None:
    """None if `config` computes `problem` correctly, else a one-line reason (CUTLASS's can_implement rules)."""
    p = problem
    if config.dtype != p.dtype:
        return f"kernel is {config.dtype}, problem is {p.dtype}"
    if config.stride_support == "unity" and p.strided:
        return f"unity-stride kernel cannot run stride {p.stride_h}x{p.stride_w}"
    if p.k % config.align_a:
        return f"K={p.k} is not a multiple of the dy alignment {config.align_a}"
    if p.c % config.align_b:
        return f"C={p.c} is not a multiple of the filter alignment {config.align_b}"
    if p.c % config.align_c:
        return f"C={p.c} is not a multiple of the dx alignment {config.align_c}"
    if p.r > MAX_FILTER_EXTENT or p.s > MAX_FILTER_EXTENT:
        return f"filter {p.r}x{p.s} exceeds the optimized iterator's limit of {MAX_FILTER_EXTENT}"
    sizes = {"dx": p.n * p.h * p.w * p.c, "dy": p.n * p.p * p.q * p.k, "filter": p.k * p.r * p.s * p.c}
    for tensor, elements in sizes.items():
        if elements * ELEMENT_BYTES[p.dtype] >= 2**31:
            return f"{tensor} has {elements} elements: CUTLASS needs tensors under 2 GiB (32-bit offsets)"
    if max(p.n, p.h, p.w, p.c, p.k, p.r, p.s, p.p, p.q, p.pad_h, p.pad_w, p.stride_h, p.stride_w) > _INT32_MAX:
        return "a dimension exceeds the 32-bit push constant range"
    m, n = tiled_shape(config, p)
    if m > _INT32_MAX or n > _GRID_YZ_MAX:
        return f"grid {m}x{n} exceeds CUDA's grid limits"
    if smem_bytes(config) > MAX_SMEM_BYTES:
        return f"kernel needs {smem_bytes(config)} B of shared memory, more than the {MAX_SMEM_BYTES} B maximum"
    return None


_SOURCE = Template(r"""// Generated by iree_cutlass.plugin.kernels for config $name.
// CUTLASS 2.x implicit-GEMM dgrad (sm80 tensor ops: $mainloop + $math), $element in/out, f32 accumulate.
#include <cstdint>
#include <new>

#include "cutlass/cutlass.h"
#include "cutlass/conv/conv2d_problem_size.h"
#include "cutlass/conv/kernel/default_conv2d_dgrad.h"
#include "cutlass/conv/threadblock/threadblock_swizzle.h"
#include "cutlass/epilogue/thread/linear_combination.h"
#include "cutlass/gemm/threadblock/threadblock_swizzle.h"

namespace {

using Element = $element;
using Layout = cutlass::layout::TensorNHWC;

// Beta is 0: OnlyAlphaScaling makes is_source_needed() false, so dx is written and never read.
using EpilogueOp = cutlass::epilogue::thread::LinearCombination<
    Element, $align_c, float, float, cutlass::epilogue::thread::ScaleType::OnlyAlphaScaling>;

using Swizzle = $swizzle;

using Kernel = typename cutlass::conv::kernel::DefaultConv2dDgrad<
    Element, Layout, Element, Layout, Element, Layout, float,
    cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80,
    cutlass::gemm::GemmShape<$tile_m, $tile_n, $tile_k>,
    cutlass::gemm::GemmShape<$warp_m, $warp_n, $warp_k>,
    cutlass::gemm::GemmShape<$instruction_m, $instruction_n, $instruction_k>,
    EpilogueOp, Swizzle, $stages, cutlass::arch::$math_operator,
    cutlass::conv::IteratorAlgorithm::kOptimized, cutlass::conv::StrideSupport::$stride_support,
    $align_a, $align_b>::Kernel;

// The host computes these by formula (kernels.py); a wrong formula must fail the build, not corrupt memory.
constexpr int kParamsOffset = $params_offset;
constexpr int kSmemBytes = $smem_bytes;
constexpr int kThreads = $threads;
static_assert(sizeof(Kernel::SharedStorage) <= kParamsOffset, "SharedStorage formula too small");
static_assert(kParamsOffset % alignof(Kernel::Params) == 0, "Params misaligned in shared memory");
static_assert(kParamsOffset + sizeof(Kernel::Params) <= kSmemBytes, "Params reserve too small");
static_assert(Kernel::kThreadCount == kThreads, "block size formula wrong");

__device__ uint32_t dynamic_smem_size() {
  uint32_t size;
  asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(size));
  return size;
}

// Thread 0 builds Params in shared memory; kept out of line so its locals do not add to the register
// pressure (and spills) of the mainloop.
__device__ __noinline__ void build_params(
    Kernel::Params* params, const Element* dy, const Element* w_krsc, Element* dx,
    uint32_t N, uint32_t H, uint32_t W, uint32_t C, uint32_t K, uint32_t R, uint32_t S,
    uint32_t P, uint32_t Q, uint32_t pad_h, uint32_t pad_w, uint32_t stride_h, uint32_t stride_w) {
  cutlass::conv::Conv2dProblemSize problem(
      int(N), int(H), int(W), int(C), int(K), int(R), int(S), int(P), int(Q),
      int(pad_h), int(pad_w), int(stride_h), int(stride_w), /*dilation=*/1, 1,
      cutlass::conv::Mode::kCrossCorrelation, /*split_k_slices=*/1, /*groups=*/1);
  // CUTLASS's TensorRefs are non-const; dy and the filter are only read.
  typename Kernel::TensorRefA ref_dy(
      const_cast<Element*>(dy), Layout::packed({int(N), int(P), int(Q), int(K)}));
  typename Kernel::TensorRefB ref_w(
      const_cast<Element*>(w_krsc), Layout::packed({int(K), int(R), int(S), int(C)}));
  typename Kernel::TensorRefC ref_dx(dx, Layout::packed({int(N), int(H), int(W), int(C)}));
  typename Kernel::Arguments args(
      problem, ref_dy, ref_w, ref_dx, ref_dx, typename EpilogueOp::Params(1.0f, 0.0f));
  new (params) typename Kernel::Params(args, nullptr);

  // A launch that does not match the Params would silently leave dx tiles unwritten: fail loudly.
  dim3 expected = Swizzle::get_grid_shape(params->grid_tiled_shape);
  if (gridDim.x != expected.x || gridDim.y != expected.y || gridDim.z != expected.z ||
      blockDim.x != kThreads || blockDim.y != 1 || blockDim.z != 1 ||
      dynamic_smem_size() < uint32_t(kSmemBytes)) {
    __trap();
  }
}

}  // namespace

extern "C" __global__ void __launch_bounds__(kThreads) $name(
    const Element* dy, const Element* w_krsc, Element* dx,
    uint32_t N, uint32_t H, uint32_t W, uint32_t C, uint32_t K, uint32_t R, uint32_t S,
    uint32_t P, uint32_t Q, uint32_t pad_h, uint32_t pad_w, uint32_t stride_h, uint32_t stride_w) {
  extern __shared__ __align__(16) uint8_t smem[];
  auto& shared_storage = *reinterpret_cast<Kernel::SharedStorage*>(smem);
  auto* params = reinterpret_cast<Kernel::Params*>(smem + kParamsOffset);

  if (threadIdx.x == 0) {
    build_params(params, dy, w_krsc, dx, N, H, W, C, K, R, S, P, Q, pad_h, pad_w, stride_h, stride_w);
  }
  __syncthreads();

  Kernel{}(*params, shared_storage);
}
""")

_SWIZZLES = {
    "unity": "cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<1>",
    "strided": "cutlass::conv::threadblock::StridedDgradIdentityThreadblockSwizzle<1>",
}
_STRIDE_SUPPORT_ENUM = {"unity": "kUnity", "strided": "kStrided"}


def generate_source(config: Sm80Config) -> str:
    """The full CUDA C++ source of one kernel, entry point `config.name`."""
    instruction = INSTRUCTION_SHAPES[config.dtype]
    return _SOURCE.substitute(
        name=config.name,
        element=_ELEMENT_TYPES[config.dtype],
        swizzle=_SWIZZLES[config.stride_support],
        stride_support=_STRIDE_SUPPORT_ENUM[config.stride_support],
        tile_m=config.tile_m, tile_n=config.tile_n, tile_k=config.tile_k,
        warp_m=config.warp_m, warp_n=config.warp_n, warp_k=config.warp_k,
        stages=config.stages,
        # The description line reads as before for the 16-bit cp.async kernels: their sources, and so their
        # cache keys, are unchanged.
        mainloop="2-stage register-staged loads" if config.stages == 2 else "cp.async",
        math=("3xTF32 " if config.dtype == "f32" else "") + "mma.sync " + "x".join(map(str, instruction)),
        instruction_m=instruction[0], instruction_n=instruction[1], instruction_k=instruction[2],
        math_operator=_MATH_OPERATORS[config.dtype],
        align_a=config.align_a, align_b=config.align_b, align_c=config.align_c,
        params_offset=params_offset(config),
        smem_bytes=smem_bytes(config),
        threads=config.threads,
    )
