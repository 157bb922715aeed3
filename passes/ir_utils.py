"""Small read-only helpers over the MLIR Python bindings that the matcher needs."""

from __future__ import annotations

from iree.compiler import ir


def defining_op(value: ir.Value) -> ir.Operation | None:
    """The operation that produces `value`, or None for a block argument."""
    if isinstance(value, ir.OpResult):
        return value.owner.operation
    return None


def static_shape(value: ir.Value) -> list[int] | None:
    """The shape of a ranked tensor with only static dimensions, else None."""
    tensor_type = value.type
    if not isinstance(tensor_type, ir.RankedTensorType):
        return None
    if not tensor_type.has_static_shape:
        return None
    return list(tensor_type.shape)


def element_type_name(value: ir.Value) -> str:
    return str(ir.ShapedType(value.type).element_type)


def i64_array(op: ir.Operation, name: str) -> list[int]:
    return list(ir.DenseI64ArrayAttr(op.attributes[name]))


def dense_ints(op: ir.Operation, name: str, default: list[int]) -> list[int]:
    """An integer elements attribute such as a conv's `strides`; absent means the default."""
    if name not in op.attributes:
        return default
    return [int(v) for v in ir.DenseIntElementsAttr(op.attributes[name])]


def constant_value(value: ir.Value):
    """The Python value of an `arith.constant` scalar, or None when `value` is not one."""
    op = defining_op(value)
    if op is None or op.name != "arith.constant":
        return None
    attr = op.attributes["value"]
    if isinstance(attr, (ir.FloatAttr, ir.IntegerAttr)):
        return attr.value
    return None


def is_zero_fill(value: ir.Value) -> bool:
    """True when `value` is `linalg.fill` of a constant +-0 into a `tensor.empty`."""
    op = defining_op(value)
    if op is None or op.name != "linalg.fill":
        return False
    fill_value = constant_value(op.operands[0])
    destination = defining_op(op.operands[1])
    return fill_value == 0 and destination is not None and destination.name == "tensor.empty"


def affine_maps(op: ir.Operation) -> list[ir.AffineMap]:
    return [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]


def iterator_kinds(op: ir.Operation) -> list[str]:
    # Printed as `#linalg.iterator_type<parallel>`.
    return [str(a).split("<")[-1].rstrip(">") for a in ir.ArrayAttr(op.attributes["iterator_types"])]


def map_as_permutation(amap: ir.AffineMap) -> list[int] | None:
    """For a map whose results are distinct plain dims, the dim position of each result."""
    if amap.n_symbols != 0 or len(amap.results) != amap.n_dims:
        return None
    positions = []
    for expr in amap.results:
        if not isinstance(expr, ir.AffineDimExpr):
            return None
        positions.append(expr.position)
    if sorted(positions) != list(range(amap.n_dims)):
        return None
    return positions


def location_prefix(op: ir.Operation) -> str:
    """`file:line:col` of an operation, as compilers print it before a diagnostic."""
    text = str(op.location)
    # loc("file.mlir":12:5) or loc(callsite(...)) / fused locations: take the first file position.
    start = text.find('"')
    if start < 0:
        return "<unknown>"
    end = text.find('"', start + 1)
    rest = text[end + 1:]
    parts = rest.split(":")
    line = parts[1] if len(parts) > 1 else "0"
    col = "".join(ch for ch in (parts[2] if len(parts) > 2 else "0") if ch.isdigit()) or "0"
    return f"{text[start + 1:end]}:{line}:{col}"
