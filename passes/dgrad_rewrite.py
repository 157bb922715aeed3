"""Replaces a matched dgrad with a call to a private `util.func` that wraps one `hal.dispatch.extern`.

The function takes dy and the forward filter as the frontend had them, relayouts the filter to the kernel's
order (KRSC for sm80 kernels, RSCK for sm90 ones: a plain permutation IREE compiles into its own small dispatch,
or nothing when the frontend's filter is already in that order), transposes dy to the kernels' NPQK and their
NHWC dx back to the frontend's layout where those differ (NCHW frontends), and dispatches the CUTLASS kernel.
Kernels that need scratch memory get it as a second result of the dispatch, which nothing reads. IREE inlines the
call before it forms dispatches, exactly as for its own transform-spec kernel substitution.
"""

from __future__ import annotations

from iree.compiler import ir

from iree_cutlass.plugin.build import BuiltKernel
from iree_cutlass.plugin.kernels import KernelConfig, launch

from .dgrad_match import IDENTITY, DgradMatch

# Where each dimension of a filter layout sits in KRSC.
_FROM_KRSC = {"krsc": [0, 1, 2, 3], "rsck": [1, 2, 3, 0]}

# The extern's objects are keyed by this target; IREE's CUDA backend embeds them as they are.
CUDA_OBJECT_TARGET = '#hal.executable.target<"cuda", "cuda-nvptx-fb">'


def _tensor_type(shape: list[int], element_type: str) -> str:
    return "tensor<" + "x".join(str(d) for d in shape) + f"x{element_type}>"


def filter_permutation(match: DgradMatch, layout: str) -> list[int]:
    """The linalg.transpose permutation taking the frontend's filter to `layout` ("krsc" or "rsck")."""
    return [match.krsc_permutation[d] for d in _FROM_KRSC[layout]]


def _transpose_lines(name: str, source: str, source_type: str, result_type: str, permutation: list[int]) -> list[str]:
    return [
        f"  %{name}_init = tensor.empty() : {result_type}",
        f"  %{name} = linalg.transpose ins({source} : {source_type}) outs(%{name}_init : {result_type}) "
        f"permutation = [{', '.join(str(d) for d in permutation)}]",
    ]


def dgrad_function_text(name: str, match: DgradMatch, config: KernelConfig, kernel: BuiltKernel) -> str:
    """The MLIR of `util.func private @name(dy, filter) -> dx` for one matched problem."""
    problem = match.problem
    element_type = str(ir.ShapedType(match.dy.type).element_type)
    dy_type = str(match.dy.type)
    filter_type = str(match.filter_source.type)
    dx_type = str(match.result.type)
    # The kernel reads dy as NPQK and writes dx as NHWC; transposes only where the frontend's layouts differ.
    dy_transposed, dx_transposed = match.dy_permutation != IDENTITY, match.dx_permutation != IDENTITY
    kernel_dy = "%dy_npqk" if dy_transposed else "%dy"
    kernel_dy_type = _tensor_type([problem.n, problem.p, problem.q, problem.k], element_type) if dy_transposed \
        else dy_type
    kernel_dx = "%dx_nhwc" if dx_transposed else "%dx"
    kernel_dx_type = _tensor_type([problem.n, problem.h, problem.w, problem.c], element_type) if dx_transposed \
        else dx_type
    geometry = launch(config, problem)
    constants = geometry.constants
    layout = geometry.filter_layout
    extents = {"k": problem.k, "r": problem.r, "s": problem.s, "c": problem.c}
    kernel_filter_type = _tensor_type([extents[d] for d in layout], element_type)
    permutation = filter_permutation(match, layout)

    lines = [f"util.func private @{name}(%dy: {dy_type}, %filter: {filter_type}) -> {dx_type} {{"]
    if dy_transposed:
        lines += _transpose_lines("dy_npqk", "%dy", dy_type, kernel_dy_type, match.dy_permutation)
    kernel_filter = "%filter"
    if permutation != [0, 1, 2, 3]:
        kernel_filter = f"%filter_{layout}"
        lines += [
            f"  %{layout}_init = tensor.empty() : {kernel_filter_type}",
            f"  {kernel_filter} = linalg.transpose ins(%filter : {filter_type}) outs(%{layout}_init : "
            f"{kernel_filter_type}) permutation = [{', '.join(str(d) for d in permutation)}]",
        ]
    for index, value in enumerate(constants):
        # Push constants are 32-bit; print them as signed i32 so MLIR accepts every bit pattern.
        signed = value - (1 << 32) if value >= (1 << 31) else value
        lines.append(f"  %c{index} = arith.constant {signed} : i32")
    operand_names = ", ".join(f"%c{i}" for i in range(len(constants)))
    operand_types = ", ".join("i32" for _ in constants)
    grid = geometry.grid
    block = geometry.block
    results, result_types = kernel_dx, kernel_dx_type
    bindings = ["ReadOnly", "ReadOnly", None]
    if geometry.workspace_bytes:
        results = f"{kernel_dx}, %workspace"
        result_types = f"({kernel_dx_type}, tensor<{geometry.workspace_bytes}xi8>)"
        bindings.append(None)
    lines += [
        f'  {results} = hal.dispatch.extern "{kernel.entry}"({operand_names}, {kernel_dy}, {kernel_filter})'
        f" : ({operand_types}, {kernel_dy_type}, {kernel_filter_type}) -> {result_types}",
        "    count(%device: !hal.device) -> (index, index, index) {",
        f"      %gx = arith.constant {grid[0]} : index",
        f"      %gy = arith.constant {grid[1]} : index",
        f"      %gz = arith.constant {grid[2]} : index",
        "      hal.return %gx, %gy, %gz : index, index, index",
        "    }",
        f"    layout(#hal.pipeline.layout<constants = {len(constants)}, bindings = [",
        ",\n".join("      #hal.pipeline.binding<storage_buffer" + (f", {flag}>" if flag else ">") for flag in bindings),
        "    ]>)",
        "    objects({",
        f'      {CUDA_OBJECT_TARGET} ordinal(0) = [#hal.executable.object<{{path = "{kernel.path}"}}>]',
        "    })",
        f"    <{{workgroup_size = [{block[0]} : index, {block[1]} : index, {block[2]} : index],"
        f" workgroup_local_memory = {geometry.smem_bytes} : index}}>",
    ]
    if dx_transposed:
        lines += _transpose_lines("dx", kernel_dx, kernel_dx_type, dx_type, match.dx_permutation)
    lines += [f"  util.return %dx : {dx_type}", "}"]
    return "\n".join(lines)


def insert_function(module: ir.Operation, function_text: str) -> None:
    """Parses one function in the module's context and appends it to the module body."""
    parsed = ir.Module.parse(function_text, module.context)
    module.regions[0].blocks[0].append(parsed.body.operations[0].operation)


def replace_with_call(match: DgradMatch, function_name: str) -> None:
    """Swaps the conv (and the ops absorbed after it) for `util.call @function_name(dy, filter)` and erases
    producers left without users."""
    last = match.replaced[-1]
    with ir.InsertionPoint(last), match.conv.location:
        call = ir.Operation.create(
            "util.call",
            results=[match.result.type],
            operands=[match.dy, match.filter_source],
            attributes={"callee": ir.FlatSymbolRefAttr.get(function_name)},
        )
    producers = []
    for op in match.replaced:
        producers += [p for p in _producers(op) if p not in producers and p not in match.replaced]
    match.result.replace_all_uses_with(call.results[0])
    for op in reversed(match.replaced):  # users first
        op.erase()
    _erase_dead(producers)


# Ops that only compute values: erasing one that has no users cannot change the program.
_PURE_OPS = {"arith.constant", "tensor.empty", "linalg.fill", "linalg.generic", "linalg.transpose",
             "tensor.insert_slice", "tensor.pad", "tensor.collapse_shape", "tensor.expand_shape"}


def _producers(op: ir.Operation) -> list[ir.Operation]:
    """Ops outside `op` that define values `op` or anything nested in it reads."""
    found = []

    def visit(inner: ir.Operation):
        for operand in inner.operands:
            if isinstance(operand, ir.OpResult):
                producer = operand.owner.operation
                if producer.parent != op and producer not in found and not _is_nested_in(producer, op):
                    found.append(producer)
        for region in inner.regions:
            for block in region.blocks:
                for nested in block.operations:
                    visit(nested.operation)

    visit(op)
    return found


def _is_nested_in(inner: ir.Operation, outer: ir.Operation) -> bool:
    parent = inner.parent
    while parent is not None:
        if parent == outer:
            return True
        parent = parent.parent
    return False


def _erase_dead(candidates: list[ir.Operation]) -> None:
    """Erases pure ops left without users, then the producers they kept alive."""
    pending = list(candidates)
    while pending:
        op = pending.pop(0)
        if op.name not in _PURE_OPS or not all(_has_no_uses(result) for result in op.results):
            continue
        upstream = _producers(op)
        op.erase()
        pending.extend(p for p in upstream if p not in pending)


def _has_no_uses(value: ir.Value) -> bool:
    return next(iter(value.uses), None) is None
