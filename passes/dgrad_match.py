"""Recognizes convolution backward-data (dgrad) in IREE's linalg-on-tensors IR.

Frontends lower dgrad of a forward NHWC conv (x * w -> y) to a unit-stride `linalg.conv_2d_nhwc_hwcf` whose
input is dy spread out with zeros and whose filter is the forward filter reversed in space and transposed:

    w_rev  = gather w[R-1-r, S-1-s, c, k]          (linalg.generic + tensor.extract)
    w_hwkc = transpose(w_rev)                        (linalg.generic / linalg.transpose)
    dy_pad = insert_slice dy into zeros[..] strides [1, sh, sw, 1]   (stride > 1)
           | tensor.pad dy low[..] high[..] with 0                   (stride 1)
           | dy                                                      (1x1, no padding)
    dx     = conv_2d_nhwc_hwcf(dy_pad, w_hwkc) into zeros, unit strides and dilations

`match_dgrad` proves each of these facts from the IR and derives the problem (N, H, W, C, K, R, S, P, Q, padding,
stride) from the IR alone, or raises `NotDgrad` with the reason it stops.
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

CONV_OP = "linalg.conv_2d_nhwc_hwcf"
SUPPORTED_ELEMENT_TYPES = {"f16": "f16", "bf16": "bf16"}
MAX_TENSOR_BYTES = 2**31  # CUTLASS 2.x conv iterators index with 32-bit integers.


class NotDgrad(Exception):
    """The conv is not offloaded; the message says why, in one line."""


@dataclass(frozen=True)
class DimOrigin:
    """Where one dimension of a filter view comes from in the source tensor."""
    source_dim: int
    reversed: bool


@dataclass
class DgradMatch:
    conv: ir.Operation
    dy: ir.Value                    # [N, P, Q, K], before zero insertion and padding
    filter_source: ir.Value         # the forward filter, in `filter_source_shape`
    krsc_permutation: list[int]     # linalg.transpose permutation taking filter_source to [K, R, S, C]
    problem: DgradProblem
    form: str                       # "strided", "padded" or "direct": how dy reached the conv


def _trace_filter(filter_value: ir.Value) -> tuple[ir.Value, list[DimOrigin], bool]:
    """Follows permutation copies and index-reversing gathers from the conv filter up to its source.

    Returns (source, origin of each filter dim, whether a reversing gather was seen).
    """
    origins = [DimOrigin(d, False) for d in range(4)]
    saw_reverse = False
    current = filter_value
    while True:
        op = defining_op(current)
        if op is None:
            break
        step = _permutation_step(op) if op.name in ("linalg.generic", "linalg.transpose") else None
        if step is not None:
            # step[e] = input dim feeding output dim e.
            origins = [DimOrigin(step[o.source_dim], o.reversed) for o in origins]
            current = op.operands[0]
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


def _reverse_gather_step(op: ir.Operation) -> tuple[ir.Value, list[DimOrigin]] | None:
    """For `out[i] = src[...]` where each src index is i_d or (size_d - 1 - i_d) (0 for a unit dim):
    (src, for each output dim the src dim and whether it is reversed); else None."""
    if len(op.operands) != 1 or len(op.results) != 1:
        return None
    out_shape = static_shape(op.results[0])
    maps = affine_maps(op)
    if out_shape is None or len(maps) != 1 or map_as_permutation(maps[0]) != list(range(len(out_shape))):
        return None
    if any(kind != "parallel" for kind in iterator_kinds(op)):
        return None
    body = [o.operation for o in op.regions[0].blocks[0].operations]
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


def _trace_dy(conv_input: ir.Value) -> tuple[ir.Value, list[int], list[int], str]:
    """From the conv input back to dy: (dy, [stride_h, stride_w], [low_h, low_w], form)."""
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
        if offsets[0] != 0 or offsets[3] != 0 or strides[0] != 1 or strides[3] != 1 \
                or dy_shape[0] != buffer_shape[0] or dy_shape[3] != buffer_shape[3]:
            raise NotDgrad("dy insertion does not cover the batch and channel dimensions whole")
        return dy, strides[1:3], offsets[1:3], "strided" if strides[1:3] != [1, 1] else "padded"
    if op is not None and op.name == "tensor.pad":
        low, high = i64_array(op, "static_low"), i64_array(op, "static_high")
        if len(op.operands) != 1:
            raise NotDgrad("dy padding is dynamic")
        body = [o.operation for o in op.regions[0].blocks[0].operations]
        if len(body) != 1 or constant_value(body[0].operands[0]) != 0:
            raise NotDgrad("dy is padded with a value that is not a constant zero")
        if low[0] or low[3] or high[0] or high[3] or min(low + high) < 0:
            raise NotDgrad("dy padding touches the batch or channel dimensions")
        return op.operands[0], [1, 1], low[1:3], "padded"
    return conv_input, [1, 1], [0, 0], "direct"


def match_dgrad(conv: ir.Operation) -> DgradMatch:
    if conv.name != CONV_OP:
        raise NotDgrad(f"'{conv.name}' is not {CONV_OP}")
    conv_input, conv_filter = conv.operands[0], conv.operands[1]
    conv_init = conv.operands[2]
    if dense_ints(conv, "strides", [1, 1]) != [1, 1] or dense_ints(conv, "dilations", [1, 1]) != [1, 1]:
        raise NotDgrad("conv has non-unit strides or dilations (a forward or weight-gradient conv)")

    filter_source, origins, saw_reverse = _trace_filter(conv_filter)
    if not saw_reverse:
        raise NotDgrad("filter is not a spatially reversed tensor (a forward or weight-gradient conv)")
    filter_shape = static_shape(conv_filter)
    source_shape = static_shape(filter_source)
    if filter_shape is None or source_shape is None:
        raise NotDgrad("filter has a dynamic shape")
    spatial_reversed = all(o.reversed or filter_shape[d] == 1 for d, o in enumerate(origins[:2]))
    channels_plain = all(not o.reversed or filter_shape[d + 2] == 1 for d, o in enumerate(origins[2:]))
    if not (spatial_reversed and channels_plain):
        raise NotDgrad("filter is not the forward filter reversed in both spatial dimensions")

    dy, (stride_h, stride_w), (low_h, low_w), form = _trace_dy(conv_input)
    if not is_zero_fill(conv_init):
        raise NotDgrad("conv accumulates into a tensor that is not zero-filled")

    shapes = [static_shape(v) for v in (dy, conv_input, conv.results[0])]
    if any(s is None for s in shapes):
        raise NotDgrad("dynamic shapes are not offloaded")
    (n, p, q, k), (_, in_h, in_w, _), (_, h, w, c) = shapes
    r, s = filter_shape[0], filter_shape[1]
    if filter_shape[2] != k or filter_shape[3] != c:
        raise NotDgrad("filter channels do not match dy and dx")

    types = {element_type_name(v) for v in (dy, filter_source, conv.results[0])}
    if len(types) != 1:
        raise NotDgrad(f"mixed element types ({', '.join(sorted(types))})")
    element_type = types.pop()
    if element_type not in SUPPORTED_ELEMENT_TYPES:
        raise NotDgrad(f"element type {element_type} has no CUTLASS dgrad kernel here (f16 and bf16 only)")

    # The conv reads padded row (h + r') for output row h, and dy row p sits at padded row low_h + p*stride_h;
    # with r = R-1-r' that is h = p*stride_h - (R-1-low_h) + r, a forward conv with padding R-1-low_h.
    pad_h, pad_w = r - 1 - low_h, s - 1 - low_w
    if pad_h < 0 or pad_w < 0:
        raise NotDgrad("dy is padded by more than the filter size minus one (negative forward padding)")
    if h != in_h - r + 1 or w != in_w - s + 1:
        raise NotDgrad("conv output size does not follow from its input and filter")

    element_bytes = 2
    for shape in ((n, p, q, k), (n, h, w, c), (k, r, s, c), (n, in_h, in_w, k)):
        count = 1
        for extent in shape:
            count *= extent
        if count * element_bytes >= MAX_TENSOR_BYTES:
            raise NotDgrad("a tensor reaches 2^31 bytes (32-bit indexing in the kernels)")

    problem = DgradProblem(n=n, h=h, w=w, c=c, k=k, r=r, s=s, p=p, q=q, pad_h=pad_h, pad_w=pad_w,
                           stride_h=stride_h, stride_w=stride_w, dtype=SUPPORTED_ELEMENT_TYPES[element_type])
    # KRSC[k, r, s, c] = w_hwkc[R-1-r, S-1-s, k, c]; the reversal cancels the source's, leaving a permutation.
    krsc_permutation = [origins[2].source_dim, origins[0].source_dim, origins[1].source_dim, origins[3].source_dim]
    return DgradMatch(conv=conv, dy=dy, filter_source=filter_source, krsc_permutation=krsc_permutation,
                      problem=problem, form=form)
