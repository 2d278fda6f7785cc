"""The report of which LLVM compiles (llvm_build): what compile-time benchmarks print."""

from __future__ import annotations

import llvmlite.binding as llvm

from xlapy.backends.cpu.runtime import llvm_build


def test_describes_the_llvm_this_process_runs():
    info = llvm_build.describe()
    assert (info.major, *map(int, info.version.split(".")[1:])) == tuple(llvm.llvm_version_info)
    assert info.assertions in ("on", "off")
    assert info.linkage in ("static", "dynamic")
    assert info.version in str(info) and f"assertions {info.assertions}" in str(info)


def test_the_scan_agrees_with_what_llvmlite_baked_in():
    """Where llvmlite knows (a static link bakes LLVM's setting in), reading the library
    for the assertion message gives the same answer; a shared libLLVM has only the scan."""
    info = llvm_build.describe()
    baked = getattr(getattr(llvm, "config", None), "llvm_assertions_state", "unknown")
    found = llvm_build._has_mark(info.library)
    assert found is not None, info.library
    assert found == (info.assertions == "on")
    if baked in ("on", "off"):
        assert baked == info.assertions


def test_scan_of_files(tmp_path):
    with_mark = tmp_path / "a.so"
    with_mark.write_bytes(b"\0" * 4096 + llvm_build._ASSERTION_MARK + b"\0")
    without = tmp_path / "b.so"
    without.write_bytes(b"cast<Ty>() argument" + b"\0" * 100)
    assert llvm_build._has_mark(str(with_mark)) is True
    assert llvm_build._has_mark(str(without)) is False
    assert llvm_build._has_mark(str(tmp_path / "missing.so")) is None
    empty = tmp_path / "empty.so"
    empty.write_bytes(b"")
    assert llvm_build._has_mark(str(empty)) is None  # mmap of an empty file
