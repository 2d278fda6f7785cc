"""Calls into an executable from inside its own run, and signatures past ctypes' limits."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import xlapy

_RECURSIVE = """HloModule r
ENTRY e { x = f32[8] parameter(0)
  y = f32[8] custom-call(x), custom_call_target="xlapy_test_call_myself"
  ROOT z = f32[8] add(x, y) }"""


def test_a_host_callback_may_call_its_own_executable() -> None:
    # The outer run holds the executable's arena; the inner call must get its own
    # instead of waiting for the outer one to finish (which waits for the inner).
    depth = threading.local()

    def call_myself(x: np.ndarray) -> np.ndarray:
        level = getattr(depth, "level", 0)
        if level >= 2:
            return np.zeros_like(x)
        depth.level = level + 1
        try:
            return np.asarray(executable(x + 1), np.float32)
        finally:
            depth.level = level

    xlapy.register_custom_call("xlapy_test_call_myself", call_myself)
    try:
        executable = xlapy.local_client("cpu").compile(xlapy.hlo.parse_module(_RECURSIVE))
        x = np.arange(8, dtype=np.float32)
        result = executable(x)
        # level 2: 0; level 1: (x+2) + 0; level 0: (x+1) + (x+2); top: x + (2x + 3)
        np.testing.assert_array_equal(result, 3 * x + 3)
        literal = executable.execute_literals([xlapy.Literal.from_numpy(x)])
        np.testing.assert_array_equal(literal.to_numpy(), 3 * x + 3)
    finally:
        xlapy.unregister_custom_call("xlapy_test_call_myself")


@pytest.mark.slow
def test_more_parameters_than_ctypes_passes_to_a_function() -> None:
    # ctypes calls foreign functions with at most 1024 arguments: the fast call takes the
    # arguments as one tuple, so it serves this signature too.
    n = 1100
    lines = [f"  p{k} = f32[] parameter({k})" for k in range(n)]
    level, names = 0, [f"p{k}" for k in range(n)]
    while len(names) > 1:  # a balanced tree of adds: shallow, whatever n is
        pairs = [names[i : i + 2] for i in range(0, len(names), 2)]
        names = []
        for k, pair in enumerate(pairs):
            if len(pair) == 1:
                names.append(pair[0])
                continue
            lines.append(f"  a{level}_{k} = f32[] add({pair[0]}, {pair[1]})")
            names.append(f"a{level}_{k}")
        level += 1
    text = "HloModule many\nENTRY e {\n" + "\n".join(lines)
    text += f"\n  ROOT r = f32[] copy({names[0]}) }}"
    executable = xlapy.local_client("cpu").compile(xlapy.hlo.parse_module(text))
    arguments = [np.float32(k % 7) for k in range(n)]
    assert float(executable(*arguments)) == float(sum(k % 7 for k in range(n)))
