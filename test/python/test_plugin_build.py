"""nvcc builds and the kernel cache. Needs nvcc (CI has it); IREE_CUTLASS_SKIP_NVCC=1 skips the real compiles."""
import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

from iree_cutlass.plugin import build
from iree_cutlass.plugin import sm80 as kernels
from iree_cutlass.plugin.build import KernelBuildError, build_kernel, build_kernels
from iree_cutlass.plugin.sm80 import Sm80Config as KernelConfig

FATBIN_MAGIC = bytes.fromhex("50ed55ba")  # fatbin header magic 0xBA55ED50, little-endian

UNITY_F16 = KernelConfig("f16", "unity", 64, 64, 32, 32, 32, 32, 6, 8, 8, 8)
STRIDED_F16 = KernelConfig("f16", "strided", 128, 128, 32, 64, 64, 32, 3, 8, 8, 8)
STRIDED_BF16 = KernelConfig("bf16", "strided", 64, 128, 32, 32, 64, 32, 6, 4, 2, 2)
# 3xTF32 with cp.async of single 4-byte elements (odd f32 channels).
UNITY_F32_A1 = KernelConfig("f32", "unity", 64, 64, 16, 32, 32, 16, 3, 1, 1, 1)
# The 2-stage mainloop, loading one 16-bit element at a time (odd K and C, unit stride).
UNITY_BF16_A1 = KernelConfig("bf16", "unity", 64, 64, 32, 32, 32, 32, 2, 1, 1, 1)


def _nvcc_or_fail():
    try:
        return build.find_nvcc()
    except KernelBuildError as error:
        if os.environ.get("IREE_CUTLASS_SKIP_NVCC") == "1":
            pytest.skip(f"IREE_CUTLASS_SKIP_NVCC=1 and {error}")
        pytest.fail(f"{error} (set IREE_CUTLASS_SKIP_NVCC=1 to skip the nvcc tests)")


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory):
    """One build cache for the whole session, so each kernel compiles once."""
    return tmp_path_factory.mktemp("kernel-cache")


@pytest.fixture(scope="session")
def built(cache_dir):
    _nvcc_or_fail()
    lines = []
    kernels_ = build_kernels([UNITY_F16, STRIDED_F16, STRIDED_BF16, UNITY_F16], cache_dir=cache_dir, jobs=2,
                             progress=lines.append)
    return kernels_, lines


@pytest.fixture(scope="session")
def built_new_mainloops(cache_dir):
    """The f32 and alignment-1 kernels, built side by side (one nvcc each)."""
    _nvcc_or_fail()
    return dict(zip((UNITY_F32_A1, UNITY_BF16_A1),
                    build_kernels([UNITY_F32_A1, UNITY_BF16_A1], cache_dir=cache_dir, jobs=2)))


class CompileCounter:
    """Counts real nvcc compiles that build.py starts."""

    def __init__(self, monkeypatch):
        self.count = 0
        real_run = subprocess.run

        def run(command, *args, **kwargs):
            if "-fatbin" in command:
                self.count += 1
            return real_run(command, *args, **kwargs)

        monkeypatch.setattr(build.subprocess, "run", run)


def _assert_valid_entry(result):
    data = result.path.read_bytes()
    assert data[:4] == FATBIN_MAGIC
    assert result.entry.encode() in data
    meta = json.loads(result.path.with_suffix(".json").read_text())
    assert meta["size"] == len(data)
    assert meta["entry"] == result.entry


@pytest.mark.nvcc
def test_build_three_kernels(built):
    results, lines = built
    assert [r.entry for r in results] == [UNITY_F16.name, STRIDED_F16.name, STRIDED_BF16.name, UNITY_F16.name]
    assert results[0] == results[3]  # a repeated config is built once
    assert all(r.format == "fatbin" for r in results)
    for result in results[:3]:
        _assert_valid_entry(result)
    assert len(lines) == 3
    assert all(line.startswith("[iree-cutlass] building kernel ") and "/3: iree_cutlass_dgrad_" in line
               for line in lines)


@pytest.mark.nvcc
def test_build_f32_kernel(built_new_mainloops):
    # Compiling checks the static_asserts too: shared-memory formula for 4-byte elements, block size.
    result = built_new_mainloops[UNITY_F32_A1]
    assert result.entry == "iree_cutlass_dgrad_f32_unity_64x64x16_32x32x16_s3_a1x1x1"
    _assert_valid_entry(result)


@pytest.mark.nvcc
@pytest.mark.parametrize("fields, entry", [
    (dict(schedule="pingpong", resident_k=2), "iree_cutlass_dgrad_sm90_bf16_128x128x64_s4_c1_pp_rk2"),
    (dict(store_slots=4), "iree_cutlass_dgrad_sm90_bf16_128x128x64_s4_c1_e4"),
    (dict(stages=3, split_k=4), "iree_cutlass_dgrad_sm90_bf16_128x128x64_s3_c1_k4"),
    (dict(tile_m=192, stages=3, cluster=2, transposed=True, tile_buffers=2),
     "iree_cutlass_dgrad_sm90_bf16_192x128x64_s3_c1_m2_tr_b2"),
    (dict(tile_m=192, cluster=2, transposed=True, share_dy=True),
     "iree_cutlass_dgrad_sm90_bf16_192x128x64_s4_c1_n2_tr"),
    (dict(tile_m=256, cluster=2, share_dy=True, store_slots=1), "iree_cutlass_dgrad_sm90_bf16_256x128x64_s4_c1_n2_e1"),
    (dict(tile_m=192, stages=5, cluster=2, share_dy=True, transposed=True, store_slots=1),
     "iree_cutlass_dgrad_sm90_bf16_192x128x64_s5_c1_n2_e1_tr"),
    (dict(tile_n=256, store_slots=2, wg_stores=True, thread_stores=True),
     "iree_cutlass_dgrad_sm90_bf16_128x256x64_s4_c1_e2_ws_ts"),
    (dict(tile_m=192, cluster=2, share_dy=True, transposed=True, thread_stores=True),
     "iree_cutlass_dgrad_sm90_bf16_192x128x64_s4_c1_n2_tr_ts"),
    (dict(tile_m=256, cluster=2, share_dy=True, store_slots=1, wg_release=True),
     "iree_cutlass_dgrad_sm90_bf16_256x128x64_s4_c1_n2_e1_wr"),
    (dict(schedule="pingpong", cluster=2, store_slots=2, warp_stores=True),
     "iree_cutlass_dgrad_sm90_bf16_128x128x64_s4_c1_pp_m2_e2_wp"),
    (dict(tile_n=256, store_slots=2, wg_stores=True, wg_offset=3),
     "iree_cutlass_dgrad_sm90_bf16_128x256x64_s4_c1_e2_ws_o3"),
    (dict(tile_m=256, tile_n=64, stages=2, transposed=True, halo_blocks=9, halo_rows=392),
     "iree_cutlass_dgrad_sm90_bf16_256x64x64_s2_c1_tr_hl9x392"),
    (dict(tile_m=256, tile_n=64, stages=3, schedule="pingpong", transposed=True, halo_blocks=9, halo_rows=392),
     "iree_cutlass_dgrad_sm90_bf16_256x64x64_s3_c1_pp_tr_hl9x392"),
    (dict(tile_m=256, tile_n=64, schedule="pingpong", cluster=2, transposed=True),
     "iree_cutlass_dgrad_sm90_bf16_256x64x64_s4_c1_pp_m2_tr"),
    (dict(stages=5, schedule="pingpong", cluster=2, share_dy=True, transposed=True),
     "iree_cutlass_dgrad_sm90_bf16_128x128x64_s5_c1_pp_n2_tr"),
    (dict(tile_m=64, tile_n=256, schedule="pingpong", store_slots=4, warp_stores=True, clip_taps=True),
     "iree_cutlass_dgrad_sm90_bf16_64x256x64_s4_c1_pp_e4_wp_ct"),
    (dict(tile_m=128, tile_n=64, stages=8, schedule="pingpong", transposed=True, box_walk=True),
     "iree_cutlass_dgrad_sm90_bf16_128x64x64_s8_c1_pp_tr_bw"),
])
def test_build_sm90_kernel_variants(cache_dir, fields, entry):
    # Compiling checks the kernel's static_asserts: the shared-memory formula with the filter slab, the store
    # ring, the split-K partial tile or two transposed staging tiles in it, and the template's own limits (a
    # transposed tile in a filter-sharing cluster and in a dy-sharing one, a one-slot store ring, and a transposed
    # tile's one-slot ring at the shared-memory limit, thread stores with a warpgroup ring and whole-tile
    # transposed staging, a dy-sharing pair that releases a stage once a warpgroup, warp stores in a ping-pong
    # filter-sharing pair, a warpgroup offset one block under the stage count, and a halo tile's slab of nine taps
    # beside two halo stages, or beside three in ping-pong, staging in them, and ping-pong transposed tiles in a
    # filter-sharing pair, a staging tile a warpgroup beside four stages, 128 channels a warpgroup in a dy-sharing
    # pair, a ping-pong warp-store tile with clipped taps, and a ping-pong transposed tile walking whole boxes,
    # among them).
    from iree_cutlass.plugin.sm90 import Sm90Config
    _nvcc_or_fail()
    config = Sm90Config(**{"dtype": "bf16", "tile_m": 128, "tile_n": 128, "stages": 4, "ctas_per_sm": 1, **fields})
    result = build_kernel(config, arch="sm_90", cache_dir=cache_dir)
    _assert_valid_entry(result)
    assert result.entry == entry


@pytest.mark.nvcc
def test_build_swapped_gemm_kernel(cache_dir):
    # CUTLASS's GEMM with A and B swapped and D column-major (dx^T), in a 2-CTA cluster multicasting dy: its
    # generator, then the kernel with the Params embedded, whose static_asserts check them against the generator's.
    from iree_cutlass.plugin.problem import DgradProblem
    from iree_cutlass.plugin.sm90_gemm import Sm90GemmConfig, gemm_extents
    _nvcc_or_fail()
    problem = DgradProblem(n=2, h=8, w=8, c=136, k=64, r=1, s=1, p=8, q=8, pad_h=0, pad_w=0, stride_h=1,
                           stride_w=1, dtype="bf16")
    config = Sm90GemmConfig("bf16", 128, 192, "cooperative", *gemm_extents(problem), cluster_m=2, swapped=True)
    result = build_kernel(config, arch="sm_90", cache_dir=cache_dir)
    _assert_valid_entry(result)
    assert result.entry == "iree_cutlass_gemm_sm90_bf16_128x192_co_c2_sw_m128_n136_k64"


@pytest.mark.nvcc
def test_build_alignment_1_kernel(built_new_mainloops):
    # cp.async cannot move 2 bytes (a 3-stage alignment-1 16-bit kernel fails CUTLASS's static_assert); the
    # 2-stage mainloop loads through registers and compiles.
    result = built_new_mainloops[UNITY_BF16_A1]
    assert result.entry == "iree_cutlass_dgrad_bf16_unity_64x64x32_32x32x32_s2_a1x1x1"
    _assert_valid_entry(result)


@pytest.mark.nvcc
def test_second_build_is_a_cache_hit(built, cache_dir, monkeypatch, capsys):
    counter = CompileCounter(monkeypatch)
    again = build_kernel(STRIDED_F16, cache_dir=cache_dir)
    assert again == built[0][1]
    assert counter.count == 0
    assert capsys.readouterr().err == ""  # a hit prints nothing


@pytest.mark.nvcc
@pytest.mark.parametrize("damage", ["truncate", "flip", "delete_sidecar"])
def test_damaged_entry_is_rebuilt(built, cache_dir, monkeypatch, capsys, damage):
    result = built[0][0]
    good = result.path.read_bytes()
    if damage == "truncate":
        result.path.write_bytes(good[: len(good) // 2])
    elif damage == "flip":
        result.path.write_bytes(good[:100] + bytes([good[100] ^ 0xFF]) + good[101:])
    else:
        result.path.with_suffix(".json").unlink()
    counter = CompileCounter(monkeypatch)
    rebuilt = build_kernel(UNITY_F16, cache_dir=cache_dir)
    assert counter.count == 1
    assert rebuilt.path == result.path
    _assert_valid_entry(rebuilt)
    assert f"building kernel 1/1: {UNITY_F16.name}" in capsys.readouterr().err


@pytest.mark.nvcc
def test_concurrent_builds_leave_one_valid_entry(tmp_path):
    _nvcc_or_fail()
    script = textwrap.dedent(f"""
        import pathlib
        from iree_cutlass.plugin.build import build_kernel
        from iree_cutlass.plugin.sm80 import Sm80Config
        config = Sm80Config("f16", "unity", 64, 64, 32, 32, 32, 32, 6, 8, 8, 8)
        print(build_kernel(config, cache_dir=pathlib.Path({str(tmp_path)!r})).path)
    """)
    procs = [subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(2)]
    outputs = [proc.communicate(timeout=300) for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0], outputs
    paths = {out.strip() for out, _ in outputs}
    assert len(paths) == 1
    assert len(list(tmp_path.glob("*.fatbin"))) == 1
    assert len(list(tmp_path.glob("*.json"))) == 1
    assert not list(tmp_path.glob(".tmp-*"))
    # the lock makes the second process find the first one's entry instead of compiling again
    assert sum("building kernel" in err for _, err in outputs) == 1
    result = build.BuiltKernel(pathlib.Path(paths.pop()), UNITY_F16.name, "fatbin")
    _assert_valid_entry(result)


@pytest.mark.nvcc
def test_wrong_smem_formula_fails_the_build(tmp_path, monkeypatch):
    _nvcc_or_fail()
    monkeypatch.setattr(kernels, "PARAMS_RESERVE_BYTES", 64)  # smaller than sizeof(Params)
    with pytest.raises(KernelBuildError, match="Params reserve too small"):
        build_kernel(UNITY_F16, cache_dir=tmp_path, )
    assert not list(tmp_path.glob("*.fatbin"))


@pytest.mark.nvcc
def test_cutlass_include_dir_exists():
    assert (build.cutlass_include_dir() / "cutlass" / "conv" / "kernel" / "default_conv2d_dgrad.h").is_file()


def test_unwritable_cache_dir(tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a directory")
    # (chmod cannot make a directory unwritable for root, so put the cache under a regular file)
    with pytest.raises(KernelBuildError, match="not writable") as info:
        build_kernel(UNITY_F16, cache_dir=blocker / "cache")
    assert "\n" not in str(info.value)


def test_missing_nvcc(tmp_path, monkeypatch):
    monkeypatch.delenv("CUDACXX", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(build, "FALLBACK_NVCC", tmp_path / "no-such-nvcc")
    with pytest.raises(KernelBuildError) as info:
        build_kernel(UNITY_F16, cache_dir=tmp_path / "cache")
    assert str(info.value) == build.NVCC_NOT_FOUND


def test_cudacxx_pointing_at_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("CUDACXX", str(tmp_path / "nvcc"))
    with pytest.raises(KernelBuildError, match="CUDACXX=.* is not an executable file: nvcc not found"):
        build_kernel(UNITY_F16, cache_dir=tmp_path / "cache")


def test_nvcc_failure_reports_first_error_line(tmp_path, monkeypatch):
    fake = tmp_path / "nvcc"
    fake.write_text(textwrap.dedent("""\
        #!/bin/sh
        if [ "$1" = "--version" ]; then echo "fake nvcc 0.0"; exit 0; fi
        echo "warning: something harmless" >&2
        echo "kernel.cu(12): error: identifier \\"Foo\\" is undefined" >&2
        echo "kernel.cu(13): error: second error" >&2
        exit 2
    """))
    fake.chmod(0o755)
    monkeypatch.setenv("CUDACXX", str(fake))
    with pytest.raises(KernelBuildError) as info:
        build_kernel(UNITY_F16, cache_dir=tmp_path / "cache")
    assert str(info.value) == (f'nvcc failed for {UNITY_F16.name}: kernel.cu(12): error: identifier "Foo" is undefined')
    assert not list((tmp_path / "cache").glob("*.fatbin"))


def test_bad_arch():
    with pytest.raises(ValueError, match="arch must be one of"):
        build.nvcc_flags("sm_75")


def test_flags_and_default_cache_dir(monkeypatch, tmp_path):
    flags = build.nvcc_flags("sm_90a")
    assert flags[-3:] == ["-fatbin", "-gencode", "arch=compute_90a,code=[sm_90a,compute_90a]"]
    assert {"-std=c++17", "--expt-relaxed-constexpr", "-DNDEBUG", "-O3"} <= set(flags)
    monkeypatch.setenv("IREE_CUTLASS_CACHE_DIR", str(tmp_path))
    assert build.default_cache_dir() == tmp_path
    monkeypatch.delenv("IREE_CUTLASS_CACHE_DIR")
    assert build.default_cache_dir() == pathlib.Path.home() / ".cache" / "iree-cutlass"


def test_cache_key_depends_on_arch_and_source(tmp_path, monkeypatch):
    nvcc = tmp_path / "nvcc"
    nvcc.write_text("#!/bin/sh\necho fake 1.0\n")
    nvcc.chmod(0o755)
    a = build._make_job(UNITY_F16, "sm_90", tmp_path, nvcc)
    b = build._make_job(UNITY_F16, "sm_80", tmp_path, nvcc)
    c = build._make_job(STRIDED_F16, "sm_90", tmp_path, nvcc)
    assert len({a.fatbin, b.fatbin, c.fatbin}) == 3
    assert a.fatbin == build._make_job(UNITY_F16, "sm_90", tmp_path, nvcc).fatbin


@pytest.mark.nvcc
def test_epilogue_layouts_on_the_host(tmp_path):
    # sm90_staging.cu compiles the kernel's own CuTe layouts and thread-store copy for the host (no GPU):
    # - a transposed 128-channel tile with a store ring stages each warpgroup's 64 channels into one slot, and
    #   every value must land where whole-tile staging (validated on the GPU) puts it in that warpgroup's block,
    #   for 128-, 192- and 256-pixel tiles; a ping-pong transposed tile (64 channels by 128 or 256 pixels, 128 by
    #   128) stages every accumulator value at its own (channel, pixel), once;
    # - thread stores copy a staged block to the dx pixels its box rows and phase give, clipped at every edge, for
    #   the cooperative, warpgroup-store and ping-pong groupings of threads;
    # - warp stores: each thread's stmatrix rows lie in its warp's 16-row slices, the slices cover the tile once,
    #   and each slice's box reads its rows from the right (image, row, column), for four tile heights on 16 boxes.
    from iree_cutlass.plugin.sm90 import HEADER
    nvcc = _nvcc_or_fail()
    here = pathlib.Path(__file__).parent
    flags = [f for f in build.nvcc_flags("sm_90a") if not f.startswith(("-fatbin", "-gencode", "arch="))]
    binary = tmp_path / "staging"
    compiled = subprocess.run([str(nvcc), *flags, f"-I{HEADER.parent}", str(here / "sm90_staging.cu"),
                               "-o", str(binary)], capture_output=True, text=True)
    assert compiled.returncode == 0, compiled.stderr[-3000:]
    ran = subprocess.run([str(binary)], capture_output=True, text=True)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.stdout.count("values a thread agree") == 6 and ran.stdout.count("copied out where expected") == 8
    assert ran.stdout.count("warp slices agree") == 49


def test_the_package_ships_every_kernel_header_and_table(repo):
    """A non-editable install reads the headers and tables from the package: pyproject's package-data must match
    every one (the families read them at build time)."""
    import fnmatch
    import tomllib
    patterns = tomllib.loads((repo / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"][
        "iree_cutlass.plugin"]
    plugin = repo / "plugin"
    needed = [p.relative_to(plugin).as_posix() for p in [*plugin.glob("*.cuh"), *plugin.glob("tuning/*.json")]]
    assert needed and all(any(fnmatch.fnmatch(name, pattern) for pattern in patterns) for name in needed), needed
