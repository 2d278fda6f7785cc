"""The C header of an ahead-of-time object: the pinned interface of issue 21.

A C program written against one object's header keeps compiling against the next
object of the same program: the names and types below never change, only the values.
Every argument and result is documented with its shape and layout; a C++ wrapper class
(as tfcompile gives) owns the pointer tables and an aligned temp arena.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..shape import Shape


@dataclass(frozen=True)
class Buffer:
    """One argument or result leaf as the C interface sees it."""

    label: str  # where it comes from: "parameter 0 (x)", "result 1 (tuple index {1})"
    shape: Shape

    @property
    def byte_size(self) -> int:
        return self.shape.element_count() * self.shape.element_type.byte_width

    def describe(self) -> str:
        dims = ", ".join(str(d) for d in self.shape.dimensions)
        element = self.shape.element_type.hlo_name
        if not self.shape.dimensions:
            return f"{self.label}: {element}[] (a scalar), {self.byte_size} bytes"
        layout = self.shape.layout
        order = list(layout.minor_to_major) if layout is not None else []
        row_major = list(reversed(range(self.shape.rank)))
        if not order or order == row_major:
            form = f"row-major (layout {{{','.join(map(str, row_major))}}})"
        else:
            form = f"layout {{{','.join(map(str, order))}}} (minor-to-major dimension order)"
        return f"{self.label}: {element}[{dims}], {form}, dense, {self.byte_size} bytes"


def _comments(buffers: Sequence[Buffer], kind: str) -> list[str]:
    if not buffers:
        return [f" *   (no {kind}s)"]
    return [f" *   {kind}[{k}] {b.describe()}" for k, b in enumerate(buffers)]


def header_text(
    name: str,
    module_name: str,
    target: str,
    args: Sequence[Buffer],
    results: Sequence[Buffer],
    temp_bytes: int,
    threads: int,
) -> str:
    guard = f"XLAPY_AOT_{name.upper()}_H_"
    upper = name.upper()
    threading = (
        "single-threaded: it runs on the calling thread"
        if threads <= 1
        else f"runs large kernels on {threads} threads (a pthread pool started on first use)"
    )
    lines = [
        f"/* {name}.h: ahead-of-time compiled by xlapy from HLO module {module_name}.",
        f" * Target: {target}. The object {name}.o needs only libc and libm"
        + (" and pthreads." if threads > 1 else "."),
        f" * The code is {threading}.",
        " *",
        f" * int {name}_run(args, results, temp) runs the program once:",
        " *   args[i]    points to argument i, read only (its bytes as described below);",
        " *   results[i] points to where result i is written (the leaves of the result",
        " *              tuple, flattened in tuple order);",
        f" *   temp       points to {name}_temp_bytes bytes of scratch, 64-byte aligned",
        " *              (may be NULL when that is 0); its contents need no initialization.",
        " * It returns 0 on success. Buffers must not overlap each other or temp, except a",
        " * result that the module declares as an alias of an argument (input_output_alias),",
        " * which may be that argument's own buffer. One call at a time per temp arena.",
        " *",
        " * Arguments:",
        *_comments(args, "arg"),
        " * Results:",
        *_comments(results, "result"),
        " */",
        f"#ifndef {guard}",
        f"#define {guard}",
        "",
        "#include <stddef.h>",
        "",
        f"#define {name}_NUM_ARGS {len(args)}",
        f"#define {name}_NUM_RESULTS {len(results)}",
        f"#define {upper}_TEMP_ALIGNMENT 64",
        "",
        "#ifdef __cplusplus",
        'extern "C" {',
        "#endif",
        "",
        f"extern const size_t {name}_arg_bytes[{name}_NUM_ARGS];",
        f"extern const size_t {name}_result_bytes[{name}_NUM_RESULTS];",
        f"extern const size_t {name}_temp_bytes;  /* {temp_bytes} */",
        f"int {name}_run(const void* const* args, void* const* results, void* temp);",
        "",
        "#ifdef __cplusplus",
        '}  /* extern "C" */',
        "",
        *_cpp_wrapper(name, len(args), len(results)),
        "#endif  /* __cplusplus */",
        "",
        f"#endif  /* {guard} */",
        "",
    ]
    return "\n".join(lines)


def _cpp_wrapper(name: str, num_args: int, num_results: int) -> list[str]:
    """A class owning the pointer tables and a 64-byte aligned temp arena: set the
    argument and result pointers, then ``Run()``."""
    cls = "".join(part.capitalize() for part in name.split("_")) or "Program"
    return [
        "#include <cstdlib>",
        "#include <new>",
        "",
        f"/* C++: {cls} p; p.set_arg(0, x); p.set_result(0, y); int status = p.Run(); */",
        f"class {cls} {{",
        " public:",
        f"  static constexpr int kNumArgs = {num_args};",
        f"  static constexpr int kNumResults = {num_results};",
        f"  {cls}() : temp_(nullptr) {{",
        f"    if ({name}_temp_bytes > 0) {{",
        f"      size_t bytes = ({name}_temp_bytes + 63) / 64 * 64;",
        "      temp_ = std::aligned_alloc(64, bytes);",
        "      if (temp_ == nullptr) throw std::bad_alloc();",
        "    }",
        "    for (int i = 0; i < kNumArgs + 1; ++i) args_[i] = nullptr;",
        "    for (int i = 0; i < kNumResults + 1; ++i) results_[i] = nullptr;",
        "  }",
        f"  ~{cls}() {{ std::free(temp_); }}",
        f"  {cls}(const {cls}&) = delete;",
        f"  {cls}& operator=(const {cls}&) = delete;",
        "  void set_arg(int i, const void* data) { args_[i] = data; }",
        "  void set_result(int i, void* data) { results_[i] = data; }",
        f"  static size_t arg_bytes(int i) {{ return {name}_arg_bytes[i]; }}",
        f"  static size_t result_bytes(int i) {{ return {name}_result_bytes[i]; }}",
        f"  int Run() {{ return {name}_run(args_, results_, temp_); }}",
        "",
        " private:",
        "  const void* args_[kNumArgs + 1];",
        "  void* results_[kNumResults + 1];",
        "  void* temp_;",
        "};",
        "",
    ]


__all__ = ["Buffer", "header_text"]
