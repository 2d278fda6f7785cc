"""CUDA driver results as xlapy errors.

Every driver call of cuda-bindings returns ``(CUresult, *outputs)``. :func:`check` turns
a failed result into the xlapy error a user can act on, naming the call (and the kernel,
where there is one) with CUDA's own name and description of the error, e.g.
``cuLaunchKernel(fusion.3): CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was
encountered``. Running out of device memory is a ``ResourceExhaustedError`` (the caching
allocator catches it to empty its cache and retry); anything else the driver refuses is
an ``InternalError``: the runtime asked for something it should not have, or the device
is in a broken state.
"""

from __future__ import annotations

from typing import Any

from ....errors import InternalError, ResourceExhaustedError, XlaError

try:  # an optional dependency: without it there is no GPU, and nothing here is called
    from cuda.bindings import driver as cuda
except ImportError:  # pragma: no cover  (cuda-bindings is installed with the test extra)
    cuda = None


def describe(code: Any) -> str:
    """``CUDA_ERROR_NAME: description`` of a ``CUresult`` (or its integer value)."""
    name = getattr(code, "name", None) or f"CUresult {int(code)}"
    text = ""
    if cuda is not None:
        try:
            err, raw_name = cuda.cuGetErrorName(code)
            if err == cuda.CUresult.CUDA_SUCCESS and raw_name:
                name = _text(raw_name)
            err, raw_text = cuda.cuGetErrorString(code)
            if err == cuda.CUresult.CUDA_SUCCESS and raw_text:
                text = _text(raw_text)
        except Exception:  # the driver itself is gone (interpreter exit): the enum name does
            pass
    return f"{name}: {text}" if text else name


def _text(raw: Any) -> str:
    return raw.decode(errors="replace") if isinstance(raw, bytes | bytearray) else str(raw)


def is_out_of_memory(code: Any) -> bool:
    return cuda is not None and code == cuda.CUresult.CUDA_ERROR_OUT_OF_MEMORY


def error_for(code: Any, call: str, detail: str = "") -> XlaError:
    """The xlapy error for a failed driver call; ``detail`` is appended on its own lines
    (the JIT compiler's log, say)."""
    message = f"{call}: {describe(code)}"
    if detail:
        message += "\n" + detail
    if is_out_of_memory(code):
        return ResourceExhaustedError(message)
    return InternalError(message)


def check(result: tuple, call: str) -> Any:
    """The outputs of a driver call (``None``, the one output, or a tuple of them), or the
    error of :func:`error_for` when it failed."""
    code, *outputs = result
    if code != cuda.CUresult.CUDA_SUCCESS:
        raise error_for(code, call)
    if not outputs:
        return None
    return outputs[0] if len(outputs) == 1 else tuple(outputs)


__all__ = ["check", "describe", "error_for", "is_out_of_memory"]
