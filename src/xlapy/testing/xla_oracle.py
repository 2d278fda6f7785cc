"""Run HLO on the real XLA (XLA:CPU inside jaxlib): the second oracle of the tests.

xlapy's interpreter is the first oracle; this one runs the very same HLO text
through Google's XLA, so a disagreement between the two points at a semantic
mistake in one of them. It uses jaxlib's internal client API (pinned by the
``test`` extra to JAX 0.10.2) and is meant for tests only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import FailedPreconditionError, InvalidArgumentError


def available() -> bool:
    try:
        import jax  # noqa: F401
        from jax._src.lib import xla_client  # noqa: F401
    except ImportError:
        return False
    return True


def _client() -> tuple[Any, Any]:
    if not available():
        raise FailedPreconditionError(
            "the XLA oracle needs jax and jaxlib (pip install 'xlapy[test]')"
        )
    import jax
    from jax._src.lib import xla_client

    # 64-bit arguments (f64, s64, c128) must reach XLA unnarrowed.
    jax.config.update("jax_enable_x64", True)
    return jax, xla_client


def compile_hlo_text(text: str) -> Any:
    """An XLA:CPU executable for HLO ``text`` (as our printer writes it)."""
    jax, xc = _client()
    try:
        module = xc.hlo.hlo_module_from_text(text)
    except Exception as e:  # XLA's own parser rejected the text
        raise InvalidArgumentError(f"XLA cannot parse this HLO: {e}") from None
    computation = xc.XlaComputation(module.as_serialized_hlo_module_proto())
    mlir = xc._xla.mlir.xla_computation_to_mlir_module(computation)
    backend = jax.devices("cpu")[0].client
    devices = xc.DeviceList(tuple(backend.devices()[:1]))
    return backend.compile_and_load(mlir, devices, xc.CompileOptions())


def run_hlo_text(text: str, arguments: Sequence[Any]) -> list[np.ndarray]:
    """Run the entry computation on ``arguments``; one numpy array per result leaf.

    A tuple result is flattened into its elements (as XLA returns them).
    """
    jax, _ = _client()
    executable = compile_hlo_text(text)
    device = executable.local_devices()[0]
    buffers = [jax.device_put(np.asarray(a), device) for a in arguments]
    results = executable.execute_sharded(buffers)
    arrays = results.disassemble_into_single_device_arrays()
    return [np.asarray(per_device[0]) for per_device in arrays]


def run_computation(computation: Any, arguments: Sequence[Any]) -> list[np.ndarray]:
    """Run an ``XlaComputation`` or ``HloModule`` built with xlapy on the real XLA."""
    module = getattr(computation, "hlo_module", computation)
    return run_hlo_text(module.to_text(), arguments)


__all__ = ["available", "compile_hlo_text", "run_computation", "run_hlo_text"]
