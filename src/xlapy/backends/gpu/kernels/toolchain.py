"""NVIDIA's tools as found on this machine: ``ptxas`` (PTX -> cubin) and libdevice.

Both come from NVIDIA's wheels when they are installed (``nvidia-cuda-nvcc`` puts
``ptxas`` in ``nvidia/cu13/bin``, ``nvidia-nvvm`` puts libdevice in
``nvidia/cu13/nvvm/libdevice``; CUDA 12's wheels use ``cu12`` or ``cuda_nvcc``), else from a CUDA
toolkit (``CUDA_HOME``/``CUDA_PATH``), else from ``PATH``. Nothing here needs a GPU.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from ....errors import FailedPreconditionError, InternalError

# Where NVIDIA's wheels put the tools: nvidia/cu13 (CUDA 13), nvidia/cu12 or
# nvidia/cuda_nvcc (CUDA 12's nvidia-cuda-nvcc-cu12).
_WHEEL_FOLDERS = ("cu13", "cu12", "cuda_nvcc")


def _nvidia_roots() -> list[Path]:
    """The folders of the installed ``nvidia`` namespace package (NVIDIA's wheels)."""
    spec = importlib.util.find_spec("nvidia")
    if spec is None or not spec.submodule_search_locations:
        return []
    return [Path(p) for p in spec.submodule_search_locations]


def _toolkit_roots() -> list[Path]:
    return [Path(os.environ[v]) for v in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(v)]


def ptxas_path() -> str | None:
    """``ptxas`` from NVIDIA's nvcc wheel, else ``$CUDA_HOME/bin``, else ``PATH``; None when
    none is installed."""
    for root in _nvidia_roots():
        for folder in _WHEEL_FOLDERS:
            candidate = root / folder / "bin" / "ptxas"
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
    for root in _toolkit_roots():
        candidate = root / "bin" / "ptxas"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which("ptxas")


@functools.cache
def libdevice_path() -> str | None:
    """libdevice's bitcode (NVIDIA's math library for the GPU), or None."""
    for root in _nvidia_roots():
        for folder in _WHEEL_FOLDERS:
            candidate = root / folder / "nvvm" / "libdevice" / "libdevice.10.bc"
            if candidate.is_file():
                return str(candidate)
    for root in _toolkit_roots():
        candidate = root / "nvvm" / "libdevice" / "libdevice.10.bc"
        if candidate.is_file():
            return str(candidate)
    return None


@functools.cache
def libdevice_bitcode() -> bytes:
    """libdevice's bytes (read once; every module that needs it parses its own copy,
    because linking consumes the parsed module)."""
    path = libdevice_path()
    if path is None:
        raise FailedPreconditionError(
            "the GPU kernels call libdevice's math functions, but libdevice.10.bc was not "
            "found: install the nvidia-nvvm wheel (pip install nvidia-nvvm) or set CUDA_HOME "
            "to a CUDA toolkit"
        )
    return Path(path).read_bytes()


_LINE = re.compile(r"line (\d+)")


def assemble(ptx: str, arch: str) -> bytes:
    """``ptxas -arch=<arch>`` on ``ptx``: the cubin's bytes.

    Raises FailedPreconditionError when ptxas is not installed and InternalError (with
    ptxas's message and the PTX lines it names) when ptxas rejects the code.
    """
    tool = ptxas_path()
    if tool is None:
        raise FailedPreconditionError(
            "ptxas was not found: install the nvidia-cuda-nvcc wheel "
            "(pip install nvidia-cuda-nvcc), or set CUDA_HOME to a CUDA toolkit, or put "
            "ptxas on PATH"
        )
    with tempfile.TemporaryDirectory(prefix="xlapy-ptxas-") as folder:
        source = Path(folder) / "kernels.ptx"
        target = Path(folder) / "kernels.cubin"
        source.write_text(ptx)
        result = subprocess.run(
            [tool, f"-arch={arch}", str(source), "-o", str(target)],
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode != 0:
            message = (result.stderr or result.stdout).strip()
            raise InternalError(
                f"ptxas -arch={arch} rejected the generated PTX:\n{message}"
                f"{_quoted_lines(ptx, message)}"
            )
        return target.read_bytes()


def _quoted_lines(ptx: str, message: str) -> str:
    """The PTX lines (with two lines around each) that ptxas's message names."""
    lines = ptx.splitlines()
    wanted = sorted({int(n) for n in _LINE.findall(message)})[:5]
    quoted = []
    for number in wanted:
        for k in range(max(1, number - 2), min(len(lines), number + 2) + 1):
            marker = ">" if k == number else " "
            quoted.append(f"{marker}{k:6d}: {lines[k - 1]}")
    return "\nPTX:\n" + "\n".join(quoted) if quoted else ""
