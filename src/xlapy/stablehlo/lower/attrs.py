"""Reading op attributes of the AST into the Python values the builder takes.

The parser keeps attributes as MLIR wrote them (``array<i64: 1, 2>`` as a
tuple, ``dense<[[0, 1]]>`` as a literal, ``#stablehlo<precision HIGH>`` as an
EnumAttr...), and the same attribute can be spelled several ways (a padding as
``dense<...>`` or as nested lists; an enum as an EnumAttr or a bare word in
the pretty form). These helpers accept every spelling, so that the lowerings
read each attribute in one line and a malformed one is reported with the op.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

from .. import ast
from .errors import invalid

_MISSING = object()


def attr(op: ast.Operation, name: str, default: Any = _MISSING) -> Any:
    if name in op.attributes:
        return op.attributes[name]
    if default is _MISSING:
        raise invalid(op, f"the attribute {name} is required")
    return default


def _flat(value: Any) -> list[Any] | None:
    if isinstance(value, ast.DenseElements):
        return np.asarray(value.literal.to_numpy()).reshape(-1).tolist()
    if isinstance(value, np.ndarray):
        return value.reshape(-1).tolist()
    if isinstance(value, (list, tuple)):
        out: list[Any] = []
        for v in value:
            inner = _flat(v) if isinstance(v, (list, tuple, np.ndarray)) else None
            out.extend(inner if inner is not None else [v])
        return out
    return None


def ints(op: ast.Operation, name: str, default: Any = _MISSING) -> tuple[int, ...]:
    """An integer list attribute (array<i64>, dense<...>, [...] or a lone integer)."""
    value = attr(op, name, default)
    if value is None:
        return None  # type: ignore[return-value]
    if isinstance(value, (bool, int, np.integer)):
        return (int(value),)
    flat = _flat(value)
    if flat is None:
        raise invalid(op, f"the attribute {name} must be a list of integers, got {value!r}")
    try:
        return tuple(int(v) for v in flat)
    except (TypeError, ValueError):
        raise invalid(
            op, f"the attribute {name} must be a list of integers, got {value!r}"
        ) from None


def bools(op: ast.Operation, name: str, default: Any = _MISSING) -> tuple[bool, ...] | None:
    value = attr(op, name, default)
    if value is None:
        return None
    flat = _flat(value)
    if flat is None:
        raise invalid(op, f"the attribute {name} must be a list of booleans, got {value!r}")
    return tuple(_as_bool(v) for v in flat)


def _as_bool(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() == "true"
    return bool(value)


def int_attr(op: ast.Operation, name: str, default: Any = _MISSING) -> int:
    value = attr(op, name, default)
    if isinstance(value, ast.DenseElements):
        value = value.literal.to_numpy()
    try:
        return int(np.asarray(value).reshape(-1)[0]) if np.ndim(value) else int(value)
    except (TypeError, ValueError, IndexError):
        raise invalid(op, f"the attribute {name} must be an integer, got {value!r}") from None


def float_attr(op: ast.Operation, name: str, default: Any = _MISSING) -> float:
    value = attr(op, name, default)
    try:
        return float(value)
    except (TypeError, ValueError):
        raise invalid(op, f"the attribute {name} must be a number, got {value!r}") from None


def bool_attr(op: ast.Operation, name: str, default: bool = False) -> bool:
    value = op.attributes.get(name, default)
    if isinstance(value, ast.DenseElements):
        value = bool(np.asarray(value.literal.to_numpy()).reshape(-1)[0])
    return _as_bool(value)


def enum_value(value: Any) -> str:
    """The member name of an enum attribute, whichever way it was written."""
    if isinstance(value, ast.EnumAttr):
        return str(value.value)
    if isinstance(value, ast.OpaqueAttr):
        match = re.search(r"([A-Za-z0-9_]+)\s*>?\s*$", value.text)
        return match.group(1) if match else value.text
    return str(value)


def enum_attr(op: ast.Operation, name: str, default: Any = _MISSING) -> str | None:
    value = attr(op, name, default)
    return None if value is None else enum_value(value).upper()


def string_attr(op: ast.Operation, name: str, default: Any = _MISSING) -> str:
    value = attr(op, name, default)
    if isinstance(value, ast.SymbolRef):
        return value.name
    return value if isinstance(value, str) else str(value)


def symbol(value: Any) -> str:
    """A symbol reference's name (``@f`` -> ``f``)."""
    if isinstance(value, ast.SymbolRef):
        return value.name
    if isinstance(value, str):
        return value.lstrip("@")
    if isinstance(value, (list, tuple)) and len(value) == 1:
        return symbol(value[0])
    raise TypeError(f"not a symbol reference: {value!r}")


def pairs(op: ast.Operation, name: str, rank: int) -> list[tuple[int, int]]:
    """An Nx2 attribute (padding, source-target pairs); zeros when absent."""
    value = op.attributes.get(name)
    if value is None:
        return [(0, 0)] * rank
    flat = ints(op, name)
    if len(flat) % 2:
        raise invalid(op, f"the attribute {name} must hold (low, high) pairs, got {list(flat)}")
    return [(flat[i], flat[i + 1]) for i in range(0, len(flat), 2)]


def fields(op: ast.Operation, name: str, kind: str, default: Any = _MISSING) -> dict[str, Any]:
    """The fields of a structured attribute such as ``#stablehlo.gather<...>``."""
    value = attr(op, name, default)
    if value is None:
        return {}
    if isinstance(value, ast.DialectAttr):
        return dict(value.fields)
    if isinstance(value, dict):
        return dict(value)
    raise invalid(op, f"the attribute {name} must be a #{kind}<...> attribute, got {value!r}")


def field_ints(values: dict[str, Any], name: str) -> tuple[int, ...]:
    value = values.get(name, ())
    if isinstance(value, (int, np.integer)):
        return (int(value),)
    flat = _flat(value)
    return tuple(int(v) for v in (flat or ()))


def replica_groups(op: ast.Operation, name: str = "replica_groups") -> list[list[int]]:
    """A 2-D group table; -1 entries pad groups shorter than the longest."""
    value = op.attributes.get(name)
    if value is None:
        return []
    if isinstance(value, ast.DenseElements):
        table = np.asarray(value.literal.to_numpy())
        if table.ndim == 1:
            table = table.reshape(1, -1) if table.size else table.reshape(0, 0)
        return [[int(v) for v in row if v >= 0] for row in table.tolist()]
    if isinstance(value, (list, tuple)):
        return [[int(v) for v in _flat(row) or () if int(v) >= 0] for row in value]
    raise invalid(op, f"the attribute {name} must be a dense 2-D table, got {value!r}")


def channel_handle(op: ast.Operation) -> tuple[int, int] | None:
    """(handle, type) of ``channel_handle``, or None when absent."""
    value = op.attributes.get("channel_handle")
    if value is None:
        return None
    if isinstance(value, ast.DialectAttr):
        return int(value.fields.get("handle", 0)), int(value.fields.get("type", 0))
    if isinstance(value, dict):
        return int(value.get("handle", 0)), int(value.get("type", 0))
    raise invalid(op, f"channel_handle must be #stablehlo.channel_handle<...>, got {value!r}")


def channel_id(op: ast.Operation) -> int | None:
    """The HLO channel id: the handle when positive (StableHLO's "channel_id > 0")."""
    handle = channel_handle(op)
    if handle is None or handle[0] <= 0:
        return None
    return handle[0]


# -- attributes as text (composite attributes, dictionary backend configs) ---------------------


def mlir_text(value: Any) -> str:
    """An attribute value in MLIR syntax, as XLA carries dictionaries in HLO strings."""
    if isinstance(value, ast.TypedInt | ast.TypedFloat):
        return value.text
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return f"{int(value)} : i64"
    if isinstance(value, (float, np.floating)):
        return f"{float(value)!r} : f64".replace("inf", "0x7FF0000000000000")
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {mlir_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, tuple):
        return "array<i64: " + ", ".join(str(int(v)) for v in value) + ">"
    if isinstance(value, list):
        return "[" + ", ".join(mlir_text(v) for v in value) + "]"
    if isinstance(value, ast.SymbolRef):
        return f"@{value.name}"
    if isinstance(value, ast.EnumAttr):
        return f"#stablehlo<{value.kind} {value.value}>"
    if isinstance(value, ast.DenseElements):
        literal = value.literal
        data = np.asarray(literal.to_numpy())
        return f"dense<{json.dumps(data.tolist())}> : {_tensor_text(literal)}"
    if isinstance(value, ast.DialectAttr):
        inner = ", ".join(f"{k} = {mlir_text(v)}" for k, v in value.fields.items())
        return f"#{value.name}<{inner}>"
    if isinstance(value, ast.OpaqueAttr):
        return value.text
    if isinstance(value, ast.MlirType):
        return value.text
    return str(value)


def _tensor_text(literal: Any) -> str:
    shape = literal.shape
    dims = "".join(f"{d}x" for d in shape.dimensions)
    return f"tensor<{dims}{_mlir_element(shape.element_type)}>"


def _mlir_element(element_type: Any) -> str:
    name = element_type.hlo_name
    if name == "pred":
        return "i1"
    if name[0] == "s":
        return "i" + name[1:]
    if name[0] == "u":
        return "ui" + name[1:]
    if name == "c64":
        return "complex<f32>"
    if name == "c128":
        return "complex<f64>"
    return name


__all__ = [
    "attr",
    "bool_attr",
    "bools",
    "channel_handle",
    "channel_id",
    "enum_attr",
    "enum_value",
    "field_ints",
    "fields",
    "float_attr",
    "int_attr",
    "ints",
    "mlir_text",
    "pairs",
    "replica_groups",
    "string_attr",
    "symbol",
]
