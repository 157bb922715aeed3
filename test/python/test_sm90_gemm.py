"""The sm90_gemm family (CUTLASS's Hopper GEMM kernels behind IREE's ABI), on the CPU: which problems it takes,
its generator's Params (built with nvcc and run here), the kernel source that embeds them, and its selection.
Its numerics need a GPU: bench/gpu_check.py and the tuner's checks run them."""
import os
import subprocess

import pytest

from iree_cutlass.plugin import sm90_gemm
from iree_cutlass.plugin.build import KernelBuildError, _generator, default_cache_dir, find_nvcc, generator_output
from iree_cutlass.plugin.kernels import config_from_dict, config_to_dict, launch_record
from iree_cutlass.plugin.problem import DgradProblem
from iree_cutlass.plugin.select import NoKernel, candidate_configs, select_kernel


def problem(**fields) -> DgradProblem:
    base = dict(n=2, h=8, w=8, c=16, k=32, r=1, s=1, p=8, q=8, pad_h=0, pad_w=0, stride_h=1, stride_w=1,
                dtype="f16")
    base.update(fields)
    return DgradProblem(**base)


def config(p: DgradProblem, tile_m=128, tile_n=128, schedule="pingpong") -> sm90_gemm.Sm90GemmConfig:
    return sm90_gemm.Sm90GemmConfig(p.dtype, tile_m, tile_n, schedule, *sm90_gemm.gemm_extents(p))


def test_supports_only_the_plain_gemm_it_was_built_for():
    plain = problem()
    assert sm90_gemm.gemm_extents(plain) == (128, 16, 32)
    assert sm90_gemm.supports(config(plain), plain) is None
    assert "bf16" in sm90_gemm.supports(config(plain), problem(dtype="bf16"))
    for other in (problem(r=3, s=3, pad_h=1, pad_w=1), problem(stride_h=2, stride_w=2, p=4, q=4),
                  problem(pad_h=1, p=10)):
        assert "1x1 unit-stride unpadded" in sm90_gemm.supports(config(plain), other)
    assert "built for GEMM 128x16x32" in sm90_gemm.supports(config(plain), problem(n=4))
    narrow = problem(c=12)
    assert "multiples of 8" in sm90_gemm.supports(config(narrow), narrow)


def test_config_refuses_what_no_kernel_is():
    with pytest.raises(ValueError, match="no sm90_gemm kernel of tile 64x64"):
        sm90_gemm.Sm90GemmConfig("f16", 64, 64, "pingpong", 128, 16, 32)
    with pytest.raises(ValueError, match="schedule"):
        sm90_gemm.Sm90GemmConfig("f16", 128, 128, "both", 128, 16, 32)
    with pytest.raises(ValueError, match="f16 and bf16"):
        sm90_gemm.Sm90GemmConfig("f32", 128, 128, "pingpong", 128, 16, 32)
    with pytest.raises(ValueError, match="with a cluster of 2"):
        sm90_gemm.Sm90GemmConfig("f16", 128, 64, "pingpong", 128, 16, 32, cluster_m=2)
    with pytest.raises(ValueError, match="with a cluster of 4"):
        sm90_gemm.Sm90GemmConfig("f16", 128, 128, "pingpong", 128, 16, 32, cluster_m=4)
    with pytest.raises(ValueError, match="no sm90_gemm kernel of tile 128x192"):
        sm90_gemm.Sm90GemmConfig("f16", 128, 192, "cooperative", 128, 16, 32)
    with pytest.raises(ValueError, match="no swapped sm90_gemm kernel of tile 128x64"):
        sm90_gemm.Sm90GemmConfig("f16", 128, 64, "pingpong", 128, 16, 32, swapped=True)
    with pytest.raises(ValueError, match="m must be a positive int"):
        sm90_gemm.Sm90GemmConfig("f16", 128, 128, "pingpong", 0, 16, 32)


def test_candidates_on_sm90_plain_gemms_only():
    names = [c.name for c in candidate_configs(problem()) if c.family == "sm90_gemm"]
    assert names[0] == "iree_cutlass_gemm_sm90_f16_128x128_pp_m128_n16_k32"
    assert len(names) == (len(sm90_gemm.CANDIDATE_SHAPES) + len(sm90_gemm.CLUSTER_SHAPES)
                          + 2 * len(sm90_gemm.SWAPPED_SHAPES))
    assert "iree_cutlass_gemm_sm90_f16_128x128_pp_c2_m128_n16_k32" in names
    assert {"iree_cutlass_gemm_sm90_f16_128x192_co_sw_m128_n16_k32",
            "iree_cutlass_gemm_sm90_f16_128x192_co_c2_sw_m128_n16_k32"} <= set(names)
    assert not [c for c in candidate_configs(problem(r=3, s=3, pad_h=1, pad_w=1)) if c.family == "sm90_gemm"]
    assert not [c for c in candidate_configs(problem(), arch="sm_80") if c.family == "sm90_gemm"]


def test_selection_with_only_this_family():
    chosen = select_kernel(problem(), families=("sm90_gemm",))
    assert chosen == config(problem())
    with pytest.raises(NoKernel, match="1x1 unit-stride unpadded"):
        select_kernel(problem(r=3, s=3, pad_h=1, pad_w=1), families=("sm90_gemm",))
    with pytest.raises(NoKernel, match="f16 and bf16, not f32"):
        select_kernel(problem(dtype="f32"), families=("sm90_gemm",))
    with pytest.raises(NoKernel, match="sm_90 only"):
        select_kernel(problem(), arch="sm_80", families=("sm90_gemm",))
    # The heuristic never picks it when other families are allowed (only measured tables do).
    assert select_kernel(problem()).family != "sm90_gemm"


def test_config_round_trips_through_a_table_entry():
    c = config(problem(), 256, 128, "cooperative")
    assert config_from_dict(config_to_dict(c)) == c
    swapped = sm90_gemm.Sm90GemmConfig("bf16", 128, 192, "cooperative", 128, 16, 32, cluster_m=2, swapped=True)
    assert config_from_dict(config_to_dict(swapped)) == swapped
    # Table entries written before swapped kernels existed read as unswapped.
    fields = config_to_dict(c)
    del fields["swapped"]
    assert config_from_dict(fields) == c


def test_generator_params_and_launch():
    """The generator (nvcc, ~20 s cold) builds ping-pong 128x128's Params for dx[128, 16] = dy[128, 32] x w^T."""
    p = problem()
    out = sm90_gemm.generated(config(p))
    assert out["params_bytes"] <= out["slot_bytes"] and out["slot_bytes"] % 128 == 0
    assert len(out["params"]) == 2 * out["slot_bytes"]
    # dy (A) and the filter (B) as (K, rows) maps with 128-byte rows; dx twice (C, unread with beta 0, and D).
    recipes = out["recipes"]
    assert [r["operand"] for r in recipes] == [0, 1, 2, 2]
    assert recipes[0]["dims"] == [32, 128, 1] and recipes[0]["strides"][0] == 32 * 2
    assert recipes[1]["dims"] == [32, 16, 1] and recipes[1]["strides"][0] == 32 * 2
    assert recipes[3]["dims"] == [16, 128, 1] and recipes[3]["strides"][0] == 16 * 2
    raw = bytes.fromhex(out["params"])
    for r in recipes:
        assert r["offset"] % 64 == 0 and 1 <= r["swizzle"] <= 3
        assert raw[r["offset"]:r["offset"] + 128] == bytes(128), "descriptors are rebuilt on the device, not copied"
    record = launch_record(config(p), p)
    grid = record["grid"]
    assert grid[0] * grid[1] * grid[2] == 1            # one 128x128 tile
    assert record["block"] == [384, 1, 1] and record["smem_bytes"] == out["smem_bytes"] > 200_000
    assert record["constants"] == [128, 16, 32] and record["filter_layout"] == "rsck"
    assert record["workspace_bytes"] == out["slot_bytes"] + sm90_gemm.WORKSPACE_SLACK


def test_generator_output_is_the_same_from_run_to_run():
    """The Params' padding is zeroed, so the kernel source (and its cache key) does not change between runs."""
    program = _generator(sm90_gemm.generator_defines(config(problem())), sm90_gemm.HEADER, default_cache_dir(),
                         find_nvcc())
    outputs = {subprocess.run([str(program), "128", "16", "32", "132"], capture_output=True, text=True, check=True,
                              env={**os.environ, "PADDING": "x" * size}).stdout for size in (1, 3000)}
    assert len(outputs) == 1


def test_generator_refuses_a_problem_cutlass_cannot_take():
    with pytest.raises(KernelBuildError, match="refused 128 16 12 132: CUTLASS cannot implement this problem"):
        generator_output(sm90_gemm.generator_defines(config(problem())), sm90_gemm.HEADER, [128, 16, 12, 132])


def test_kernel_source_embeds_the_params():
    p = problem()
    out = sm90_gemm.generated(config(p))
    source = sm90_gemm.generate_source(config(p))
    assert source.count("#pragma once") == 0
    assert f"unsigned char const kParams[{out['slot_bytes']}]" in source
    assert "iree_cutlass_gemm::Recipe const kRecipes[4]" in source
    assert 'extern "C" __global__' in source and "iree_cutlass_gemm_sm90_f16_128x128_pp_m128_n16_k32(" in source
    assert "m != 128u || n != 16u || k != 32u" in source
    first = out["params"][:2]
    assert f"0x{first}," in source


def test_kernel_code_drops_only_a_gemm_kernels_problem_and_a_halo_kernels_capacities():
    from iree_cutlass.plugin.kernels import kernel_code
    assert kernel_code("iree_cutlass_gemm_sm90_bf16_128x256_co_m802816_n64_k256") == \
        "iree_cutlass_gemm_sm90_bf16_128x256_co"
    assert kernel_code("iree_cutlass_dgrad_sm90_f16_128x128x64_s6_c1_pp_e1_wp") == \
        "iree_cutlass_dgrad_sm90_f16_128x128x64_s6_c1_pp_e1_wp"
    assert kernel_code("iree_cutlass_dgrad_sm90_f16_256x64x64_s2_c1_tr_hl9x392") == \
        kernel_code("iree_cutlass_dgrad_sm90_f16_256x64x64_s2_c1_tr_hl8x328") == \
        "iree_cutlass_dgrad_sm90_f16_256x64x64_s2_c1_tr_hl"


def test_a_cluster_kernel_launches_whole_clusters():
    """A 2x1 cluster kernel (nvcc, ~20 s cold for its generator): CUTLASS's grid has whole clusters along x, as
    the entry point's __cluster_dims__ needs, and the source declares them."""
    p = problem(n=8)
    c = config(p)
    clustered = sm90_gemm.Sm90GemmConfig(c.dtype, c.tile_m, c.tile_n, c.schedule, c.m, c.n, c.k, cluster_m=2)
    assert clustered.name == "iree_cutlass_gemm_sm90_f16_128x128_pp_c2_m512_n16_k32"
    grid = launch_record(clustered, p)["grid"]
    assert grid[0] % 2 == 0 and grid[0] * grid[1] * grid[2] <= 132
    source = sm90_gemm.generate_source(clustered)
    assert "__cluster_dims__(2, 1, 1)" in source and "Gemm<cutlass::half_t, 128, 128, true, 2, false>" in source
    assert "__cluster_dims__(1, 1, 1)" in sm90_gemm.generate_source(c)


def test_a_swapped_kernel_maps_the_filter_as_a_and_dx_column_major():
    """A swapped 2-CTA kernel (nvcc, ~25 s cold for its generator) computes dx^T[C, M] = w[C, K] x dy[M, K]^T: its
    first descriptor maps the filter (A), its second dy (B, each CTA of the cluster loading half the tile and
    multicasting it), and its only other one dx, as channels by pixels; the push constants and the check in the
    entry point stay the dgrad GEMM's (pixels, channels, reduction)."""
    p = problem(n=8, c=136, k=64)   # M = 512 pixels, two 128-channel tiles, the second ragged
    c = sm90_gemm.Sm90GemmConfig("f16", 128, 192, "cooperative", *sm90_gemm.gemm_extents(p), cluster_m=2,
                                 swapped=True)
    assert c.name == "iree_cutlass_gemm_sm90_f16_128x192_co_c2_sw_m512_n136_k64"
    assert sm90_gemm.supports(c, p) is None
    recipes = sm90_gemm.generated(c)["recipes"]
    assert [r["operand"] for r in recipes] == [1, 0, 2]    # no C: swapped kernels' epilogue has no source
    assert recipes[0]["dims"] == [64, 136, 1] and recipes[0]["box"][:2] == [64, 128]
    assert recipes[1]["dims"] == [64, 512, 1] and recipes[1]["box"][:2] == [64, 96]
    assert recipes[2]["dims"] == [136, 512, 1] and recipes[2]["strides"][0] == 136 * 2
    record = launch_record(c, p)
    assert record["constants"] == [512, 136, 64] and record["grid"][0] % 2 == 0
    source = sm90_gemm.generate_source(c)
    assert "Gemm<cutlass::half_t, 128, 192, false, 2, true>" in source
    assert "m != 512u || n != 136u || k != 64u" in source
