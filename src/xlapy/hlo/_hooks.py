"""Late-bound links from the HLO text layer to modules that sit beside it.

The attribute registry (``xlapy.hlo.attributes``), the literal text format
(``xlapy.literal_text``) and shape inference (``xlapy.shape_inference``) are
looked up on first use rather than imported at module load, so that the IR and
the parser work (keeping unknown values verbatim) while those modules are
absent, and so that no import cycle can form through them.
"""

from __future__ import annotations

import importlib
from functools import lru_cache
from typing import Any

from ..errors import InvalidArgumentError

_MISSING = object()
_modules: dict[str, Any] = {}


def _optional_module(name: str) -> Any:
    """The module ``name`` if it can be imported, else None (cached)."""
    module = _modules.get(name, _MISSING)
    if module is _MISSING:
        try:
            module = importlib.import_module(name)
        except ImportError as e:
            # Only a missing module counts as absent; a broken one must surface.
            if e.name != name:
                raise
            module = None
        _modules[name] = module
    return module


@lru_cache(maxsize=4096)
def attribute_syntax(opcode: Any, name: str) -> Any:
    """The registry's syntax object for attribute ``name`` of ``opcode``, or None."""
    registry = _optional_module("xlapy.hlo.attributes")
    if registry is None or not hasattr(registry, "syntax_for"):
        return None
    try:
        return registry.syntax_for(opcode, name)
    except InvalidArgumentError:  # an attribute the registry does not know
        return None


def literal_text_module() -> Any:
    """``xlapy.literal_text`` (parse_literal_at / format_literal), or None."""
    module = _optional_module("xlapy.literal_text")
    if module is None or not hasattr(module, "parse_literal_at"):
        return None
    return module


def shape_inference_function() -> Any:
    """A function instruction -> inferred Shape (or None when there is no rule), or None.

    Uses ``xlapy.shape_inference.infer_instruction_shape`` and its ``has_rule``
    table when that package exists.
    """
    module = _optional_module("xlapy.shape_inference")
    if module is None:
        return None
    infer = getattr(module, "infer_instruction_shape", None)
    if infer is None:
        return None
    has_rule = getattr(module, "has_rule", None)
    if has_rule is None:
        return infer

    def infer_if_known(instruction: Any) -> Any:
        return infer(instruction) if has_rule(instruction.opcode) else None

    return infer_if_known


def reset() -> None:
    """Forget cached lookups (tests that install or remove modules call this)."""
    _modules.clear()
    attribute_syntax.cache_clear()
