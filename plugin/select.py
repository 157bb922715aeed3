"""Choose a kernel config for a dgrad problem: a measured tuning table first, else a heuristic.

Tuning tables live in plugin/tuning/<card>.json: {"entries": {problem.key(): {"config": {"family": ...,
config fields}, ...}}}. Only measured entries belong there. Kernels that cannot run on the compile's CUDA
target (sm90 kernels off sm_90) are never chosen.
"""
import functools
import json
import pathlib

from . import sm90, sm90_gemm
from .kernels import KernelConfig, config_from_dict, config_to_dict, family_runs_on, runs_on, supports
from .problem import DgradProblem
from .sm80 import CP_ASYNC_ALIGNMENTS, Sm80Config, alignments, launch_geometry

TUNING_DIR = pathlib.Path(__file__).parent / "tuning"
DEFAULT_CARD = "h200"


def known_cards() -> tuple[str, ...]:
    """The cards with a tuning table (plugin/tuning/<card>.json): the --iree-cutlass-card choices."""
    return tuple(sorted(path.stem for path in TUNING_DIR.glob("*.json")))

# H200 SM count: a grid smaller than one wave of 128x128 tiles leaves SMs idle, so smaller tiles win there.
_SM_COUNT = 132

# CUTLASS's own sm80 f16/bf16 tensor-op tiles with f32 accumulation (python/cutlass_library/generator.py,
# GenerateSM80_TensorOp_16816): ((tile_m, tile_n, tile_k), stages, warp counts (m, n, k)).
SM80_TILES = (
    ((256, 128, 32), 3, (4, 2, 1)),
    ((128, 256, 32), 3, (2, 4, 1)),
    ((256, 64, 32), 3, (4, 1, 1)),
    ((256, 64, 32), 4, (4, 1, 1)),
    ((64, 256, 32), 4, (1, 4, 1)),
    ((128, 128, 32), 3, (2, 2, 1)),
    ((128, 128, 32), 4, (2, 2, 1)),
    ((128, 128, 32), 5, (2, 2, 1)),
    ((128, 64, 32), 6, (2, 2, 1)),
    ((64, 128, 32), 6, (2, 2, 1)),
    ((64, 64, 32), 10, (2, 2, 1)),
    ((256, 128, 64), 3, (4, 2, 1)),
    ((128, 256, 64), 3, (2, 4, 1)),
    ((256, 64, 64), 4, (4, 1, 1)),
    ((64, 256, 64), 4, (1, 4, 1)),
    ((128, 128, 64), 4, (2, 2, 1)),
    ((256, 64, 64), 3, (4, 1, 1)),
    ((64, 256, 64), 3, (1, 4, 1)),
    ((128, 128, 64), 3, (2, 2, 1)),
    ((128, 64, 64), 3, (2, 2, 1)),
    ((64, 128, 64), 3, (2, 2, 1)),
    ((64, 64, 64), 5, (2, 2, 1)),
)

# 16-bit problems with an odd K or C at unit stride: cp.async cannot move one 2-byte element, so they run on the
# 2-stage mainloop that loads through registers. CUTLASS's own 2-stage tiles (GenerateSM75_TensorOp_1688,
# alignments 8/4/2/1), here with sm80's mma.sync 16x8x16 (which bf16 needs).
SM80_TWO_STAGE_TILES = (
    ((256, 128, 32), 2, (4, 2, 1)),
    ((128, 256, 32), 2, (2, 4, 1)),
    ((128, 128, 32), 2, (2, 2, 1)),
    ((64, 256, 32), 2, (1, 4, 1)),
    ((256, 64, 32), 2, (4, 1, 1)),
    ((64, 128, 32), 2, (2, 2, 1)),
    ((128, 64, 32), 2, (2, 2, 1)),
    ((64, 64, 32), 2, (2, 2, 1)),
    ((64, 128, 64), 2, (1, 2, 2)),
)

# f32 problems: CUTLASS's 3xTF32 tiles (GenerateSM80_TensorOp_1688_fast_fp32_math, mma.sync 16x8x8,
# alignments 4/2/1: cp.async moves 16, 8 or 4 bytes).
F32_TILES = (
    ((128, 128, 16), 4, (4, 2, 1)),
    ((128, 128, 16), 3, (4, 2, 1)),
    ((256, 64, 16), 3, (4, 2, 1)),
    ((64, 256, 16), 3, (2, 4, 1)),
    ((128, 64, 16), 4, (2, 2, 1)),
    ((64, 128, 16), 4, (2, 2, 1)),
    ((64, 64, 16), 3, (2, 2, 1)),
    ((128, 128, 32), 3, (4, 2, 1)),
    ((256, 64, 32), 3, (4, 2, 1)),
    ((64, 256, 32), 3, (2, 4, 1)),
    ((128, 64, 32), 3, (2, 2, 1)),
    ((64, 128, 32), 3, (2, 2, 1)),
    ((64, 64, 32), 3, (2, 2, 1)),
)


class NoKernel(Exception):
    """No kernel computes this problem; the message is the one-line reason."""


def needs_register_loads(problem: DgradProblem) -> bool:
    """Whether K or C is too narrow for cp.async (odd channel counts of 16-bit types): such problems run on
    the 2-stage mainloop."""
    narrowest = CP_ASYNC_ALIGNMENTS[problem.dtype][-1]
    return problem.k % narrowest != 0 or problem.c % narrowest != 0


def _widest_alignment(dtype: str, stages: int, extent: int) -> int:
    # Never empty: _config puts odd 16-bit channels on 2 stages, whose list (like f32's) ends in 1.
    return next(a for a in alignments(dtype, stages) if extent % a == 0)


def _config(problem: DgradProblem, stride_support: str, tile, stages: int, warps) -> Sm80Config:
    """A config for `problem` with the widest alignments its K and C allow; a problem cp.async cannot load gets
    the same tile on the 2-stage mainloop, at unit stride (sm80.py says why not strided)."""
    if needs_register_loads(problem):
        if problem.strided:
            odd = f"C={problem.c}" if problem.c % 2 else f"K={problem.k}"
            raise NoKernel(f"{odd} is odd at stride {problem.stride_h}x{problem.stride_w}: cp.async needs even "
                           f"16-bit channels and CUTLASS's 2-stage strided dgrad cannot load single elements")
        stages = 2
    align_k = _widest_alignment(problem.dtype, stages, problem.k)
    align_c = _widest_alignment(problem.dtype, stages, problem.c)
    tm, tn, tk = tile
    wm, wn, wk = warps
    return Sm80Config(
        dtype=problem.dtype, stride_support=stride_support,
        tile_m=tm, tile_n=tn, tile_k=tk, warp_m=tm // wm, warp_n=tn // wn, warp_k=tk // wk,
        stages=stages, align_a=align_k, align_b=align_c, align_c=align_c,
    )


def _stride_support(problem: DgradProblem) -> str:
    return "strided" if problem.strided else "unity"


def sm80_tiles(problem: DgradProblem) -> tuple:
    """The CUTLASS generator tiles for `problem`'s element type and alignments."""
    if problem.dtype == "f32":
        return F32_TILES
    return SM80_TWO_STAGE_TILES if needs_register_loads(problem) else SM80_TILES


def sm80_candidates(problem: DgradProblem) -> list[Sm80Config]:
    """Every CUTLASS sm80 generator tile that computes `problem`."""
    stride_support = _stride_support(problem)
    try:
        configs = [_config(problem, stride_support, tile, stages, warps) for tile, stages, warps in sm80_tiles(problem)]
    except NoKernel:
        return []
    return [config for config in configs if supports(config, problem) is None]


def candidate_configs(problem: DgradProblem, arch: str = "sm_90", split_k: bool = False) -> list[KernelConfig]:
    """The space a tuner measures: the sm80 tiles, and on sm_90 the Hopper kernels too (f16 and bf16 only; on
    plain-GEMM problems CUTLASS's own GEMM kernels as well); `split_k` adds the sm90 split-K kernels (see
    sm90.candidate_configs)."""
    configs: list[KernelConfig] = list(sm80_candidates(problem))
    if problem.dtype in sm90.DTYPES and family_runs_on(sm90.FAMILY, arch):
        configs += sm90.candidate_configs(problem, split_k=split_k)
    if family_runs_on(sm90_gemm.FAMILY, arch):
        configs += sm90_gemm.candidate_configs(problem)
    return configs


def _tiles(problem: DgradProblem, stride_support: str, tile_m: int, tile_n: int) -> int:
    probe = _config(problem, stride_support, (tile_m, tile_n, 32), 3, (2, 2, 1))
    grid = launch_geometry(probe, problem).grid
    return grid[0] * grid[1]


ALL_FAMILIES = ("sm80", "sm90", "sm90_gemm")


def sm90_heuristic_config(problem: DgradProblem) -> sm90.Sm90Config:
    """A Hopper tile with no measurement at hand: the 256-pixel halo tile where it fits the problem well
    (_halo_heuristic), else an N tile fitted to C (a 64-channel layer wastes half of a 128-wide tile), the deepest
    pipeline that fits, one CTA per SM."""
    if problem.dtype not in sm90.DTYPES:
        raise NoKernel(f"the sm90 kernels take {' and '.join(sm90.DTYPES)}, not {problem.dtype}")
    halo = _halo_heuristic(problem)
    if halo is not None:
        return halo
    tile_n = 64 if problem.c <= 64 else 128 if problem.c <= 128 else 256
    return sm90.Sm90Config(problem.dtype, 128, tile_n, sm90.max_stages(128, tile_n, 1, problem.dtype), 1)


def _halo_heuristic(problem: DgradProblem) -> sm90.Sm90Config | None:
    """The 256-pixel ping-pong halo tile (sm90 `halo_blocks`) for a unit-stride filter of several taps on C <= 64,
    where two halo stages fit beside the filter and its box computes at most an eighth of junk columns (W >= 7/8 of
    the box width), else None. On ResNet-50's 3x3 64<-64 layer the cooperative halo tile ran 0.87x the best
    streaming kernel on the H200 (0.75x on an H100) at batch 8 and 256, and the ping-pong one 0.85x the cooperative
    one at batch 256, about the same at batch 8 (bench/NOTES.md, session 25): the streaming kernels load a dy box
    per tap and are load-bound there."""
    config = sm90.halo_config(problem, 256, "pingpong")
    if config is None or supports(config, problem) is not None:
        return None
    return config if 8 * problem.w >= 7 * sm90.choose_box(config, problem).w else None


def heuristic_config(problem: DgradProblem, arch: str = "sm_90", families=ALL_FAMILIES) -> KernelConfig:
    """A default kernel with no GPU at hand. On sm_90 the sm90 kernel where it supports the problem (f16/bf16,
    channels of 8): it was the fastest on 76 of the 88 ResNet-50 problems on the H200
    (bench/results/h200_2026-12-02_tune_sm90.json). Otherwise the sm80 tiles fitted to the H200 measurements of
    shared/reference (cutlass2x.jsonl, ResNet-50 layers at batch 8 and 256). sm80: 128x128 once it fills a wave
    of SMs, 128x256 for strided problems with C >= 256 and two waves of it, else 64x128 (64x64 when C <= 64); odd
    channels of 16-bit types take the same tile with 2 stages (unit stride only). f32 (3xTF32, unmeasured):
    CUTLASS's 16-deep fast-f32 tiles of the same shapes."""
    sm80_allowed = "sm80" in families
    if families == ("sm90_gemm",):
        # CUTLASS's GEMM kernels alone (--iree-cutlass-kernels=sm90_gemm): ping-pong 128x128, the tile that won
        # most of the layers where they beat ours (bench/NOTES.md, session 20), on plain-GEMM problems only.
        if not family_runs_on(sm90_gemm.FAMILY, arch):
            raise NoKernel(f"the sm90_gemm kernels run on sm_90 only, not {arch}")
        if problem.dtype not in sm90_gemm.DTYPES:
            raise NoKernel(f"the sm90_gemm kernels take {' and '.join(sm90_gemm.DTYPES)}, not {problem.dtype}")
        # (a problem that is not a plain GEMM is refused by select_kernel, with supports()'s reason)
        return sm90_gemm.Sm90GemmConfig(problem.dtype, 128, 128, "pingpong", *sm90_gemm.gemm_extents(problem))
    if "sm90" in families and family_runs_on("sm90", arch) and (problem.dtype in sm90.DTYPES or not sm80_allowed):
        config = sm90_heuristic_config(problem)  # NoKernel for other element types
        if supports(config, problem) is None or not sm80_allowed:
            return config  # (an unsupported one is refused by select_kernel, with the reason)
    if not sm80_allowed:
        raise NoKernel(f"no kernel family of {', '.join(families)} runs on {arch}")
    stride_support = _stride_support(problem)
    if problem.dtype == "f32":
        if _tiles(problem, stride_support, 128, 128) >= _SM_COUNT:
            return _config(problem, stride_support, (128, 128, 16), 4, (4, 2, 1))
        if problem.c <= 64:
            return _config(problem, stride_support, (64, 64, 16), 3, (2, 2, 1))
        return _config(problem, stride_support, (64, 128, 16), 4, (2, 2, 1))
    if stride_support == "strided" and problem.c >= 256 and _tiles(problem, stride_support, 128, 256) >= 2 * _SM_COUNT:
        return _config(problem, stride_support, (128, 256, 32), 3, (2, 4, 1))
    if _tiles(problem, stride_support, 128, 128) >= _SM_COUNT:
        return _config(problem, stride_support, (128, 128, 32), 3, (2, 2, 1))
    if problem.c <= 64:
        return _config(problem, stride_support, (64, 64, 32), 6, (2, 2, 1))
    return _config(problem, stride_support, (64, 128, 32), 6, (2, 2, 1))


@functools.lru_cache(maxsize=None)
def _load_table(path: pathlib.Path) -> dict:
    try:
        table = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise ValueError(f"tuning table {path} is unreadable: {error}") from None
    entries = table.get("entries") if isinstance(table, dict) else None
    if not isinstance(entries, dict):
        raise ValueError(f"tuning table {path} has no 'entries' object")
    return entries


def tuned_config(problem: DgradProblem, card: str = DEFAULT_CARD, arch: str = "sm_90",
                 families=ALL_FAMILIES) -> KernelConfig | None:
    """The measured best config for `problem` from plugin/tuning/<card>.json that runs on `arch` and is of one
    of `families`, or None."""
    path = TUNING_DIR / f"{card}.json"
    if not path.is_file():
        return None
    entry = _load_table(path).get(problem.key())
    if entry is None:
        return None
    try:
        config = config_from_dict(entry["config"])
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"tuning table {path}: bad entry for {problem.key()}: {error}") from None
    if not runs_on(config, arch) or config.family not in families:
        return None
    reason = supports(config, problem)
    if reason is not None:
        raise ValueError(f"tuning table {path}: entry for {problem.key()} does not fit the problem: {reason}")
    return config


def select_kernel(problem: DgradProblem, card: str = DEFAULT_CARD, arch: str = "sm_90",
                  families=ALL_FAMILIES) -> KernelConfig:
    """The config to build for `problem`: the tuning table's entry if any, else the heuristic's; only kernels
    of `families` (the --iree-cutlass-kernels choice)."""
    config = tuned_config(problem, card, arch, families)
    if config is None:
        config = heuristic_config(problem, arch, families)
    reason = supports(config, problem)
    if reason is not None:
        raise NoKernel(reason)
    return config


__all__ = ["ALL_FAMILIES", "DEFAULT_CARD", "NoKernel", "candidate_configs", "config_to_dict", "heuristic_config",
           "known_cards", "select_kernel", "tuned_config"]
