"""CPU-only checks of the kernel library: problems, sm80 configs, launch geometry, supports() and selection."""
import json
import math
import pathlib
import re
import sys

import pytest

from iree_cutlass.plugin import select
from iree_cutlass.plugin import sm80 as kernels  # the sm80 family's formulas
from iree_cutlass.plugin.kernels import config_from_dict, config_to_dict, generate_source, launch, supports
from iree_cutlass.plugin.problem import DgradProblem
from iree_cutlass.plugin.select import NoKernel, candidate_configs, heuristic_config, select_kernel
from iree_cutlass.plugin.sm80 import Sm80Config as KernelConfig
from iree_cutlass.plugin.sm80 import launch_geometry

SM80 = ("sm80",)

sys.path.insert(0, "/work/shared/reference")
try:
    from resnet50_workloads import RESNET50
except ImportError:  # CI without the shared reference: the same 22 layers, inlined
    RESNET50 = [
        ("s1_1x1_64_64", 56, 56, 64, 64, 1, 1, 0), ("s1_3x3_64_64", 56, 56, 64, 64, 3, 1, 1),
        ("s1_1x1_64_256", 56, 56, 64, 256, 1, 1, 0), ("s1_1x1_256_64", 56, 56, 256, 64, 1, 1, 0),
        ("s2_1x1_256_128", 56, 56, 256, 128, 1, 1, 0), ("s2_3x3_128_128s2", 56, 56, 128, 128, 3, 2, 1),
        ("s2_1x1_128_512", 28, 28, 128, 512, 1, 1, 0), ("s2_1x1_256_512s2", 56, 56, 256, 512, 1, 2, 0),
        ("s2_1x1_512_128", 28, 28, 512, 128, 1, 1, 0), ("s2_3x3_128_128", 28, 28, 128, 128, 3, 1, 1),
        ("s3_1x1_512_256", 28, 28, 512, 256, 1, 1, 0), ("s3_3x3_256_256s2", 28, 28, 256, 256, 3, 2, 1),
        ("s3_1x1_256_1024", 14, 14, 256, 1024, 1, 1, 0), ("s3_1x1_512_1024s2", 28, 28, 512, 1024, 1, 2, 0),
        ("s3_1x1_1024_256", 14, 14, 1024, 256, 1, 1, 0), ("s3_3x3_256_256", 14, 14, 256, 256, 3, 1, 1),
        ("s4_1x1_1024_512", 14, 14, 1024, 512, 1, 1, 0), ("s4_3x3_512_512s2", 14, 14, 512, 512, 3, 2, 1),
        ("s4_1x1_512_2048", 7, 7, 512, 2048, 1, 1, 0), ("s4_1x1_1024_2048s2", 14, 14, 1024, 2048, 1, 2, 0),
        ("s4_1x1_2048_512", 7, 7, 2048, 512, 1, 1, 0), ("s4_3x3_512_512", 7, 7, 512, 512, 3, 1, 1),
    ]


def resnet_problems(batch, dtype="f16"):
    for name, h, w, c, k, r, stride, pad in RESNET50:
        p = (h + 2 * pad - r) // stride + 1
        q = (w + 2 * pad - r) // stride + 1
        yield name, DgradProblem(batch, h, w, c, k, r, r, p, q, pad, pad, stride, stride, dtype)


ALL_RESNET = [(f"{name}_n{batch}", prob) for batch in (8, 256) for name, prob in resnet_problems(batch)]


def make_config(stride_support="unity", dtype="f16", tile=(128, 128, 32), warp=(64, 64, 32), stages=3,
                align=(8, 8, 8)):
    return KernelConfig(dtype, stride_support, *tile, *warp, stages, *align)


def cutlass_grid(config, problem):
    """An independent derivation of CUTLASS's grid: walk the strided-dgrad phases one by one.

    Strided dgrad gives every starting filter phase (r mod stride_h, s mod stride_w) the same number of M
    tiles, enough for the largest phase (the dx rows/cols congruent to that phase's start); unity dgrad is a
    plain GEMM over N*H*W rows. N tiles cover C. Swizzle log_tile 0: grid = (m tiles, n tiles, 1).
    """
    p = problem
    n_tiles = math.ceil(p.c / config.tile_n)
    if config.stride_support == "unity":
        return (math.ceil(p.n * p.h * p.w / config.tile_m), n_tiles, 1)
    rows_per_phase = []
    for r in range(p.stride_h):
        start_h = (r - p.pad_h) % p.stride_h
        for s in range(p.stride_w):
            start_w = (s - p.pad_w) % p.stride_w
            rows_per_phase.append(p.n * len(range(start_h, p.h, p.stride_h)) * len(range(start_w, p.w, p.stride_w)))
    # every dx pixel belongs to exactly one phase
    assert sum(rows_per_phase) == p.n * p.h * p.w
    tiles_per_phase = math.ceil(max(rows_per_phase) / config.tile_m)
    return (tiles_per_phase * p.stride_h * p.stride_w, n_tiles, 1)


# --- problem ---------------------------------------------------------------------------------------

def test_problem_key_is_stable():
    prob = DgradProblem(8, 56, 56, 64, 64, 3, 3, 56, 56, 1, 1, 1, 1, "f16")
    assert prob.key() == "n8_h56_w56_c64_k64_r3_s3_p56_q56_pad1x1_str1x1_f16"


@pytest.mark.parametrize("field, value", [("dtype", "f64"), ("c", 0), ("stride_h", 0), ("pad_w", -1), ("n", 2.0)])
def test_problem_rejects_bad_fields(field, value):
    args = dict(n=1, h=4, w=4, c=8, k=8, r=1, s=1, p=4, q=4, pad_h=0, pad_w=0, stride_h=1, stride_w=1, dtype="f16")
    args[field] = value
    with pytest.raises(ValueError, match=field if field != "dtype" else "dtype"):
        DgradProblem(**args)


# --- push constants and launch geometry ------------------------------------------------------------

@pytest.mark.parametrize("tag, prob", ALL_RESNET, ids=[t for t, _ in ALL_RESNET])
def test_push_constants_order(tag, prob):
    constants = launch(make_config("strided"), prob).constants
    assert constants == [prob.n, prob.h, prob.w, prob.c, prob.k, prob.r, prob.s, prob.p, prob.q,
                         prob.pad_h, prob.pad_w, prob.stride_h, prob.stride_w]
    assert launch(make_config("strided"), prob).workspace_bytes == 0
    assert launch(make_config("strided"), prob).filter_layout == "krsc"


CONFIGS_FOR_GRID = [
    make_config("unity"), make_config("strided"),
    make_config("unity", tile=(64, 128, 32), warp=(32, 64, 32), stages=6),
    make_config("strided", tile=(128, 256, 32), warp=(64, 64, 32)),
    make_config("strided", tile=(64, 64, 32), warp=(32, 32, 32), stages=6),
]


@pytest.mark.parametrize("tag, prob", ALL_RESNET, ids=[t for t, _ in ALL_RESNET])
def test_launch_geometry_matches_cutlass_grid(tag, prob):
    for config in CONFIGS_FOR_GRID:
        if supports(config, prob) is not None:
            continue
        geometry = launch_geometry(config, prob)
        assert geometry.grid == cutlass_grid(config, prob), config.name
        assert geometry.block == (config.threads, 1, 1)
        assert geometry.smem_bytes <= kernels.MAX_SMEM_BYTES


def test_launch_geometry_known_values():
    # ResNet-50 3x3/s2, C=K=128, batch 8: 4 phases of ceil(8*28*28/128) = 49 tiles.
    prob = DgradProblem(8, 56, 56, 128, 128, 3, 3, 28, 28, 1, 1, 2, 2, "f16")
    geometry = launch_geometry(make_config("strided"), prob)
    assert geometry.grid == (196, 1, 1)
    assert geometry.block == (128, 1, 1)
    # 3 stages x (128x32 + 32x128) halves = 49152 B, 16-aligned, + 1024 B for Params.
    assert geometry.smem_bytes == 49152 + 1024
    # Odd sizes: 1x1/s2 with H=W=7 -> phases hold 4x4, 4x3, 3x4, 3x3 pixels; every phase gets ceil(3*16/64) tiles.
    odd = DgradProblem(3, 7, 7, 64, 32, 1, 1, 4, 4, 0, 0, 2, 2, "f16")
    config = make_config("strided", tile=(64, 64, 32), warp=(32, 32, 32), stages=6)
    assert launch_geometry(config, odd).grid == (4, 1, 1) == cutlass_grid(config, odd)


TILE_LISTS = [("f16", select.SM80_TILES, (8, 8, 8)), ("f16", select.SM80_TWO_STAGE_TILES, (8, 1, 1)),
              ("f32", select.F32_TILES, (4, 4, 4))]


def test_smem_formula_covers_mainloop_and_epilogue():
    for dtype, tiles, align in TILE_LISTS:
        for tile, stages, warps in tiles:
            config = make_config(dtype=dtype, tile=tile, warp=tuple(t // w for t, w in zip(tile, warps)),
                                 stages=stages, align=align)
            mainloop = stages * (tile[0] * tile[2] + tile[2] * tile[1]) * (4 if dtype == "f32" else 2)
            assert kernels.shared_storage_bytes(config) >= mainloop
            assert kernels.params_offset(config) % 16 == 0
            assert kernels.smem_bytes(config) >= kernels.params_offset(config) + 616  # measured sizeof(Params)
            assert kernels.smem_bytes(config) <= kernels.MAX_SMEM_BYTES


def test_smem_formula_matches_measured_sizeof():
    # sizeof(Kernel::SharedStorage) printed by an nvcc-built host program for these configs (every tile of the
    # 2-stage and f32 lists was measured, unity and strided, alignments 8x1x1 .. 1x2x2 and 4x4x4 .. 1x1x1).
    measured = {
        ("f32", (128, 128, 16), (32, 64, 16), 4): 65536, ("f32", (64, 64, 16), (32, 32, 16), 3): 24576,
        ("f32", (256, 64, 32), (64, 32, 32), 3): 122880, ("f16", (64, 64, 32), (32, 32, 32), 2): 16384,
        ("f16", (128, 256, 32), (64, 64, 32), 2): 49152, ("f16", (64, 128, 64), (64, 64, 32), 2): 49152,
    }
    for (dtype, tile, warp, stages), size in measured.items():
        align = (4, 1, 1) if dtype == "f32" else (1, 8, 8)
        config = make_config("unity", dtype, tile, warp, stages, align)
        assert kernels.shared_storage_bytes(config) == size, config.name


# --- configs and sources ---------------------------------------------------------------------------

def test_config_names_are_unique_c_identifiers():
    names = set()
    expected = 0
    lists = [(dtype, select.SM80_TILES, ((8, 8, 8), (2, 4, 4))) for dtype in ("f16", "bf16")]
    lists += [(dtype, select.SM80_TWO_STAGE_TILES, ((8, 8, 8), (8, 1, 1), (1, 1, 1))) for dtype in ("f16", "bf16")]
    lists += [("f32", select.F32_TILES, ((4, 4, 4), (4, 1, 1), (1, 2, 2)))]
    for dtype, tiles, aligns in lists:
        for stride_support in ("unity",) if tiles is select.SM80_TWO_STAGE_TILES else ("unity", "strided"):
            for tile, stages, warps in tiles:
                for align in aligns:
                    config = make_config(stride_support, dtype, tile, tuple(t // w for t, w in zip(tile, warps)),
                                         stages, align)
                    assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", config.name)
                    names.add(config.name)
                    expected += 1
    assert len(names) == expected


def test_existing_config_names_are_stable():
    # Tuning tables key on these names: adding element types and mainloops must not change them.
    assert make_config("strided", "bf16", align=(4, 2, 2)).name == \
        "iree_cutlass_dgrad_bf16_strided_128x128x32_64x64x32_s3_a4x2x2"
    assert make_config("unity", tile=(64, 64, 32), warp=(32, 32, 32), stages=6).name == \
        "iree_cutlass_dgrad_f16_unity_64x64x32_32x32x32_s6_a8x8x8"


@pytest.mark.parametrize("kwargs, match", [
    (dict(dtype="f64"), "dtype"), (dict(stride_support="fancy"), "stride_support"),
    (dict(warp=(48, 64, 32)), "warp shape"), (dict(warp=(64, 4, 32), tile=(128, 128, 32)), "warp shape"),
    (dict(stages=1), "stages"), (dict(align=(8, 8, 16)), "align_c"),
    # cp.async cannot move one 16-bit element: alignment 1 needs the 2-stage mainloop.
    (dict(align=(1, 8, 8)), r"align_a of a 3-stage f16 kernel must be one of \(8, 4, 2\)"),
    (dict(dtype="bf16", stages=4, align=(8, 1, 1)), "align_b of a 4-stage bf16 kernel"),
    (dict(stages=2, align=(8, 8, 16)), r"align_c of a 2-stage f16 kernel must be one of \(8, 4, 2, 1\)"),
    # CUTLASS's 2-stage strided dgrad iterator makes one load per 16-byte vector.
    (dict(stride_support="strided", stages=2, align=(8, 1, 1)), "2-stage strided kernel needs 16-byte"),
    (dict(stride_support="strided", stages=2, align=(4, 8, 8)), "2-stage strided kernel needs 16-byte"),
    # f32: 16 bytes are 4 elements; the tf32 mma is 16x8x8, 16-bit ones are 16x8x16.
    (dict(dtype="f32", align=(8, 4, 4)), r"align_a of a 3-stage f32 kernel must be one of \(4, 2, 1\)"),
    (dict(dtype="f32", tile=(64, 64, 16), warp=(32, 32, 4), align=(4, 4, 4)), "not a multiple of 16x8x8"),
    (dict(tile=(64, 64, 8), warp=(32, 32, 8)), "not a multiple of 16x8x16"),
])
def test_config_rejects_bad_fields(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_config(**kwargs)


def test_generate_source_abi():
    config = make_config("strided", "bf16", align=(4, 2, 2))
    source = generate_source(config)
    signature = re.search(r'extern "C" __global__ void __launch_bounds__\(kThreads\) (\w+)\((.*?)\)', source, re.S)
    assert signature and signature.group(1) == config.name
    params = [p.strip() for p in signature.group(2).split(",")]
    assert params[:3] == ["const Element* dy", "const Element* w_krsc", "Element* dx"]
    assert params[3:] == [f"uint32_t {n}" for n in
                          "N H W C K R S P Q pad_h pad_w stride_h stride_w".split()]
    assert "cutlass::bfloat16_t" in source
    assert "StrideSupport::kStrided" in source and "StridedDgradIdentityThreadblockSwizzle<1>" in source
    assert "ScaleType::OnlyAlphaScaling" in source
    assert "Mode::kCrossCorrelation" in source
    assert f"constexpr int kSmemBytes = {kernels.smem_bytes(config)};" in source
    assert "__trap()" in source and "static_assert(sizeof(Kernel::SharedStorage) <= kParamsOffset" in source
    assert "$" not in source  # every template field substituted
    assert "4, 2>::Kernel;" in source  # align_a, align_b
    assert "Element, 2, float, float" in source  # align_c is the epilogue's vector width
    assert "GemmShape<16, 8, 16>" in source and "cutlass::arch::OpMultiplyAdd," in source
    unity = generate_source(make_config("unity"))
    assert "StrideSupport::kUnity" in unity and "GemmIdentityThreadblockSwizzle<1>" in unity
    assert "cutlass::half_t" in unity


def test_generate_source_f32_and_two_stage():
    f32 = make_config("strided", "f32", (128, 128, 16), (32, 64, 16), 4, (4, 1, 1))
    source = generate_source(f32)
    assert "using Element = float;" in source
    assert "GemmShape<16, 8, 8>" in source and "cutlass::arch::OpMultiplyAddFastF32," in source  # 3xTF32
    assert "EpilogueOp, Swizzle, 4," in source and "4, 1>::Kernel;" in source
    assert "Element, 1, float, float" in source
    assert "$" not in source
    assert make_config("strided", stages=2, align=(8, 8, 1)).stages == 2  # only dx narrower: a plain store
    two = make_config("unity", "bf16", (64, 64, 32), (32, 32, 32), 2, (8, 1, 1))
    source = generate_source(two)
    assert "cutlass::bfloat16_t" in source and "GemmShape<16, 8, 16>" in source
    assert "EpilogueOp, Swizzle, 2, cutlass::arch::OpMultiplyAdd," in source  # ImplicitGemmPipelined
    assert "8, 1>::Kernel;" in source
    assert "$" not in source


# --- supports ---------------------------------------------------------------------------------------

BASE = dict(n=8, h=28, w=28, c=128, k=128, r=3, s=3, p=28, q=28, pad_h=1, pad_w=1, stride_h=1, stride_w=1,
            dtype="f16")


def problem(**changes):
    return DgradProblem(**{**BASE, **changes})


@pytest.mark.parametrize("config, prob, match", [
    (make_config("unity"), problem(stride_h=2, p=14), "unity-stride kernel"),
    (make_config("unity"), problem(stride_w=2, q=14), "unity-stride kernel"),
    (make_config("unity"), problem(k=132), "K=132 is not a multiple of the dy alignment 8"),
    (make_config("unity"), problem(c=36), "C=36 is not a multiple of the filter alignment 8"),
    (make_config("unity", align=(8, 2, 4)), problem(c=34), "C=34 is not a multiple of the dx alignment 4"),
    (make_config("unity", dtype="bf16"), problem(), "kernel is bf16, problem is f16"),
    (make_config("unity"), problem(r=33, s=1, pad_h=16), "filter 33x1"),
    (make_config("unity"), problem(n=4096, h=512, w=512, c=8, p=512, q=512, k=8), "2 GiB"),
    (make_config("unity", "f32", align=(4, 4, 4)), problem(), "kernel is f32, problem is f16"),
    (make_config("unity"), problem(dtype="f32"), "kernel is f16, problem is f32"),
    # 2^29 dx elements: 2^31 bytes in f32 (refused), 2^30 in f16 (accepted below).
    (make_config("unity", "f32", align=(2, 2, 2)), problem(n=1024, h=512, w=512, c=2, p=512, q=512, k=2,
                                                           dtype="f32"), "2 GiB"),
    (make_config("unity", stages=2, align=(8, 1, 1)), problem(c=35, k=20), "K=20 is not a multiple of the dy alignment 8"),
])
def test_supports_refuses(config, prob, match):
    reason = supports(config, prob)
    assert reason is not None and match in reason
    assert "\n" not in reason


def test_supports_accepts():
    assert supports(make_config("unity"), problem()) is None
    assert supports(make_config("strided"), problem()) is None  # strided kernels also run stride 1
    assert supports(make_config("strided"), problem(stride_h=2, stride_w=2, p=14, q=14)) is None
    # H need not match P: dx rows no dy row reaches are computed as 0 (CUTLASS masks by P/Q bounds).
    assert supports(make_config("strided"), problem(h=29, w=30, stride_h=2, stride_w=2, p=14, q=14)) is None
    # 1x1 stride 2: the phases with no filter tap run no MMA but still store their zero accumulators.
    assert supports(make_config("strided"), problem(r=1, s=1, pad_h=0, pad_w=0, stride_h=2, stride_w=2,
                                                    p=14, q=14)) is None
    assert supports(make_config("unity", align=(2, 2, 2)), problem(c=34, k=62)) is None
    assert supports(make_config("unity", align=(2, 2, 2)), problem(n=1024, h=512, w=512, c=2, p=512, q=512,
                                                                   k=2)) is None
    assert supports(make_config("unity", stages=2, align=(1, 1, 1)), problem(c=35, k=7)) is None
    assert supports(make_config("strided", "f32", align=(1, 1, 1)), problem(c=35, k=7, dtype="f32")) is None


def test_sm90_kernels_refuse_f32():
    from iree_cutlass.plugin.sm90 import Sm90Config
    with pytest.raises(ValueError, match="dtype must be one of"):
        Sm90Config("f32", 128, 128, 2, 1)
    assert select_kernel(problem(dtype="f32")).family == "sm80"


# --- selection --------------------------------------------------------------------------------------

@pytest.mark.parametrize("tag, prob", ALL_RESNET, ids=[t for t, _ in ALL_RESNET])
def test_select_kernel_resnet(tag, prob):
    config = select_kernel(prob, families=SM80)
    assert supports(config, prob) is None
    assert config.stride_support == ("strided" if prob.stride_h > 1 else "unity")
    assert (config.align_a, config.align_b, config.align_c) == (8, 8, 8)
    assert config.dtype == "f16"


def test_select_kernel_alignment_and_dtype():
    config = select_kernel(problem(c=36, k=20, dtype="bf16"))  # sm90 needs channels of 8: sm80 takes it
    assert (config.align_a, config.align_b, config.align_c) == (4, 4, 4)
    assert config.dtype == "bf16"
    config = select_kernel(problem(c=34, k=128), families=SM80)
    assert (config.align_a, config.align_b, config.align_c) == (8, 2, 2)


def test_select_kernel_heuristic_tiles():
    # The sm80 heuristic alone (off sm_90): small problem, C <= 64 -> 64x64; big -> 128x128; big strided with
    # C >= 256 -> 128x256
    assert heuristic_config(problem(n=1, c=64, k=64), "sm_89").tile_n == 64
    big = heuristic_config(problem(n=256), "sm_89")
    assert (big.tile_m, big.tile_n) == (128, 128)
    wide = heuristic_config(problem(n=256, h=56, w=56, c=256, stride_h=2, stride_w=2), "sm_89")
    assert (wide.tile_m, wide.tile_n, wide.stride_support) == (128, 256, "strided")
    # On sm_90 the Hopper kernels, N tile fitted to C, while they support the problem; sm80 where they do not.
    assert [heuristic_config(problem(c=c)).tile_n for c in (64, 128, 512)] == [64, 128, 256]
    assert {heuristic_config(problem(c=c)).family for c in (64, 128, 512)} == {"sm90"}
    assert heuristic_config(problem(c=36)).family == "sm80"
    assert heuristic_config(problem(dtype="f32")).family == "sm80"


def test_heuristic_takes_the_halo_tile_where_it_fits_well():
    # A unit-stride 3x3 on C <= 64 at a batch the table does not hold (ResNet-18's first stage, batch 32): the
    # 256-pixel ping-pong halo tile, boxes of 4 x 64 over 56 columns, three stages. Not where its box would be over
    # an eighth junk (20 columns in a box of 32), the filter needs two K blocks of every tap (K = 128: no two stages
    # fit), C > 64, or the filter is 1x1.
    def unit(h, c=64, k=64, r=3, dtype="f16"):
        pad = (r - 1) // 2
        return DgradProblem(32, h, h, c, k, r, r, h, h, pad, pad, 1, 1, dtype)
    for dtype in ("f16", "bf16"):
        assert heuristic_config(unit(56, dtype=dtype)).name == \
            f"iree_cutlass_dgrad_sm90_{dtype}_256x64x64_s3_c1_pp_tr_hl9x392"
    assert heuristic_config(unit(30)).halo_blocks == 9
    assert [heuristic_config(p).halo_blocks for p in (unit(20), unit(56, k=128), unit(56, c=128), unit(56, r=1))] \
        == [0, 0, 0, 0]


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_select_kernel_odd_channels_take_two_stage_kernels(dtype):
    config = select_kernel(problem(c=35, dtype=dtype))  # sm90 needs channels of 8: sm80 takes it
    assert (config.family, config.dtype, config.stages) == ("sm80", dtype, 2)
    assert (config.align_a, config.align_b, config.align_c) == (8, 1, 1)
    assert config.name.endswith("_s2_a8x1x1")
    config = select_kernel(problem(k=7, dtype=dtype))
    assert (config.stride_support, config.stages) == ("unity", 2)
    assert (config.align_a, config.align_b, config.align_c) == (1, 8, 8)
    # Strided: CUTLASS's 2-stage strided iterator cannot load single elements, so the conv stays with IREE.
    strided = problem(k=7, stride_h=2, stride_w=2, p=14, q=14, dtype=dtype)
    with pytest.raises(NoKernel, match="K=7 is odd at stride 2x2: cp.async needs even 16-bit channels"):
        select_kernel(strided)
    with pytest.raises(NoKernel, match="C=35 is odd at stride 1x2"):
        select_kernel(problem(c=35, stride_w=2, q=14, dtype=dtype))
    assert candidate_configs(strided) == []
    # The heuristic's tile, on the 2-stage mainloop.
    for even, odd in ((problem(n=1, c=64, k=64), problem(n=1, c=63, k=64)), (problem(n=256), problem(n=256, k=129))):
        a, b = heuristic_config(even, "sm_89"), heuristic_config(odd, "sm_89")
        assert (a.tile_m, a.tile_n, a.tile_k, a.warp_m, a.warp_n) == (b.tile_m, b.tile_n, b.tile_k, b.warp_m, b.warp_n)
        assert b.stages == 2 and a.stages > 2
    candidates = candidate_configs(problem(c=35, dtype=dtype))  # the sm90 kernels need channels of 8
    assert len(candidates) == len(select.SM80_TWO_STAGE_TILES)
    assert all(c.family == "sm80" and c.stages == 2 and c.align_b == 1 for c in candidates)
    assert len({c.name for c in candidates}) == len(candidates)


@pytest.mark.parametrize("tag, prob", [(t, p) for t, p in resnet_problems(8, "f32")] +
                         [(f"{t}_n256", p) for t, p in resnet_problems(256, "f32")])
def test_select_kernel_f32_resnet(tag, prob):
    for arch in ("sm_80", "sm_90"):
        config = select_kernel(prob, arch=arch)
        assert (config.family, config.dtype) == ("sm80", "f32")
        assert (config.align_a, config.align_b, config.align_c) == (4, 4, 4)
        assert (config.tile_k, config.stages) in ((16, 3), (16, 4))
        assert supports(config, prob) is None
        assert config.stride_support == ("strided" if prob.stride_h > 1 else "unity")


def test_f32_never_goes_to_sm90():
    prob = problem(n=32, dtype="f32")
    configs = candidate_configs(prob, "sm_90")
    assert configs and {c.family for c in configs} == {"sm80"}
    assert len(configs) == len(select.F32_TILES)
    assert all(c.dtype == "f32" and c.stages >= 3 for c in configs)
    with pytest.raises(NoKernel, match="the sm90 kernels take f16 and bf16, not f32"):
        select_kernel(prob, families=("sm90",))
    with pytest.raises(NoKernel, match="the sm90 kernels take f16 and bf16, not f32"):
        select.sm90_heuristic_config(prob)
    # Odd f32 channels still use cp.async: 4 bytes is one element.
    config = select_kernel(problem(c=35, k=7, dtype="f32"))
    assert config.stages >= 3 and (config.align_a, config.align_b, config.align_c) == (1, 1, 1)


def test_candidate_configs():
    prob = problem(n=32)
    configs = candidate_configs(prob, "sm_80")
    assert len(configs) == len(select.SM80_TILES)
    assert all(supports(c, prob) is None and c.stride_support == "unity" for c in configs)
    strided = candidate_configs(problem(stride_h=2, stride_w=2, p=14, q=14), "sm_89")
    assert strided and all(c.stride_support == "strided" for c in strided)
    hopper = candidate_configs(prob, "sm_90")
    assert [c for c in hopper if c.family == "sm80"] == configs
    assert {c.family for c in hopper} == {"sm80", "sm90"}


def test_tuning_table_falls_in_front(tmp_path, monkeypatch):
    prob = problem()
    tuned = make_config("unity", tile=(256, 64, 32), warp=(64, 64, 32), stages=4)
    table = {"entries": {prob.key(): {"config": config_to_dict(tuned), "ms": 0.01}}}
    (tmp_path / "h200.json").write_text(json.dumps(table))
    monkeypatch.setattr(select, "TUNING_DIR", tmp_path)
    select._load_table.cache_clear()
    try:
        assert select_kernel(prob) == tuned
        assert select_kernel(problem(n=2)) == select.heuristic_config(problem(n=2))  # not in the table
        assert select_kernel(prob, card="a100") == select.heuristic_config(prob)  # no such table
        # Another card's table picks for that card alone (--iree-cutlass-card).
        other = make_config("unity", tile=(64, 64, 32), warp=(32, 32, 32), stages=6)
        (tmp_path / "h100.json").write_text(json.dumps({"entries": {prob.key(): {"config": config_to_dict(other)}}}))
        assert select.known_cards() == ("h100", "h200")
        assert select_kernel(prob, card="h100") == other and select_kernel(prob) == tuned
        bad = {"entries": {prob.key(): {"config": config_to_dict(make_config("unity"))}}}
        bad["entries"][prob.key()]["config"]["dtype"] = "bf16"
        (tmp_path / "h200.json").write_text(json.dumps(bad))
        select._load_table.cache_clear()
        with pytest.raises(ValueError, match="does not fit the problem"):
            select_kernel(prob)
    finally:
        select._load_table.cache_clear()


def test_shipped_tuning_tables_are_valid():
    for path in pathlib.Path(select.TUNING_DIR).glob("*.json"):
        entries = json.loads(path.read_text())["entries"]
        for key, entry in entries.items():
            config = config_from_dict(entry["config"])
            assert config.name
            assert re.fullmatch(r"n\d+_h\d+_w\d+_c\d+_k\d+_r\d+_s\d+_p\d+_q\d+_pad\d+x\d+_str\d+x\d+_(f16|bf16|f32)", key)


def test_shipped_h200_table_drives_resnet50_f16_selection():
    # Every ResNet-50 f16 dgrad problem was measured on the H200; compile-time selection must use that winner.
    from iree_cutlass.plugin.select import TUNING_DIR
    from iree_cutlass.workloads import dgrad_problem, resnet50_layers
    entries = json.loads((TUNING_DIR / "h200.json").read_text())["entries"]
    for layer in resnet50_layers(dtypes=("f16",)):
        problem = dgrad_problem(layer)
        assert select_kernel(problem) == config_from_dict(entries[problem.key()]["config"])


def test_shipped_h100_table_drives_selection_for_card_h100():
    # Every ResNet-50 problem of the H100 table is chosen from it with card h100, and from the H200 table without.
    from iree_cutlass.plugin.select import TUNING_DIR
    from iree_cutlass.workloads import dgrad_problem, resnet50_layers
    tables = {card: json.loads((TUNING_DIR / f"{card}.json").read_text())["entries"] for card in ("h100", "h200")}
    differ = 0
    for layer in resnet50_layers(dtypes=("f16", "bf16")):
        problem = dgrad_problem(layer)
        for card, entries in tables.items():
            assert select_kernel(problem, card=card) == config_from_dict(entries[problem.key()]["config"])
        differ += select_kernel(problem, card="h100") != select_kernel(problem)
    assert differ > 0
