"""The kernel library's families behind one interface: what the pass, the builder and the tuner call.

    sm80  CUTLASS 2.x implicit-GEMM dgrad (cp.async or register-staged loads + mma.sync), any GPU from sm_80
          on; f16, bf16 and f32 (3xTF32); filter in KRSC.
    sm90  Hopper TMA + wgmma dgrad per output phase (sm_90a only); f16 and bf16; filter in RSCK; a descriptor
          workspace.
    sm90_gemm  CUTLASS's own Hopper GEMM kernels for plain-GEMM problems (1x1, unit stride, no padding; sm_90a
          only), one kernel per problem shape (its Params are built at kernel build time); filter in RSCK; a
          Params workspace.

Every kernel takes, in IREE's extern-dispatch ABI, its bindings (dy, filter, dx[, workspace]) and then its
32-bit push constants; `launch` says all the pass needs to emit the dispatch.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Union

from . import sm80, sm90, sm90_gemm
from .problem import DgradProblem
from .sm80 import Sm80Config
from .sm90 import Sm90Config
from .sm90_gemm import Sm90GemmConfig

KernelConfig = Union[Sm80Config, Sm90Config, Sm90GemmConfig]
FAMILIES = {sm80.FAMILY: sm80, sm90.FAMILY: sm90, sm90_gemm.FAMILY: sm90_gemm}
_CONFIG_TYPES = {sm80.FAMILY: Sm80Config, sm90.FAMILY: Sm90Config, sm90_gemm.FAMILY: Sm90GemmConfig}


@dataclass(frozen=True)
class Launch:
    """How to dispatch one config on one problem."""
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    smem_bytes: int
    constants: list[int]          # uint32 push constants in kernel-parameter order
    workspace_bytes: int          # 0: no workspace binding
    filter_layout: str            # "krsc" or "rsck": the filter binding's dimension order


def family(config: KernelConfig):
    return FAMILIES[config.family]


def supports(config: KernelConfig, problem: DgradProblem) -> str | None:
    """None if `config` computes `problem` correctly, else a one-line reason."""
    return family(config).supports(config, problem)


def launch(config: KernelConfig, problem: DgradProblem) -> Launch:
    module = family(config)
    geometry = module.launch_geometry(config, problem)
    return Launch(grid=tuple(geometry.grid), block=tuple(geometry.block), smem_bytes=geometry.smem_bytes,
                  constants=module.push_constants(config, problem),
                  workspace_bytes=module.workspace_bytes(config, problem), filter_layout=module.FILTER_LAYOUT)


def generate_source(config: KernelConfig) -> str:
    return family(config).generate_source(config)


def nvcc_arch(config: KernelConfig, target_arch: str) -> str:
    """The arch a config is built for: the compile's CUDA target, unless the family needs a specific one."""
    return family(config).NVCC_ARCH or target_arch


def family_runs_on(family_name: str, target_arch: str) -> bool:
    """Whether kernels of a family can run on the compile's CUDA target (sm90: only sm_90 itself)."""
    targets = FAMILIES[family_name].TARGET_ARCHS
    return targets is None or target_arch in targets


def runs_on(config: KernelConfig, target_arch: str) -> bool:
    return family_runs_on(config.family, target_arch)


def config_to_dict(config: KernelConfig) -> dict:
    """The JSON form of a config (tuning tables, plans): its fields and its family."""
    return {"family": config.family, **dataclasses.asdict(config)}


def config_from_dict(fields: dict) -> KernelConfig:
    """Inverse of config_to_dict; entries without a family are sm80 (tables written before sm90 existed)."""
    fields = dict(fields)
    name = fields.pop("family", sm80.FAMILY)
    if name not in _CONFIG_TYPES:
        raise ValueError(f"unknown kernel family {name!r}")
    return _CONFIG_TYPES[name](**fields)


def kernel_code(entry: str) -> str:
    """The kernel code an entry point names, for checks on other problems to vouch for: the entry itself, but for
    sm90_gemm kernels (built per problem) without the problem's extents, and for sm90 halo kernels without the
    capacities (slab blocks, stage rows) that follow the problem's filter and width."""
    return sm90.kernel_code(sm90_gemm.kernel_code(entry))


def launch_record(config: KernelConfig, problem: DgradProblem) -> dict:
    """The JSON a GPU-side launcher needs to run `config` on `problem` outside IREE (tuning, checks)."""
    geometry = launch(config, problem)
    return {"config": config_to_dict(config), "entry": config.name, "grid": list(geometry.grid),
            "block": list(geometry.block), "smem_bytes": geometry.smem_bytes, "constants": geometry.constants,
            "workspace_bytes": geometry.workspace_bytes, "filter_layout": geometry.filter_layout}
