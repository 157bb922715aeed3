"""The pass: every dgrad it can prove and a kernel can compute becomes one CUTLASS extern dispatch.

It runs on a module at IREE's `input` phase (linalg on tensors, before any fusion or outlining), finds every
convolution, keeps each that is not a provable dgrad or that no kernel supports exactly as it was, and returns a
report that names each conv and what happened to it.
"""

from __future__ import annotations

import pathlib
from dataclasses import dataclass
from typing import Callable

from iree.compiler import ir

from iree_cutlass.plugin.build import build_kernels
from iree_cutlass.plugin.kernels import supports
from iree_cutlass.plugin.select import ALL_FAMILIES, DEFAULT_CARD, NoKernel, select_kernel

from .dgrad_match import DgradMatch, NotDgrad, conv_layout, match_dgrad
from .dgrad_rewrite import dgrad_function_text, insert_function, replace_with_call
from .ir_utils import location_prefix
from .report import ConvRecord, Report

FUNCTION_PREFIX = "iree_cutlass_dgrad"


@dataclass(frozen=True)
class OffloadOptions:
    arch: str = "sm_90"                       # the GPU the CUTLASS kernels are built for
    families: tuple[str, ...] = ALL_FAMILIES  # kernel families the selection may use (--iree-cutlass-kernels)
    card: str = DEFAULT_CARD                  # whose tuning table picks the kernels (--iree-cutlass-card)
    cache_dir: pathlib.Path | None = None     # kernel cache; None means the default
    progress: Callable[[str], None] | None = None


def _is_conv(op: ir.Operation) -> bool:
    name = op.name
    return name.startswith("linalg.conv_") or name.startswith("linalg.depthwise_conv_") or \
        (name == "linalg.generic" and conv_layout(op) is not None)


def _collect_convs(op: ir.Operation, found: list[ir.Operation]) -> list[ir.Operation]:
    for region in op.regions:
        for block in region.blocks:
            for nested in block.operations:
                nested = nested.operation
                if _is_conv(nested):
                    found.append(nested)
                _collect_convs(nested, found)
    return found


def _unused_symbol(module: ir.Operation, base: str, taken: set[str]) -> str:
    existing = {ir.StringAttr(op.operation.attributes["sym_name"]).value
                for op in module.regions[0].blocks[0].operations if "sym_name" in op.operation.attributes}
    index = 0
    while f"{base}_{index}" in existing or f"{base}_{index}" in taken:
        index += 1
    return f"{base}_{index}"


def offload_dgrads(module: ir.Operation, options: OffloadOptions = OffloadOptions()) -> Report:
    """Rewrites `module` (a builtin.module operation at the input phase) in place."""
    report = Report(arch=options.arch, card=options.card)
    accepted: list[tuple[ConvRecord, DgradMatch, object]] = []
    for conv in _collect_convs(module, []):
        record = ConvRecord(location=location_prefix(conv), op=conv.name)
        report.records.append(record)
        try:
            match = match_dgrad(conv)
        except NotDgrad as reason:
            record.reason = str(reason)
            continue
        record.problem, record.form = match.problem, match.form
        try:
            config = select_kernel(match.problem, card=options.card, arch=options.arch, families=options.families)
        except NoKernel as reason:
            record.reason = str(reason)
            continue
        refusal = supports(config, match.problem)
        if refusal is not None:
            record.reason = refusal
            continue
        accepted.append((record, match, config))

    configs = list(dict.fromkeys(config for _, _, config in accepted))
    built = dict(zip(configs, build_kernels(configs, arch=options.arch, cache_dir=options.cache_dir,
                                            progress=options.progress)))

    # One function per distinct (problem, filter layout, kernel): repeated layers share it.
    functions: dict[tuple, str] = {}
    for record, match, config in accepted:
        key = (match.problem, str(match.filter_source.type), tuple(match.krsc_permutation),
               tuple(match.dy_permutation), tuple(match.dx_permutation), config)
        if key not in functions:
            name = _unused_symbol(module, FUNCTION_PREFIX, set(functions.values()))
            insert_function(module, dgrad_function_text(name, match, config, built[config]))
            functions[key] = name
        replace_with_call(match, functions[key])
        record.kernel, record.config, record.kernel_path = config.name, config, str(built[config].path)
        record.function = functions[key]
    return report
