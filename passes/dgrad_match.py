"""Recognizes convolution backward-data (dgrad) in IREE's linalg-on-tensors IR.

JAX lowers dgrad of a forward NHWC conv (x * w -> y) to a unit-stride `linalg.conv_2d_nhwc_hwcf` whose input is
dy spread out with zeros and whose filter is the forward filter reversed in space and transposed:

    w_rev  = gather w[R-1-r, S-1-s, c, k]          (linalg.generic + tensor.extract)
    w_hwkc = transpose(w_rev)                        (linalg.generic / linalg.transpose)
    dy_pad = insert_slice dy into zeros[..] strides [1, sh, sw, 1]   (stride > 1)
           | tensor.pad dy low[..] high[..] with 0                   (stride 1)
           | dy                                                      (1x1, no padding)
    dx     = conv_2d_nhwc_hwcf(dy_pad, w_hwkc) into zeros, unit strides and dilations

Other frontends, as IREE 3.13 takes them to the `input` phase (test/lit/nchw_*.mlir and torch_*.mlir hold the IR):
- StableHLO with NCHW/OIHW dimension numbers (jax.vjp of an NCHW conv; lax.conv_transpose NCHW with
  transpose_kernel=True): IREE's input conversion makes every conv channels-last, so it is the form above with a
  permutation copy (linalg.generic, map (d0, d3, d1, d2)) taking dy NCHW -> NHWC before the zero insertion and a
  sole-use copy (d0, d2, d3, d1) taking dx back to NCHW; the gather reverses dims 2, 3 of the OIHW filter, then a
  copy (d2, d3, d0, d1) makes it HWIO. IREE writes a transpose that moves only unit dims as tensor.collapse_shape
  to 1-D + tensor.expand_shape: so goes the 1x1 filter to 1x1xIxO, and for H = W = 1 dy and dx too. NHWC data
  with OIHW weights: the NHWC form with the OIHW gather and copy.
- torch transposed conv (aten.convolution with transposed=true, as conv_transpose2d lowers): a
  `linalg.conv_2d_nchw_fchw` on dy inserted into zeros with strides [1, 1, sh, sw] (unit strides at stride 1, dy
  itself for 1x1 without padding); one gather both swaps the channels and reverses space,
  out[c, k, r, s] = w[k, c, R-1-r, S-1-s]; f16/bf16 accumulate into an f32 zero fill and a sole-use elementwise
  arith.truncf takes dx back to the input type.
- torch aten.convolution_backward (input gradient): a `linalg.generic` conv, maps (d0, d4, d2 + d5, d3 + d6),
  (d4, d1, d5, d6) -> (d0, d1, d2, d3) (NCHW, the filter read [in, out, r, s]), on dy zero-inserted or
  tensor.pad-ded; the reversing gather also lists the filter as an unused input, and there is none for 1x1. f32
  accumulation and truncf as above.
- lax.conv_transpose with transpose_kernel=False (Flax's ConvTranspose default) reverses no filter: not a dgrad.

`match_dgrad` proves each of these facts from the IR and derives the problem (N, H, W, C, K, R, S, P, Q, padding,
stride) from the IR alone, with the permutations between the frontend's dy, filter and dx and the kernels' NPQK,
KRSC and NHWC, or raises `NotDgrad` with the reason it stops.
"""

from __future__ import annotations

from dataclasses import dataclass

from iree.compiler import ir

from iree_cutlass.plugin.problem import DgradProblem

from .ir_utils import (
    affine_maps,
    constant_value,
    defining_op,
    dense_ints,
    element_type_name,
    i64_array,
    is_zero_fill,
    iterator_kinds,
    map_as_permutation,
    static_shape,
)

SUPPORTED_ELEMENT_TYPES = {"f16": "f16", "bf16": "bf16", "f32": "f32"}
ELEMENT_BYTES = {"f16": 2, "bf16": 2, "f32": 4}
MAX_TENSOR_BYTES = 2**31  # CUTLASS 2.x conv iterators index with 32-bit integers.
IDENTITY = [0, 1, 2, 3]


class NotDgrad(Exception):
    """The conv is not offloaded; the message says why, in one line."""


@dataclass(frozen=True)
class ConvLayout:
    """Where each role sits in a conv's operands, as dim indices: the input's (n, h, w, c), the filter's
    (r, s, c_in, c_out) and the output's (n, h, w, c)."""
    input_dims: tuple[int, int, int, int]
    filter_dims: tuple[int, int, int, int]
    output_dims: tuple[int, int, int, int]


NHWC_HWCF = ConvLayout((0, 1, 2, 3), (0, 1, 2, 3), (0, 1, 2, 3))
NCHW_FCHW = ConvLayout((0, 2, 3, 1), (2, 3, 1, 0), (0, 2, 3, 1))
NCHW_CFHW = ConvLayout((0, 2, 3, 1), (2, 3, 0, 1), (0, 2, 3, 1))  # filter read [in, out, r, s]

NAMED_CONVS = {"linalg.conv_2d_nhwc_hwcf": NHWC_HWCF, "linalg.conv_2d_nchw_fchw": NCHW_FCHW}
# linalg.generic convs, by their indexing maps (unit strides and dilations): torch-mlir's convolution_backward.
GENERIC_CONVS = {
    ("(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)",
     "(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, d5, d6)",
     "(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)"): NCHW_CFHW,
}
_PERMUTATION_OPS = ("linalg.generic", "linalg.transpose")
_RESHAPE_OPS = ("tensor.collapse_shape", "tensor.expand_shape")


@dataclass(frozen=True)
class DimOrigin:
    """Where one dimension of a filter view comes from in the source tensor."""
    source_dim: int
    reversed: bool


@dataclass
class DgradMatch:
    conv: ir.Operation
    dy: ir.Value                    # the frontend's dy, before relayouts, zero insertion and padding
    filter_source: ir.Value         # the forward filter, in `filter_source_shape`
    krsc_permutation: list[int]     # linalg.transpose permutation taking filter_source to [K, R, S, C]
    problem: DgradProblem
    form: str                       # "strided", "padded" or "direct": how dy reached the conv
    result: ir.Value                # what dx replaces: the conv's result, or the last sole-use op absorbed after it
    replaced: list[ir.Operation]    # the conv and the ops absorbed after it, in program order
    dy_permutation: list[int]       # linalg.transpose permutation taking dy to [N, P, Q, K]
    dx_permutation: list[int]       # linalg.transpose permutation taking the kernel's [N, H, W, C] to `result`


def conv_layout(op: ir.Operation) -> ConvLayout | None:
    """The layout of a conv the matcher knows (named, or a generic with known maps); None for any other op."""
    if op.name in NAMED_CONVS:
        return NAMED_CONVS[op.name]
    if op.name != "linalg.generic" or len(op.operands) != 3 or len(op.results) != 1:
        return None
    if iterator_kinds(op) != ["parallel"] * 4 + ["reduction"] * 3:
        return None
    return GENERIC_CONVS.get(tuple(str(m) for m in affine_maps(op)))


def _is_multiply_accumulate(op: ir.Operation) -> bool:
    """The body is yield(acc + x * w), x and w each the block argument or its arith.extf."""
    block = op.regions[0].blocks[0]
    x, w, acc = list(block.arguments)
    body = [o.operation for o in block.operations]
    add = defining_op(body[-1].operands[0]) if body[-1].name == "linalg.yield" else None
    if add is None or add.name != "arith.addf":
        return False
    terms = list(add.operands)
    if acc not in terms:
        return False
    mul = defining_op(terms[1] if terms[0] == acc else terms[0])
    if mul is None or mul.name != "arith.mulf":
        return False

    def source(value: ir.Value) -> ir.Value | None:  # the block argument read, directly or through arith.extf
        op = defining_op(value)
        if op is None:
            return value
        return op.operands[0] if op.name == "arith.extf" else None
    sources = [source(v) for v in mul.operands]
    if any(v is None for v in sources) or not (sources == [x, w] or sources == [w, x]):
        return False
    extends = sum(defining_op(v) is not None for v in mul.operands)
    return len(body) == 3 + extends  # nothing else in the body


def _trace_filter(filter_value: ir.Value) -> tuple[ir.Value, list[DimOrigin], bool]:
    """Follows permutation copies, unit-dim reshapes and index-reversing gathers from the conv filter up to its
    source.

    Returns (source, origin of each filter dim, whether a reversing gather was seen).
    """
    origins = [DimOrigin(d, False) for d in range(4)]
    saw_reverse = False
    current = filter_value
    while True:
        op = defining_op(current)
        if op is None:
            break
        relayout = _relayout_step(op)
        if relayout is not None:
            # step[e] = input dim feeding output dim e.
            current, step = relayout
            origins = [DimOrigin(step[o.source_dim], o.reversed) for o in origins]
            continue
        gather = _reverse_gather_step(op) if op.name == "linalg.generic" else None
        if gather is not None:
            source, per_out_dim = gather
            origins = [DimOrigin(per_out_dim[o.source_dim].source_dim,
                                 o.reversed != per_out_dim[o.source_dim].reversed) for o in origins]
            current = source
            saw_reverse = True
            continue
        break
    return current, origins, saw_reverse


def _permutation_step(op: ir.Operation) -> list[int] | None:
    """For a pure permutation copy, the input dim feeding each output dim; else None."""
    if op.name == "linalg.transpose":
        return list(ir.DenseI64ArrayAttr(op.attributes["permutation"]))
    if len(op.operands) != 2 or len(op.results) != 1:
        return None
    maps = affine_maps(op)
    if len(maps) != 2 or any(kind != "parallel" for kind in iterator_kinds(op)):
        return None
    in_perm, out_perm = map_as_permutation(maps[0]), map_as_permutation(maps[1])
    if in_perm is None or out_perm != list(range(len(out_perm))):
        return None
    body = [o.operation for o in op.regions[0].blocks[0].operations]
    block_args = list(op.regions[0].blocks[0].arguments)
    if len(body) != 1 or body[0].name != "linalg.yield" or body[0].operands[0] != block_args[0]:
        return None
    # Input dim j is indexed by loop dim in_perm[j]; the output is indexed by the loops in order.
    feeding = [0] * len(in_perm)
    for in_dim, loop_dim in enumerate(in_perm):
        feeding[loop_dim] = in_dim
    return feeding


def _relayout_step(op: ir.Operation) -> tuple[ir.Value, list[int]] | None:
    """For a pure permutation copy, or the last of a chain of collapse/expand_shape that only moves unit dims:
    (the source, the source dim feeding each output dim); else None. IREE writes a transpose that moves only unit
    dims as such a reshape chain."""
    if op.name in _PERMUTATION_OPS:
        step = _permutation_step(op)
        return None if step is None else (op.operands[0], step)
    if op.name in _RESHAPE_OPS:
        source = op.operands[0]
        while defining_op(source) is not None and defining_op(source).name in _RESHAPE_OPS:
            source = defining_op(source).operands[0]
        step = _unit_reshape_step(static_shape(source), static_shape(op.results[0]))
        return None if step is None else (source, step)
    return None


def _unit_reshape_step(source_shape: list[int] | None, out_shape: list[int] | None) -> list[int] | None:
    """For a reshape between equal-rank static shapes whose non-unit extents are the same in the same order
    (row-major order is then unchanged: only unit dims move), the source dim feeding each output dim; else None."""
    if out_shape is None or source_shape is None or len(out_shape) != len(source_shape):
        return None
    big_out = [d for d, e in enumerate(out_shape) if e != 1]
    big_source = [d for d, e in enumerate(source_shape) if e != 1]
    if [out_shape[d] for d in big_out] != [source_shape[d] for d in big_source]:
        return None
    unit_out = [d for d, e in enumerate(out_shape) if e == 1]
    unit_source = [d for d, e in enumerate(source_shape) if e == 1]
    feeding = [0] * len(out_shape)
    for out_dim, source_dim in zip(big_out + unit_out, big_source + unit_source):
        feeding[out_dim] = source_dim
    return feeding


def _reverse_gather_step(op: ir.Operation) -> tuple[ir.Value, list[DimOrigin]] | None:
    """For `out[i] = src[...]` where each src index is i_d or (size_d - 1 - i_d) (0 for a unit dim), with every
    operand of the generic unread by its body: (src, for each output dim the src dim and whether it is reversed);
    else None."""
    if len(op.results) != 1:
        return None
    out_shape = static_shape(op.results[0])
    maps = affine_maps(op)
    if out_shape is None or len(maps) != len(op.operands) \
            or any(map_as_permutation(m) != list(range(len(out_shape))) for m in maps):
        return None
    if any(kind != "parallel" for kind in iterator_kinds(op)):
        return None
    block = op.regions[0].blocks[0]
    if any(next(iter(arg.uses), None) is not None for arg in block.arguments):
        return None  # the body reads an operand: not a pure gather
    body = [o.operation for o in block.operations]
    yield_op = body[-1]
    extract = defining_op(yield_op.operands[0]) if yield_op.name == "linalg.yield" else None
    if extract is None or extract.name != "tensor.extract":
        return None
    source = extract.operands[0]
    source_shape = static_shape(source)
    if source_shape is None or len(source_shape) != len(out_shape):
        return None
    if defining_op(source) is not None and defining_op(source).parent == op:
        return None  # the gathered tensor must come from outside the body
    per_out_dim: dict[int, DimOrigin] = {}
    unit_source_dims = []
    for source_dim, index in enumerate(extract.operands[1:]):
        index_op = defining_op(index)
        if index_op is None:
            return None
        if index_op.name == "linalg.index":
            out_dim, reversed_ = ir.IntegerAttr(index_op.attributes["dim"]).value, False
        elif index_op.name == "arith.subi" and defining_op(index_op.operands[1]) is not None \
                and defining_op(index_op.operands[1]).name == "linalg.index":
            out_dim = ir.IntegerAttr(defining_op(index_op.operands[1]).attributes["dim"]).value
            if constant_value(index_op.operands[0]) != out_shape[out_dim] - 1:
                return None
            reversed_ = True
        elif constant_value(index) == 0 and source_shape[source_dim] == 1:
            unit_source_dims.append(source_dim)
            continue
        else:
            return None
        if out_dim in per_out_dim or source_shape[source_dim] != out_shape[out_dim]:
            return None
        per_out_dim[out_dim] = DimOrigin(source_dim, reversed_)
    # Constant-0 indices read unit dims; pair them with the unused unit output dims in order.
    free_unit_out_dims = [d for d in range(len(out_shape)) if d not in per_out_dim and out_shape[d] == 1]
    if len(free_unit_out_dims) != len(unit_source_dims) or len(per_out_dim) + len(unit_source_dims) != len(out_shape):
        return None
    for out_dim, source_dim in zip(free_unit_out_dims, unit_source_dims):
        per_out_dim[out_dim] = DimOrigin(source_dim, True)
    return source, [per_out_dim[d] for d in range(len(out_shape))]


def _trace_dy(conv_input: ir.Value, dims: tuple[int, int, int, int]) -> tuple[ir.Value, list[int], list[int], str]:
    """From the conv input (roles n, h, w, c at `dims`) back to dy: (dy, [stride_h, stride_w], [low_h, low_w], form)."""
    n_dim, h_dim, w_dim, c_dim = dims
    op = defining_op(conv_input)
    if op is not None and op.name == "tensor.insert_slice":
        if len(op.operands) != 2:
            raise NotDgrad("dy is inserted at dynamic offsets, sizes or strides")
        dy, buffer = op.operands[0], op.operands[1]
        if not is_zero_fill(buffer):
            raise NotDgrad("dy is inserted into a tensor that is not zero-filled")
        offsets, sizes, strides = (i64_array(op, n) for n in ("static_offsets", "static_sizes", "static_strides"))
        dy_shape, buffer_shape = static_shape(dy), static_shape(buffer)
        if dy_shape is None or buffer_shape is None or sizes != dy_shape:
            raise NotDgrad("dy insertion is rank-reducing or dynamic")
        if any(offsets[d] != 0 or strides[d] != 1 or dy_shape[d] != buffer_shape[d] for d in (n_dim, c_dim)):
            raise NotDgrad("dy insertion does not cover the batch and channel dimensions whole")
        stride = [strides[h_dim], strides[w_dim]]
        return dy, stride, [offsets[h_dim], offsets[w_dim]], "strided" if stride != [1, 1] else "padded"
    if op is not None and op.name == "tensor.pad":
        low, high = i64_array(op, "static_low"), i64_array(op, "static_high")
        if len(op.operands) != 1:
            raise NotDgrad("dy padding is dynamic")
        body = [o.operation for o in op.regions[0].blocks[0].operations]
        if len(body) != 1 or constant_value(body[0].operands[0]) != 0:
            raise NotDgrad("dy is padded with a value that is not a constant zero")
        if low[n_dim] or low[c_dim] or high[n_dim] or high[c_dim] or min(low + high) < 0:
            raise NotDgrad("dy padding touches the batch or channel dimensions")
        return op.operands[0], [1, 1], [low[h_dim], low[w_dim]], "padded"
    return conv_input, [1, 1], [0, 0], "direct"


def _trace_relayouts_back(value: ir.Value, dims: tuple[int, ...]) -> tuple[ir.Value, tuple[int, ...]]:
    """Up through permutation copies and unit-dim reshapes from `value`, whose roles sit at `dims`:
    (source, the roles' dims there)."""
    while True:
        op = defining_op(value)
        relayout = _relayout_step(op) if op is not None else None
        if relayout is None:
            return value, dims
        value, step = relayout
        dims = tuple(step[d] for d in dims)


def _sole_user(value: ir.Value) -> ir.Operation | None:
    """The one op using `value`, when that is its only use and as operand 0 (a copy's or reshape's source)."""
    uses = list(value.uses)
    if len(uses) != 1 or uses[0].operand_number != 0:
        return None
    return uses[0].owner.operation


def _relayout_forward(value: ir.Value) -> tuple[list[ir.Operation], list[int]] | None:
    """The sole-use permutation copy, or chain of sole-use reshapes back to the same rank that only moves unit
    dims, relayouting `value`: (its ops, the dim of `value` feeding each dim of the last op's result)."""
    user = _sole_user(value)
    if user is None:
        return None
    if user.name in _PERMUTATION_OPS:
        step = _permutation_step(user)
        return None if step is None else ([user], step)
    ops = []
    while user is not None and user.name in _RESHAPE_OPS:
        ops.append(user)
        shape = static_shape(user.results[0])
        if shape is not None and len(shape) == len(static_shape(value) or []):
            step = _unit_reshape_step(static_shape(value), shape)
            return None if step is None else (ops, step)
        user = _sole_user(user.results[0])
    return None


def _is_truncation(op: ir.Operation, to_type: str) -> bool:
    """An elementwise linalg.generic `out = arith.truncf(in)` whose result has element type `to_type`."""
    if op.name != "linalg.generic" or len(op.operands) != 2 or len(op.results) != 1:
        return False
    maps = affine_maps(op)
    rank = len(iterator_kinds(op))
    if any(map_as_permutation(m) != list(range(rank)) for m in maps) or \
            any(kind != "parallel" for kind in iterator_kinds(op)):
        return False
    block = op.regions[0].blocks[0]
    body = [o.operation for o in block.operations]
    return len(body) == 2 and body[0].name == "arith.truncf" and body[0].operands[0] == block.arguments[0] \
        and body[1].operands[0] == body[0].results[0] and element_type_name(op.results[0]) == to_type


def _trace_result(conv: ir.Operation, dims: tuple[int, ...], truncate_to: str | None):
    """Down from the conv result through sole-use relayouts and, when `truncate_to` is set, one sole-use
    truncation: (last value, [conv, absorbed ops...], the roles' dims in the last value, whether it truncated)."""
    value, ops, truncated = conv.results[0], [conv], False
    while True:
        user = _sole_user(value)
        relayout = _relayout_forward(value)
        if relayout is not None:
            new_ops, step = relayout
            dims = tuple(step.index(d) for d in dims)
        elif user is not None and truncate_to is not None and not truncated and _is_truncation(user, truncate_to):
            new_ops, truncated = [user], True
        else:
            return value, ops, dims, truncated
        ops += new_ops
        value = new_ops[-1].results[0]


def match_dgrad(conv: ir.Operation) -> DgradMatch:
    layout = conv_layout(conv)
    if layout is None:
        raise NotDgrad(f"'{conv.name}' is not {' or '.join(NAMED_CONVS)} or a known linalg.generic conv")
    if conv.name == "linalg.generic":
        if not _is_multiply_accumulate(conv):
            raise NotDgrad("generic conv body is not a multiply-accumulate")
    elif dense_ints(conv, "strides", [1, 1]) != [1, 1] or dense_ints(conv, "dilations", [1, 1]) != [1, 1]:
        raise NotDgrad("conv has non-unit strides or dilations (a forward or weight-gradient conv)")
    conv_input, conv_filter = conv.operands[0], conv.operands[1]
    conv_init = conv.operands[2]
    r_dim, s_dim, k_dim, c_dim = layout.filter_dims  # the conv's input channels are dy's K, its outputs dx's C

    filter_source, origins, saw_reverse = _trace_filter(conv_filter)
    filter_shape = static_shape(conv_filter)
    source_shape = static_shape(filter_source)
    # torch's convolution_backward lowering flips no 1x1 filter: reversing unit dims is the identity.
    unit_reverse_elided = layout is NCHW_CFHW and filter_shape is not None \
        and filter_shape[r_dim] == filter_shape[s_dim] == 1
    if not saw_reverse and not unit_reverse_elided:
        raise NotDgrad("filter is not a spatially reversed tensor (a forward or weight-gradient conv)")
    if filter_shape is None or source_shape is None:
        raise NotDgrad("filter has a dynamic shape")
    spatial_reversed = all(origins[d].reversed or filter_shape[d] == 1 for d in (r_dim, s_dim))
    channels_plain = all(not origins[d].reversed or filter_shape[d] == 1 for d in (k_dim, c_dim))
    if not (spatial_reversed and channels_plain):
        raise NotDgrad("filter is not the forward filter reversed in both spatial dimensions")

    dy_conv_layout, (stride_h, stride_w), (low_h, low_w), form = _trace_dy(conv_input, layout.input_dims)
    dy, dy_dims = _trace_relayouts_back(dy_conv_layout, layout.input_dims)
    if not is_zero_fill(conv_init):
        raise NotDgrad("conv accumulates into a tensor that is not zero-filled")

    # f16/bf16 convs may accumulate in f32 and truncate back, as the kernels do; anything else must not widen.
    in_type, acc_type = element_type_name(conv_input), element_type_name(conv.results[0])
    if acc_type not in (in_type, "f32"):
        raise NotDgrad(f"conv accumulates {in_type} in {acc_type} (the kernels accumulate in f32)")
    widened = acc_type != in_type
    result, replaced, dx_dims, truncated = _trace_result(conv, layout.output_dims, in_type if widened else None)
    if widened and not truncated:
        raise NotDgrad(f"conv accumulates {in_type} in {acc_type} and its result is not only truncated back")

    shapes = [static_shape(v) for v in (dy, conv_input, conv.results[0])]
    if any(s is None for s in shapes):
        raise NotDgrad("dynamic shapes are not offloaded")
    dy_shape, input_shape, output_shape = shapes
    n, p, q, k = (dy_shape[d] for d in dy_dims)
    in_h, in_w = (input_shape[d] for d in layout.input_dims[1:3])
    h, w, c = (output_shape[d] for d in layout.output_dims[1:])
    r, s = filter_shape[r_dim], filter_shape[s_dim]
    if filter_shape[k_dim] != k or filter_shape[c_dim] != c:
        raise NotDgrad("filter channels do not match dy and dx")
    if input_shape[layout.input_dims[0]] != n or input_shape[layout.input_dims[3]] != k \
            or output_shape[layout.output_dims[0]] != n:
        raise NotDgrad("conv batch or channel extents do not match dy and dx")

    types = {element_type_name(v) for v in (dy, filter_source, result)}
    if len(types) != 1:
        raise NotDgrad(f"mixed element types ({', '.join(sorted(types))})")
    element_type = types.pop()
    if element_type not in SUPPORTED_ELEMENT_TYPES:
        raise NotDgrad(f"element type {element_type} has no CUTLASS dgrad kernel here (f16, bf16 and f32 only)")

    # The conv reads padded row (h + r') for output row h, and dy row p sits at padded row low_h + p*stride_h;
    # with r = R-1-r' that is h = p*stride_h - (R-1-low_h) + r, a forward conv with padding R-1-low_h.
    pad_h, pad_w = r - 1 - low_h, s - 1 - low_w
    if pad_h < 0 or pad_w < 0:
        raise NotDgrad("dy is padded by more than the filter size minus one (negative forward padding)")
    if h != in_h - r + 1 or w != in_w - s + 1:
        raise NotDgrad("conv output size does not follow from its input and filter")

    element_bytes = ELEMENT_BYTES[element_type]
    for shape in ((n, p, q, k), (n, h, w, c), (k, r, s, c), (n, in_h, in_w, k)):
        count = 1
        for extent in shape:
            count *= extent
        if count * element_bytes >= MAX_TENSOR_BYTES:
            raise NotDgrad("a tensor reaches 2^31 bytes (32-bit indexing in the kernels)")

    problem = DgradProblem(n=n, h=h, w=w, c=c, k=k, r=r, s=s, p=p, q=q, pad_h=pad_h, pad_w=pad_w,
                           stride_h=stride_h, stride_w=stride_w, dtype=SUPPORTED_ELEMENT_TYPES[element_type])
    # KRSC[k, r, s, c] = filter[.., R-1-r, S-1-s, ..]; the reversal cancels the source's, leaving a permutation.
    krsc_permutation = [origins[d].source_dim for d in (k_dim, r_dim, s_dim, c_dim)]
    # dy's roles (n, p, q, k) sit at dy_dims; dx's roles (n, h, w, c) at dx_dims of the result.
    dx_permutation = [0] * 4
    for role, dim in enumerate(dx_dims):
        dx_permutation[dim] = role
    return DgradMatch(conv=conv, dy=dy, filter_source=filter_source, krsc_permutation=krsc_permutation,
                      problem=problem, form=form, result=result, replaced=replaced,
                      dy_permutation=list(dy_dims), dx_permutation=dx_permutation)
