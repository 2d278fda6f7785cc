"""Which LLVM this process compiles with: its version, how llvmlite links it, and whether
it was built with assertions.

Why it matters: an LLVM with assertions runs its passes and code generator ~1.35x
slower (docs/compile_time.md), and every llvmlite wheel on PyPI links one;
``tools/build_llvmlite.sh`` (``make llvm-release``) rebuilds llvmlite against a release
LLVM. Benchmarks of compile time say which one they measured.

llvmlite knows the answer for a static link (it bakes LLVM's setting in). For a link to
a shared ``libLLVM`` it says "unknown"; then the library mapped into this process is
read for the message of an assertion every LLVM build with assertions carries.
"""

from __future__ import annotations

import functools
import mmap
from dataclasses import dataclass

import llvmlite
import llvmlite.binding as llvm

# The message of the assertion in llvm::cast<>() (llvm/Support/Casting.h): present in
# every LLVM with assertions, absent from a release build.
_ASSERTION_MARK = b"cast<Ty>() argument of incompatible type!"


@dataclass(frozen=True)
class LlvmBuild:
    version: str  # LLVM's, e.g. "22.1.8"
    major: int
    llvmlite: str
    linkage: str  # "static" (inside llvmlite's library) or "dynamic" (a shared libLLVM)
    assertions: str  # "on", "off" or "unknown"
    library: str  # the file LLVM's code was read from

    def __str__(self) -> str:
        where = "a shared libLLVM" if self.linkage == "dynamic" else "linked into llvmlite"
        return (
            f"LLVM {self.version} ({where}, assertions {self.assertions}), llvmlite {self.llvmlite}"
        )


def _mapped_library(fragment: str) -> str | None:
    """The path of a file mapped into this process whose name contains ``fragment``."""
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split(maxsplit=5)[-1].strip()
                if fragment in path.rsplit("/", 1)[-1]:
                    return path
    except OSError:
        return None
    return None


def _has_mark(path: str) -> bool | None:
    try:
        with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            return data.find(_ASSERTION_MARK) >= 0
    except (OSError, ValueError):
        return None


@functools.cache
def describe() -> LlvmBuild:
    major, minor, patch = llvm.llvm_version_info  # (loads llvmlite's library)
    config = getattr(llvm, "config", None)  # llvmlite >= 0.45
    linkage = getattr(config, "build_llvm_linkage_type", "unknown")
    state = getattr(config, "llvm_assertions_state", "unknown")
    library = (_mapped_library("libLLVM") if linkage == "dynamic" else None) or (
        _mapped_library("libllvmlite") or "?"
    )
    if state not in ("on", "off"):
        found = _has_mark(library)
        state = "unknown" if found is None else ("on" if found else "off")
    return LlvmBuild(
        version=f"{major}.{minor}.{patch}",
        major=major,
        llvmlite=llvmlite.__version__,
        linkage=linkage,
        assertions=state,
        library=library,
    )
