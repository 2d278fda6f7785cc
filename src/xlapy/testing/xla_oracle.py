"""Run HLO on the real XLA (XLA:CPU inside jaxlib): the second oracle of the tests.

xlapy's interpreter is the first oracle; this one runs the very same HLO text
through Google's XLA, so a disagreement between the two points at a semantic
mistake in one of them. It uses jaxlib's internal client API (pinned by the
``test`` extra to JAX 0.10.2) and is meant for tests only.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import FailedPreconditionError, InternalError, InvalidArgumentError


def available() -> bool:
    try:
        import jax  # noqa: F401
        from jax._src.lib import xla_client  # noqa: F401
    except ImportError:
        return False
    return True


def _require_jax() -> None:
    if not available():
        raise FailedPreconditionError(
            "the XLA oracle needs jax and jaxlib (pip install 'xlapy[test]')"
        )


def _client() -> tuple[Any, Any]:
    """jax and its XLA client, with 64-bit types on: for the worker process (or a caller
    that runs XLA in its own process on purpose), since the setting is process-wide."""
    _require_jax()
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


def _run_in_process(text: str, arguments: Sequence[Any]) -> list[np.ndarray]:
    jax, _ = _client()
    executable = compile_hlo_text(text)
    device = executable.local_devices()[0]
    buffers = [jax.device_put(np.asarray(a), device) for a in arguments]
    results = executable.execute_sharded(buffers)
    arrays = results.disassemble_into_single_device_arrays()
    return [np.asarray(per_device[0]) for per_device in arrays]


class XlaCrashedError(InternalError):
    """XLA itself aborted (a CHECK failure) or hung on a program: a bug of XLA's, or an
    HLO it does not validate. The oracle's worker process is replaced."""


# XLA:CPU's results depend on the host where the ISA changes rounding: on a host with
# AVX512-FP16, f64 -> f16 converts in one rounding, elsewhere through f32 (two). The
# oracle compiles for AVX2 at most, so its answers are the same on every x86-64 host
# that tests run on.
ORACLE_XLA_FLAGS = "--xla_cpu_max_isa=AVX2"


def _serve(connection: Any) -> None:
    """The worker: runs programs for the parent until the pipe closes."""
    # Before the worker imports jax (a spawned process starts with nothing imported).
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {ORACLE_XLA_FLAGS}".strip()
    while True:
        try:
            text, arguments = connection.recv()
        except EOFError:
            return
        try:
            connection.send(("ok", _run_in_process(text, arguments)))
        except Exception as e:  # noqa: BLE001  (reported to the parent as it was)
            connection.send(("error", (type(e).__name__, str(e))))


class _Worker:
    """A long-lived child process holding XLA, so that an XLA abort kills it, not us."""

    def __init__(self) -> None:
        context = multiprocessing.get_context("spawn")
        self.connection, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child,), daemon=True)
        self.process.start()
        child.close()

    def run(self, text: str, arguments: list[np.ndarray], timeout: float) -> list[np.ndarray]:
        try:
            self.connection.send((text, arguments))
        except OSError:  # the worker is gone (BrokenPipeError)
            code = self.process.exitcode
            self.stop()
            raise XlaCrashedError(f"XLA aborted (exit code {code}) before this program") from None
        if not self.connection.poll(timeout):
            self.stop()
            raise XlaCrashedError(f"XLA did not finish within {timeout:g} s")
        try:
            status, payload = self.connection.recv()
        except EOFError:
            code = self.process.exitcode
            self.stop()
            raise XlaCrashedError(f"XLA aborted (exit code {code}) on this program") from None
        if status == "error":
            name, message = payload
            raise (InvalidArgumentError if name == "InvalidArgumentError" else InternalError)(
                message
            )
        return payload

    def stop(self) -> None:
        self.process.kill()
        self.process.join()


_worker: _Worker | None = None
_worker_lock = threading.Lock()
TIMEOUT_SECONDS = 300.0


def run_hlo_text(text: str, arguments: Sequence[Any]) -> list[np.ndarray]:
    """Run the entry computation on ``arguments``; one numpy array per result leaf.

    A tuple result is flattened into its elements (as XLA returns them). XLA
    runs in a worker process: if it aborts, ``XlaCrashedError`` is raised here
    and the next call starts a new worker.
    """
    global _worker
    # Fail early and clearly when jax is missing, without importing it here: the parent's
    # JAX (the tests' second oracle) must keep its own settings, 32-bit by default.
    _require_jax()
    arrays = [np.asarray(a) for a in arguments]
    with _worker_lock:
        if _worker is None or not _worker.process.is_alive():
            _worker = _Worker()
        try:
            return _worker.run(text, arrays, TIMEOUT_SECONDS)
        except XlaCrashedError:
            _worker = None
            raise


def run_computation(computation: Any, arguments: Sequence[Any]) -> list[np.ndarray]:
    """Run an ``XlaComputation`` or ``HloModule`` built with xlapy on the real XLA."""
    module = getattr(computation, "hlo_module", computation)
    return run_hlo_text(module.to_text(), arguments)


__all__ = [
    "XlaCrashedError",
    "available",
    "compile_hlo_text",
    "run_computation",
    "run_hlo_text",
]
