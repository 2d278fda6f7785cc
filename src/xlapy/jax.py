"""``xlapy.jax.jit``: run a JAX function on xlapy, in one line (the optional ``jax`` extra).

A JAX user keeps their code and swaps the decorator: JAX traces and lowers the
function to StableHLO (``jax.jit(fn).lower(...)``), xlapy imports that text
(``xlapy.stablehlo``), compiles it for a platform and calls it on numpy arrays.
Arguments and results are pytrees, as with ``jax.jit``; results come back as
numpy arrays in the function's own structure.

The compile cache is keyed as ``jax.jit`` keys its own: the structure of the
arguments, every leaf's shape, dtype and weak type (a Python scalar is weakly
typed), and the values of the static arguments. A new key lowers and compiles
once; the same key calls the cached executable.

Denormals: on the CPU, JAX's programs run as XLA:CPU runs them, with denormals
flushed to zero (``CpuOptions.flush_denormals``: FTZ and DAZ set while the code runs),
so ``x * 2`` of a denormal ``x`` is 0 here as under ``jax.jit``; ``flush_denormals=False``
gives IEEE denormals instead, as xlapy's own API (and the interpreter) computes.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .client import CompileOptions, Executable, local_client
from .errors import FailedPreconditionError, InvalidArgumentError
from .hlo.module import HloModule
from .stablehlo import parse_module

try:
    import jax
except ImportError as error:  # the optional extra is not installed
    raise FailedPreconditionError(
        "xlapy.jax needs JAX to trace and lower functions: pip install 'xlapy[jax]'"
    ) from error

_PYTHON_SCALARS = (bool, int, float, complex)


@dataclass
class _Compiled:
    module: HloModule
    executable: Executable
    in_avals: list[Any]  # the flattened dynamic arguments' abstract values, in call order
    out_tree: Any


class JitFunction:
    """A JAX function compiled by xlapy, once per argument signature."""

    def __init__(
        self,
        fn: Callable[..., Any],
        static_argnums: Sequence[int] = (),
        static_argnames: Sequence[str] = (),
        platform: str = "cpu",
        flush_denormals: bool = True,
    ) -> None:
        if not callable(fn):
            raise InvalidArgumentError(f"xlapy.jax.jit: expected a function, got {fn!r}")
        self.fn = fn
        self.static_argnums = tuple(int(i) for i in static_argnums)
        self.static_argnames = tuple(static_argnames)
        self.platform = platform
        self.flush_denormals = bool(flush_denormals)
        try:
            self._jax_jit = jax.jit(
                fn,
                static_argnums=self.static_argnums,
                static_argnames=self.static_argnames,
                keep_unused=True,  # every dynamic argument is a parameter of the module
            )
        except ValueError as error:  # JAX checks the static arguments against fn's signature
            raise InvalidArgumentError(f"xlapy.jax.jit: {error}") from None
        self._cache: dict[Any, _Compiled] = {}
        self._lock = threading.Lock()
        functools.update_wrapper(self, fn)

    # -- the cache key ---------------------------------------------------------------------
    def _split(self, args: tuple, kwargs: dict) -> tuple[tuple, dict, tuple]:
        count = len(args)
        static_positions = {i % count if count else i for i in self.static_argnums}
        for i in self.static_argnums:
            if not -count <= i < count:
                raise InvalidArgumentError(
                    f"xlapy.jax.jit({getattr(self.fn, '__name__', 'fn')}): static_argnums "
                    f"names argument {i}, but the call passes {count} positional arguments"
                )
        dynamic = tuple(a for i, a in enumerate(args) if i not in static_positions)
        static = tuple((i, args[i]) for i in sorted(static_positions))
        static += tuple((k, kwargs[k]) for k in sorted(kwargs) if k in self.static_argnames)
        dynamic_kwargs = {k: v for k, v in kwargs.items() if k not in self.static_argnames}
        return dynamic, dynamic_kwargs, static

    def _key(self, args: tuple, kwargs: dict) -> Any:
        dynamic, dynamic_kwargs, static = self._split(args, kwargs)
        leaves, tree = jax.tree_util.tree_flatten((dynamic, dynamic_kwargs))
        signature = tuple(
            (np.shape(leaf), np.result_type(leaf).str, isinstance(leaf, _PYTHON_SCALARS))
            for leaf in leaves
        )
        try:
            hash(static)
        except TypeError:
            raise InvalidArgumentError(
                "xlapy.jax.jit: static arguments must be hashable (as with jax.jit), got "
                f"{[type(v).__name__ for _, v in static]}"
            ) from None
        return tree, signature, static

    # -- compiling and calling -------------------------------------------------------------
    def lower(self, *args: Any, **kwargs: Any) -> HloModule:
        """The xlapy HLO module this call compiles (imported from JAX's StableHLO)."""
        return self._compiled(args, kwargs).module

    def _compiled(self, args: tuple, kwargs: dict) -> _Compiled:
        key = self._key(args, kwargs)
        with self._lock:
            compiled = self._cache.get(key)
        if compiled is not None:
            return compiled
        lowered = self._jax_jit.lower(*args, **kwargs)
        module = parse_module(lowered.as_text())
        executable = local_client(self.platform).compile(module, self._compile_options())
        in_avals = jax.tree_util.tree_leaves(lowered.in_avals)
        compiled = _Compiled(module, executable, in_avals, lowered.out_tree)
        with self._lock:
            self._cache.setdefault(key, compiled)
        return compiled

    def _compile_options(self) -> CompileOptions | None:
        """The CPU's XLA:CPU conventions (denormals flushed unless asked otherwise); the
        interpreter has none to set."""
        if self.platform != "cpu":
            return None
        return CompileOptions(backend_options={"flush_denormals": self.flush_denormals})

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        compiled = self._compiled(args, kwargs)
        dynamic, dynamic_kwargs, _ = self._split(args, kwargs)
        leaves = jax.tree_util.tree_leaves((dynamic, dynamic_kwargs))
        arrays = [
            np.asarray(leaf, dtype=aval.dtype) for leaf, aval in zip(leaves, compiled.in_avals, strict=True)
        ]
        result = compiled.executable(*arrays)
        count = compiled.out_tree.num_leaves
        outputs = list(result) if count != 1 or isinstance(result, tuple) else [result]
        if len(outputs) != count:
            outputs = [result]  # a single tuple-shaped leaf cannot occur; keep it whole
        return jax.tree_util.tree_unflatten(compiled.out_tree, outputs)

    @property
    def cache_size(self) -> int:
        """How many signatures have been compiled."""
        return len(self._cache)


def jit(
    fn: Callable[..., Any] | None = None,
    *,
    static_argnums: int | Sequence[int] = (),
    static_argnames: str | Sequence[str] = (),
    platform: str = "cpu",
    flush_denormals: bool = True,
) -> Any:
    """Compile ``fn`` (a JAX function) with xlapy; usable as ``@jit`` or ``@jit(...)``.

    ``static_argnums``/``static_argnames`` as in ``jax.jit``; ``platform`` is an
    xlapy platform (``"cpu"``, the default, or ``"interpreter"``). ``flush_denormals``
    (CPU only): denormals flushed to zero as on XLA:CPU (the default), or False for
    IEEE denormals.
    """
    nums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
    names = (static_argnames,) if isinstance(static_argnames, str) else tuple(static_argnames)

    def wrap(f: Callable[..., Any]) -> JitFunction:
        return JitFunction(f, nums, names, platform, flush_denormals)

    return wrap if fn is None else wrap(fn)


__all__ = ["JitFunction", "jit"]
