"""Field normalisation and checks shared by the xla_data attribute types.

The types are frozen dataclasses that accept any sequence for list fields but
store tuples (so values hash and compare by content), and report invalid
fields as InvalidArgumentError naming the type, the field and what is valid.
"""

from __future__ import annotations

import enum

from .errors import InvalidArgumentError


def fail(type_name: str, message: str) -> InvalidArgumentError:
    return InvalidArgumentError(f"{type_name}: {message}")


def int_tuple(obj: object, name: str, *, nonneg: bool = True) -> None:
    """Normalise field ``name`` to a tuple of ints, so lists compare equal to tuples."""
    value = getattr(obj, name)
    try:
        if isinstance(value, (str, bytes)):
            raise TypeError
        items = tuple(int(v) for v in value)
    except (TypeError, ValueError):
        raise fail(type(obj).__name__, f"{name} must be a sequence of integers, "
                    f"got {value!r}") from None
    if nonneg and any(v < 0 for v in items):
        raise fail(type(obj).__name__, f"{name}={list(items)} has a negative dimension; "
                    "dimension numbers must be >= 0")
    object.__setattr__(obj, name, items)


def unique(obj: object, name: str, *, sorted_: bool = False) -> None:
    items = getattr(obj, name)
    if len(set(items)) != len(items):
        raise fail(type(obj).__name__, f"{name}={list(items)} repeats a dimension; "
                    "each may appear once")
    if sorted_ and list(items) != sorted(items):
        raise fail(type(obj).__name__, f"{name}={list(items)} must be sorted ascending")


def same_length(obj: object, a: str, b: str) -> None:
    la, lb = len(getattr(obj, a)), len(getattr(obj, b))
    if la != lb:
        raise fail(type(obj).__name__, f"{a} has {la} entries but {b} has {lb}; "
                    "they pair up one to one")


def enum_field(obj: object, name: str, enum_type: type[enum.Enum]) -> None:
    value = getattr(obj, name)
    try:
        object.__setattr__(obj, name, enum_type(value))
    except ValueError:
        valid = ", ".join(m.name for m in enum_type)
        raise fail(type(obj).__name__, f"{name}={value!r} is not a {enum_type.__name__}; "
                    f"valid: {valid}") from None
