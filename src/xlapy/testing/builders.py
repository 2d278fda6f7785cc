"""Helpers for tests of the builder and its ops, shared so that every op family is
checked the same way: text that round-trips, results from the real XLA, and
errors that name the op, the shapes and the user's line.
"""

from __future__ import annotations

import inspect
import linecache
import os
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from ..builder import XlaBuilder, XlaComputation, XlaOp
from ..errors import InvalidArgumentError
from ..hlo import parse_module
from ..ops import Parameter, Tuple
from ..shape import Shape
from .xla_oracle import run_computation


def params(builder: XlaBuilder, *shapes: str) -> list[XlaOp]:
    """One parameter per shape text, named p0, p1, ..."""
    return [Parameter(builder, i, Shape.parse(s), f"p{i}") for i, s in enumerate(shapes)]


def built(builder: XlaBuilder, *results: XlaOp) -> XlaComputation:
    """Build with ``results`` as the root (a tuple for several), checking the text round trip."""
    root = results[0] if len(results) == 1 else Tuple(builder, list(results))
    computation = builder.build(root)
    text = computation.to_hlo_text()
    assert parse_module(text).to_text() == text
    return computation


def run(computation: XlaComputation, *args: Any) -> list[np.ndarray]:
    """Results of ``computation`` on the real XLA (skips the test when jax is absent)."""
    pytest.importorskip("jax", reason="jax runs the real XLA, the oracle of these tests")
    return run_computation(computation, [np.asarray(a) for a in args])


def shape_is(op: XlaOp, text: str) -> None:
    assert op.shape.compatible(Shape.parse(text)), f"{op.shape} is not {text}"


def expect_error(op_name: str, make: Callable[[XlaBuilder], object], *fragments: str) -> None:
    """``make`` builds one invalid op: recorded for build() by default, raised at once when
    the builder dies immediately; either way naming the op, the fragments and the line of
    the offending call in ``make``'s file."""
    b = XlaBuilder("bad")
    result = make(b)
    assert isinstance(result, XlaOp) and result.instruction is None
    with pytest.raises(InvalidArgumentError) as deferred:
        b.build()
    now = XlaBuilder("bad_now")
    now.set_die_immediately_on_error(True)
    with pytest.raises(InvalidArgumentError) as immediate:
        make(now)
    path = inspect.getsourcefile(make)
    source, start = inspect.getsourcelines(make)
    for error in (deferred.value, immediate.value):
        message = str(error)
        assert message.startswith(f"{op_name}:"), message
        for fragment in fragments:
            assert fragment in message, (fragment, message)
        where = re.search(r"\[at ([^\[\]]+):(\d+)\]$", message)
        assert where is not None, message
        assert os.path.samefile(where.group(1), path)
        line = int(where.group(2))
        assert start <= line < start + len(source)
        assert f"{op_name}(" in linecache.getline(path, line)


__all__ = ["built", "expect_error", "params", "run", "shape_is"]
