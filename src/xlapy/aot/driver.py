"""A C program that runs an ahead-of-time object on arguments from a file: what the
tests and ``benchmarks/aot.py`` build to check and time an object with no Python in the
process.

``driver IN OUT [ITERATIONS]`` reads the arguments from ``IN`` (their bytes one after
another, in the order and sizes of ``NAME_arg_bytes``), calls ``NAME_run`` ITERATIONS
times (default 1) on 64-byte aligned buffers, writes the results to ``OUT`` the same
way and prints ``best_ns N`` (the fastest call, CLOCK_MONOTONIC). A failed call exits
with status 2.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence

import numpy as np

from ..errors import FailedPreconditionError, InternalError
from .build import AotResult

_SOURCE = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "@NAME@.h"

static void* buffer(size_t bytes) {
  size_t rounded = (bytes + 63) / 64 * 64;
  void* p = aligned_alloc(64, rounded ? rounded : 64);
  if (!p) { fprintf(stderr, "out of memory\n"); exit(3); }
  memset(p, 0, rounded ? rounded : 64);
  return p;
}

int main(int argc, char** argv) {
  if (argc < 3) { fprintf(stderr, "usage: %s IN OUT [ITERATIONS]\n", argv[0]); return 1; }
  void* args[@NAME@_NUM_ARGS + 1];
  void* results[@NAME@_NUM_RESULTS + 1];
  FILE* in = fopen(argv[1], "rb");
  if (!in) { perror(argv[1]); return 1; }
  for (int i = 0; i < @NAME@_NUM_ARGS; ++i) {
    args[i] = buffer(@NAME@_arg_bytes[i]);
    if (fread(args[i], 1, @NAME@_arg_bytes[i], in) != @NAME@_arg_bytes[i]) {
      fprintf(stderr, "short input for argument %d\n", i); return 1;
    }
  }
  fclose(in);
  for (int i = 0; i < @NAME@_NUM_RESULTS; ++i) results[i] = buffer(@NAME@_result_bytes[i]);
  void* temp = buffer(@NAME@_temp_bytes);
  int iterations = argc > 3 ? atoi(argv[3]) : 1;
  long long best = -1;
  for (int it = 0; it < iterations; ++it) {
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int status = @NAME@_run((const void* const*)args, results, temp);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (status != 0) { fprintf(stderr, "@NAME@_run returned %d\n", status); return 2; }
    long long ns = (t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec);
    if (best < 0 || ns < best) best = ns;
  }
  FILE* out = fopen(argv[2], "wb");
  if (!out) { perror(argv[2]); return 1; }
  for (int i = 0; i < @NAME@_NUM_RESULTS; ++i)
    fwrite(results[i], 1, @NAME@_result_bytes[i], out);
  fclose(out);
  printf("best_ns %lld\n", best);
  return 0;
}
"""


def c_compiler() -> str | None:
    """The C compiler on PATH (``cc``), or None."""
    return shutil.which(os.environ.get("CC", "cc"))


def build_driver(result: AotResult, directory: str, extra_objects: Sequence[str] = ()) -> str:
    """Compile and link the driver for ``result`` (written to ``directory`` by
    ``compile``) with ``-lm -lpthread`` only; returns the executable's path."""
    compiler = c_compiler()
    if compiler is None:
        raise FailedPreconditionError("xlapy aot: no C compiler (cc) on PATH to build the driver")
    source = os.path.join(directory, f"{result.name}_driver.c")
    with open(source, "w") as f:
        f.write(_SOURCE.replace("@NAME@", result.name))
    binary = os.path.join(directory, f"{result.name}_driver")
    command = [
        compiler, "-O2", "-std=c11", "-D_POSIX_C_SOURCE=200112L", "-D_ISOC11_SOURCE",
        "-I", directory, source, os.path.join(directory, f"{result.name}.o"),
        *extra_objects, "-o", binary, "-lm", "-lpthread",
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise InternalError(f"building the driver failed: {' '.join(command)}\n{done.stderr}")
    return binary


def run_driver(
    result: AotResult, binary: str, arguments: Sequence[np.ndarray], iterations: int = 1
) -> tuple[list[np.ndarray], int]:
    """Run the driver on ``arguments``: (results as arrays, best time in ns)."""
    directory = os.path.dirname(binary)
    source = os.path.join(directory, f"{result.name}_in.bin")
    target = os.path.join(directory, f"{result.name}_out.bin")
    with open(source, "wb") as f:
        for array, buffer in zip(arguments, result.args, strict=True):
            data = np.asarray(array, buffer.shape.element_type.dtype).reshape(
                buffer.shape.dimensions
            )
            f.write(np.ascontiguousarray(data.transpose(_major_to_minor(buffer.shape))).tobytes())
    done = subprocess.run(
        [binary, source, target, str(iterations)], capture_output=True, text=True, env={}
    )
    if done.returncode != 0:
        raise InternalError(f"{binary} failed ({done.returncode}): {done.stderr}")
    raw = open(target, "rb").read()
    outputs, offset = [], 0
    for buffer in result.results:
        dtype = buffer.shape.element_type.dtype
        count = buffer.shape.element_count()
        order = _major_to_minor(buffer.shape)
        physical = np.frombuffer(raw, dtype, count, offset).reshape(
            [buffer.shape.dimensions[d] for d in order]
        )
        outputs.append(physical.transpose(np.argsort(order)))
        offset += buffer.byte_size
    best = int(done.stdout.split()[-1])
    return outputs, best


def _major_to_minor(shape: object) -> list[int]:
    """The dimensions in the order a buffer of the declared layout stores them."""
    layout = shape.layout  # type: ignore[attr-defined]
    rank = shape.rank  # type: ignore[attr-defined]
    if layout is None or len(layout.minor_to_major) != rank:
        return list(range(rank))
    return list(reversed(layout.minor_to_major))


__all__ = ["build_driver", "c_compiler", "run_driver"]
