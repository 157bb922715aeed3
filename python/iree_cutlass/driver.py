"""Drives one IREE compile with the dgrad pass in the middle, through IREE's embedding API.

The IREE 3.13 wheel loads no C++ plugins, so the pass lives in Python: one invocation takes the source to the
`input` phase (linalg on tensors), the pass rewrites the exported module, and a second invocation in the same
session continues from `input` to the phase the user asked for.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import pathlib
import re
import sys
from dataclasses import dataclass
from typing import Callable

from iree.compiler.api import Output, Session, Source
from iree.compiler.api import ctypes_dl

from iree_cutlass.passes.offload_dgrad import OffloadOptions, offload_dgrads
from iree_cutlass.passes.report import Report
from iree_cutlass.plugin.build import KernelBuildError
from iree_cutlass.plugin.kernels import family_runs_on
from iree_cutlass.plugin.select import ALL_FAMILIES, DEFAULT_CARD, known_cards

PHASES = ["start", "input", "abi", "preprocessing", "global-optimization", "dispatch-creation", "flow",
          "stream", "executable-sources", "executable-configurations", "executable-targets", "hal", "vm", "end"]
PASS_PHASE = "input"

# CUDA targets IREE 3.13 can generate its own code for; newer ones produce targets without GPU info.
IREE_KNOWN_CUDA_TARGETS = {"sm_60", "sm_61", "sm_70", "sm_72", "sm_75", "sm_80", "sm_86", "sm_87", "sm_89",
                           "sm_120", "sm_121"}
# Where IREE knows no target for the GPU, its own dispatches are built for this one (PTX, JIT-compiled by the
# driver on newer GPUs), while the CUTLASS kernels are built for the GPU itself.
IREE_FALLBACK_CUDA_TARGET = "sm_89"
MIN_CUTLASS_ARCH = 80


class CompileError(Exception):
    """A compile that cannot go on; the message is one line for the user."""


def parse_kernel_families(value: str) -> tuple[str, ...]:
    """The --iree-cutlass-kernels value: `auto` (every family, chosen per problem by tuning data) or a comma
    list of families (sm80, sm90, sm90_gemm) to restrict the choice to."""
    if value == "auto":
        return ALL_FAMILIES
    families = tuple(dict.fromkeys(v.strip() for v in value.split(",")))
    unknown = [f for f in families if f not in ALL_FAMILIES]
    if unknown or not families:
        raise CompileError(f"--iree-cutlass-kernels={value}: expected auto or a comma list of "
                           f"{', '.join(ALL_FAMILIES)}")
    return families


def parse_card(value: str) -> str:
    """The --iree-cutlass-card value: a card with a tuning table (plugin/tuning/<card>.json), e.g. h100 or h200.
    The kernels run on any sm_90 GPU; the card only decides whose measurements choose them."""
    cards = known_cards()
    card = value.strip().lower()
    if card not in cards:
        raise CompileError(f"--iree-cutlass-card={value}: expected one of {', '.join(cards)} "
                           "(the cards with a tuning table)")
    return card


@dataclass
class CompileResult:
    output: bytes                 # vmfb bytes, or MLIR text when compiling to an earlier phase
    is_vmfb: bool
    report: Report | None         # None when the plugin was off or could not run


@dataclass(frozen=True)
class TargetFlags:
    iree_flags: list[str]         # flags as IREE should see them
    kernel_arch: str | None       # the GPU the CUTLASS kernels are built for
    cuda_device: bool             # whether the HAL target device is CUDA


def split_target_flags(flags: list[str]) -> TargetFlags:
    """Finds the CUDA target and, for a GPU IREE has no codegen target for, swaps in the fallback."""
    iree_flags, kernel_arch, cuda_device = [], None, False
    for flag in flags:
        if re.fullmatch(r"--iree-hal-target-(device|backends)=cuda(\[\d+\])?(,.*)?", flag) or \
                re.fullmatch(r"--iree-hal-target-device=.*\bcuda\b.*", flag):
            cuda_device = True
        target = re.fullmatch(r"--iree-cuda-target=(.+)", flag)
        if target:
            kernel_arch = target.group(1)
            if kernel_arch.startswith("sm_") and kernel_arch not in IREE_KNOWN_CUDA_TARGETS:
                flag = f"--iree-cuda-target={IREE_FALLBACK_CUDA_TARGET}"
        iree_flags.append(flag)
    return TargetFlags(iree_flags, kernel_arch, cuda_device)


def _arch_number(arch: str) -> int | None:
    digits = re.fullmatch(r"sm_(\d+)a?", arch)
    return int(digits.group(1)) if digits else None


def _set_phase(setter_name: str, invocation, phase: str) -> None:
    setter = getattr(ctypes_dl._dylib, setter_name)
    setter.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    setter.restype = None
    setter(invocation._inv_p, phase.encode())


def _check_phase(name: str, phase: str) -> None:
    if phase not in PHASES:
        raise CompileError(f"unknown {name} phase '{phase}' (expected one of: {', '.join(PHASES)})")


def _output(invocation, to_vmfb: bool) -> bytes:
    output = Output.open_membuffer()
    if to_vmfb:
        invocation.output_vm_bytecode(output)
    else:
        invocation.output_ir(output)
    return bytes(output.map_memory())


def _set_flags(session: Session, flags: list[str]) -> None:
    """Session-scoped flags go to the session; iree-compile's process-wide ones (for example
    --iree-hal-indirect-command-buffers, --iree-hal-memoization) to LLVM's global options, as iree-compile does."""
    try:
        session.set_flags(*flags)
        return
    except ValueError:
        pass
    # IREE says only "Error parsing flags" (LLVM has printed its reason, if any, to stderr); try the flags one
    # at a time in a scratch session, with stderr muted to avoid repeats, to find the ones it does not scope.
    with _stderr_muted():
        refused = [f for f in flags if not _flag_accepted(f)]
    unknown = [f for f in refused if _flag_name(f) not in _global_option_names()]
    if unknown:
        raise CompileError(f"unknown or invalid compiler flag '{unknown[0]}'")
    _set_global_flags(refused)
    try:
        session.set_flags(*[f for f in flags if f not in refused])
    except ValueError:
        raise CompileError("invalid compiler flags: " + " ".join(flags)) from None


def _flag_accepted(flag: str) -> bool:
    try:
        Session().set_flags(flag)
        return True
    except ValueError:
        return False


def _flag_name(flag: str) -> str:
    return flag.lstrip("-").split("=", 1)[0]


_GLOBAL_OPTION_NAMES: set[str] | None = None


def _global_option_names() -> set[str]:
    """Every option iree-compile registers, hidden ones included (read once from `iree-compile --help-hidden`)."""
    global _GLOBAL_OPTION_NAMES
    if _GLOBAL_OPTION_NAMES is None:
        import subprocess
        from iree.compiler.tools.binaries import find_tool
        listing = subprocess.run([find_tool("iree-compile"), "--help-hidden"], capture_output=True, text=True)
        _GLOBAL_OPTION_NAMES = set(re.findall(r"^\s+--([A-Za-z0-9][\w.-]*)", listing.stdout, re.MULTILINE))
    return _GLOBAL_OPTION_NAMES


_GLOBAL_FLAGS_SET: tuple[str, ...] | None = None


def _set_global_flags(flags: list[str]) -> None:
    """LLVM's global options can be parsed once per process (iree-compile does it at start-up); a later
    compile in the same process may repeat the same ones, not change them."""
    global _GLOBAL_FLAGS_SET
    wanted = tuple(flags)
    if _GLOBAL_FLAGS_SET is not None:
        if wanted != _GLOBAL_FLAGS_SET:
            raise CompileError("process-wide compiler flags were already set in this process to "
                               f"'{' '.join(_GLOBAL_FLAGS_SET) or 'none'}'; cannot change them to '{' '.join(wanted)}'")
        return
    problem = _global_flags_problem(flags)
    if problem:
        raise CompileError(f"invalid compiler flag: {problem}")
    ctypes_dl._initializeGlobalCL("iree-cutlass-compile", *flags)
    _GLOBAL_FLAGS_SET = wanted


def _global_flags_problem(flags: list[str]) -> str | None:
    """LLVM's parser exits the process on a bad global flag value, so parse them first in a forked child;
    its first line of complaint, if any, is the problem."""
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:  # the child: parse, and report through the pipe (stderr)
        try:
            os.close(read_end)
            os.dup2(write_end, 2)
            ctypes_dl._initializeGlobalCL("iree-cutlass-compile", *flags)
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end) as complaint:
        text = complaint.read()
    _, status = os.waitpid(child, 0)
    if os.waitstatus_to_exitcode(status) == 0:
        return None
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    first = lines[0] if lines else " ".join(flags)
    return first.removeprefix("iree-cutlass-compile: ")


@contextlib.contextmanager
def _stderr_muted():
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def compile_source(source: bytes, source_name: str, flags: list[str], *, plugin: bool = True,
                   compile_to: str = "end", compile_from: str | None = None,
                   cache_dir: pathlib.Path | None = None,
                   kernel_families: tuple[str, ...] = ALL_FAMILIES, card: str = DEFAULT_CARD,
                   remark: Callable[[str], None] | None = None,
                   progress: Callable[[str], None] | None = None) -> CompileResult:
    """Compiles MLIR (text or bytecode) with the given iree-compile flags; the plugin on or off."""
    _check_phase("--compile-to", compile_to)
    if compile_from is not None:
        _check_phase("--compile-from", compile_from)
    remark = remark or (lambda line: print(line, file=sys.stderr))
    target = split_target_flags(flags)

    run_pass = plugin and PHASES.index(compile_to) >= PHASES.index(PASS_PHASE) and \
        (compile_from is None or PHASES.index(compile_from) <= PHASES.index(PASS_PHASE))
    if plugin and not run_pass:
        remark(f"warning: [iree-cutlass] the dgrad pass runs at the '{PASS_PHASE}' phase; "
               "these --compile-from/--compile-to phases skip it")
    if run_pass and not target.cuda_device:
        remark("warning: [iree-cutlass] no CUDA target device (--iree-hal-target-device=cuda): nothing offloaded")
        run_pass = False
    if run_pass:
        arch_number = _arch_number(target.kernel_arch or "")
        if arch_number is None or arch_number < MIN_CUTLASS_ARCH:
            raise CompileError("--iree-plugin=cutlass needs --iree-cuda-target=sm_80 or newer "
                               f"(got {target.kernel_arch or 'none'})")
        # Families that all need a Hopper target (sm90, sm90_gemm) on another one: a user error, not a fallback.
        if not any(family_runs_on(f, target.kernel_arch) for f in kernel_families):
            raise CompileError(f"--iree-cutlass-kernels={','.join(kernel_families)} needs --iree-cuda-target=sm_90 "
                               f"(got {target.kernel_arch})")

    session = Session()
    _set_flags(session, target.iree_flags if plugin else flags)

    first = session.invocation()
    first.enable_console_diagnostics()
    if not first.parse_source(Source.wrap_buffer(session, source, buffer_name=source_name)):
        raise CompileError(f"failed to parse {source_name}")
    if not run_pass:
        if compile_from is not None:
            _set_phase("ireeCompilerInvocationSetCompileFromPhase", first, compile_from)
        _set_phase("ireeCompilerInvocationSetCompileToPhase", first, compile_to)
        if not first.execute():
            raise CompileError(f"failed to compile {source_name}")
        return CompileResult(_output(first, compile_to == "end"), compile_to == "end", None)

    if compile_from != PASS_PHASE:
        if compile_from is not None:
            _set_phase("ireeCompilerInvocationSetCompileFromPhase", first, compile_from)
        _set_phase("ireeCompilerInvocationSetCompileToPhase", first, PASS_PHASE)
        if not first.execute():
            raise CompileError(f"failed to compile {source_name} to the '{PASS_PHASE}' phase")
    module_op = first.export_module()

    try:
        report = offload_dgrads(module_op, OffloadOptions(arch=target.kernel_arch, cache_dir=cache_dir,
                                                       families=kernel_families, card=card,
                                                       progress=progress))
    except KernelBuildError as error:
        raise CompileError(str(error)) from None
    for record in report.records:
        remark(record.remark())
    if not module_op.verify():
        raise CompileError("internal error: the rewritten module does not verify")

    second = session.invocation()
    second.enable_console_diagnostics()
    second.import_module(module_op)
    if compile_to == PASS_PHASE:
        # Nothing left to run (IREE refuses an empty phase range): the rewritten module is the output.
        return CompileResult(_output(second, False), False, report)
    _set_phase("ireeCompilerInvocationSetCompileFromPhase", second, PASS_PHASE)
    _set_phase("ireeCompilerInvocationSetCompileToPhase", second, compile_to)
    if not second.execute():
        raise CompileError(f"failed to compile {source_name} after the dgrad pass")
    return CompileResult(_output(second, compile_to == "end"), compile_to == "end", report)
