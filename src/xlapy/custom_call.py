"""The custom-call target registry (``xlapy.register_custom_call``).

A custom call names a target; the target is either a Python function over
numpy arrays or a C function with the seed's ABI ``void f(void* out, void** in)``
(a ctypes function or a raw address). Backends look targets up at compile
time, so an unknown target is an error when compiling, naming the target.

Built-in targets are the ones xlapy provides itself (jaxlib's LAPACK FFI
targets, ``lapack_*_ffi``, filled in by ``xlapy.evaluator.kernels.linalg_lapack*``):
a built-in is a function ``(ctx, instruction, operands) -> value`` that sees the
instruction (its attributes and result shape), plus a ``check(instruction)`` the
backends run at compile time so that a malformed call fails before it runs.
A user registration of the same name wins over the built-in, on the platforms it
names (so a faster or native implementation can replace one);
``unregister_custom_call`` brings the built-in back.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .errors import InvalidArgumentError, NotFoundError

ALL_PLATFORMS = "*"
C_ABI = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))


@dataclass(frozen=True)
class CustomCallTarget:
    """A registered target: ``python`` (numpy arrays in, array or tuple out) or ``c``."""

    name: str
    kind: str  # "python", "c" or "builtin"
    function: Callable[..., Any] | None
    address: int | None  # for kind "c": the function's address
    platform: str
    # For kind "builtin": check(instruction) raises InvalidArgumentError on a malformed call.
    check: Callable[[Any], None] | None = None


_lock = threading.Lock()
_targets: dict[tuple[str, str], CustomCallTarget] = {}
_builtins: dict[str, CustomCallTarget] = {}


def register_custom_call(name: str, fn: Any, platform: str = ALL_PLATFORMS) -> None:
    """Register ``fn`` as custom-call target ``name`` for ``platform`` (default: every one).

    ``fn`` is a Python callable taking the operands as numpy arrays and
    returning the result (an array, or a tuple for a tuple shape); or a C
    function (a ctypes function pointer, or an int address) with the ABI
    ``void f(void* out, void** in)`` that writes the result into ``out``.
    """
    if not isinstance(name, str) or not name:
        raise InvalidArgumentError(
            f"register_custom_call: name must be a non-empty string, got {name!r}"
        )
    if isinstance(fn, int):
        target = CustomCallTarget(name, "c", None, fn, platform)
    elif isinstance(fn, ctypes._CFuncPtr):  # type: ignore[attr-defined]
        address = ctypes.cast(fn, ctypes.c_void_p).value
        target = CustomCallTarget(name, "c", fn, address, platform)
    elif callable(fn):
        target = CustomCallTarget(name, "python", fn, None, platform)
    else:
        raise InvalidArgumentError(
            f"register_custom_call({name!r}): expected a Python callable, a ctypes function "
            f"or an address, got {type(fn).__name__}"
        )
    with _lock:
        _targets[(name, platform)] = target


# XLA's sharding annotations: the SPMD partitioner consumes them; a program that is not
# partitioned (xlapy runs every partition's program on its global values) computes the
# identity. JAX puts one in single-device programs too (jax.random with rbg keys).
SHARDING_ANNOTATIONS = ("Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape")


def _annotation(value: Any) -> Any:
    """The identity: a sharding annotation's operand is its result."""
    return value


def unregister_custom_call(name: str, platform: str = ALL_PLATFORMS) -> None:
    with _lock:
        _targets.pop((name, platform), None)


def register_builtin_target(
    name: str,
    fn: Callable[[Any, Any, list[Any]], Any],
    check: Callable[[Any], None] | None = None,
) -> None:
    """Make ``fn(ctx, instruction, operands)`` the built-in target ``name`` (every platform).

    For xlapy's own targets (the evaluator registers them when it is imported);
    a second built-in under one name is a programming error.
    """
    with _lock:
        if name in _builtins:
            raise InvalidArgumentError(f"register_builtin_target: {name!r} is already built in")
        _builtins[name] = CustomCallTarget(name, "builtin", fn, None, ALL_PLATFORMS, check)


def builtin_targets() -> list[str]:
    """The names of the built-in targets, sorted."""
    with _lock:
        return sorted(_builtins)


def lookup_custom_call(name: str, platform: str) -> CustomCallTarget:
    """The target for ``platform`` (or registered for every platform), else the built-in of
    that name; NotFound otherwise."""
    with _lock:
        target = (
            _targets.get((name, platform))
            or _targets.get((name, ALL_PLATFORMS))
            or _builtins.get(name)
        )
        known = sorted({n for n, p in _targets if p in (platform, ALL_PLATFORMS)})
        builtin_count = len(_builtins)
    if target is None:
        hint = f"; registered targets: {', '.join(known)}" if known else ""
        if builtin_count:
            hint += f" (and {builtin_count} built-in targets: xlapy.custom_call.builtin_targets())"
        raise NotFoundError(
            f"custom-call target {name!r} is not registered for platform {platform!r}; "
            f"register it with xlapy.register_custom_call({name!r}, fn){hint}"
        )
    return target


__all__ = [
    "ALL_PLATFORMS",
    "SHARDING_ANNOTATIONS",
    "C_ABI",
    "CustomCallTarget",
    "builtin_targets",
    "lookup_custom_call",
    "register_builtin_target",
    "register_custom_call",
    "unregister_custom_call",
]


for _name in SHARDING_ANNOTATIONS:
    register_custom_call(_name, _annotation)
