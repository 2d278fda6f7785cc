"""Random calls of the builder's ops with wrong arguments fail with an ``xlapy.errors``
exception that names the op, never with another exception."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import xlapy
from xlapy import ops
from xlapy.errors import XlaError

UNARY = ["Neg", "Abs", "Exp", "Log", "Tanh", "Sqrt", "Not", "Floor", "Sign"]
BINARY = ["Add", "Sub", "Mul", "Div", "Max", "Min", "And", "Or", "Pow", "Rem"]


def _operand(b: xlapy.XlaBuilder, kind: str, k: int):  # noqa: ANN202
    shapes = {
        "f32": "f32[2,3]",
        "s32": "s32[2,3]",
        "pred": "pred[2,3]",
        "f32v": "f32[3]",
        "f64s": "f64[]",
        "tuple": "(f32[2], s32[])",
    }
    if kind in shapes:
        return ops.Parameter(b, k, xlapy.Shape.parse(shapes[kind]), f"p{k}")
    return {
        "int": 3,
        "float": 2.5,
        "none": None,
        "str": "x",
        "array": np.ones((2, 2)),
        "list": [1, 2],
    }[kind]


KINDS = st.sampled_from(
    ["f32", "s32", "pred", "f32v", "f64s", "tuple", "int", "float", "none", "str", "array", "list"]
)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(UNARY + BINARY), st.lists(KINDS, min_size=0, max_size=3), st.booleans())
def test_random_op_calls_fail_cleanly(name, kinds, die_immediately):
    b = xlapy.XlaBuilder("fuzz")
    if die_immediately and hasattr(b, "set_die_immediately_on_error"):
        b.set_die_immediately_on_error(True)
    args = [_operand(b, kind, k) for k, kind in enumerate(kinds)]
    try:
        getattr(ops, name)(*args)
        b.build()
    except XlaError:
        pass
    except TypeError as e:
        # Python's own arity check (too many/few arguments) is the one TypeError allowed.
        assert "positional argument" in str(e) or "required" in str(e), e
