"""Malformed input never crashes xlapy: mutated HLO and StableHLO text, and wrong
executable arguments, fail with an ``xlapy.errors`` exception or succeed; arguments
are never modified. (A bounded run here; ``make fuzz`` runs longer.)"""

from __future__ import annotations

import pathlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import xlapy
from xlapy.errors import XlaError
from xlapy.hlo import parse_module
from xlapy.stablehlo import parse_module as parse_stablehlo

CORPUS = sorted((pathlib.Path(__file__).resolve().parents[1] / "data" / "hlo_corpus").glob("*.hlo"))
TOKENS = ["{", "}", "(", ")", "[", "]", ",", "=", "%", "ROOT", "f32[]", "s32[2,3]", "parameter(0)",
          "add", "tuple", "dimensions={0}", "\n", " ", "-", "1e999", "\"", "/*", "->", "0x", "inf"]  # fmt: skip
STABLEHLO = """func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.add %arg0, %arg1 : tensor<2x3xf32>
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
  return %1 : tensor<3xf32>
}
"""


@st.composite
def mutated(draw: st.DrawFn, text: str) -> str:
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["delete", "insert", "duplicate", "truncate", "replace"]))
        if not text:
            break
        at = draw(st.integers(0, len(text) - 1))
        if kind == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 20)) :]
        elif kind == "insert":
            text = text[:at] + draw(st.sampled_from(TOKENS)) + text[at:]
        elif kind == "duplicate":
            lines = text.splitlines(keepends=True)
            k = draw(st.integers(0, len(lines) - 1))
            text = "".join(lines[: k + 1] + lines[k:])
        elif kind == "truncate":
            text = text[:at]
        else:
            text = text[:at] + draw(st.characters()) + text[at + 1 :]
    return text


def _parses_or_fails_cleanly(parse, text: str) -> None:
    try:
        module = parse(text)
    except XlaError:
        return
    try:
        module.verify()
    except XlaError:
        pass


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_mutated_hlo_text_fails_cleanly(data):
    source = CORPUS[data.draw(st.integers(0, len(CORPUS) - 1))].read_text()
    _parses_or_fails_cleanly(parse_module, data.draw(mutated(source)))


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(mutated(STABLEHLO))
def test_mutated_stablehlo_text_fails_cleanly(text):
    _parses_or_fails_cleanly(parse_stablehlo, text)


@pytest.fixture(scope="module")
def axpy():
    return xlapy.local_client("cpu").compile(
        parse_module(
            """HloModule axpy
ENTRY e {
  a = f32[] parameter(0)
  x = f32[4] parameter(1)
  y = f32[4] parameter(2)
  ab = f32[4] broadcast(a), dimensions={}
  m = f32[4] multiply(ab, x)
  ROOT r = f32[4] add(m, y)
}"""
        )
    )


ARGUMENTS = st.one_of(
    st.just(np.ones(4, np.float32)),
    st.just(np.ones(4, np.float64)),
    st.just(np.ones(5, np.float32)),
    st.just(np.ones((2, 2), np.float32)),
    st.just(np.ones(8, np.float32)[::2]),
    st.just(np.float32(2)),
    st.just(3),
    st.just("text"),
    st.just(None),
    st.just([1.0, 2.0, 3.0, 4.0]),
)


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(ARGUMENTS, min_size=0, max_size=4))
def test_wrong_arguments_fail_cleanly_and_are_never_modified(axpy, arguments):
    copies = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in arguments]
    for a in arguments:
        if isinstance(a, np.ndarray):
            a.flags.writeable = False
    try:
        axpy(*arguments)
    except XlaError:
        pass
    for before, after in zip(copies, arguments, strict=True):
        if isinstance(after, np.ndarray):
            np.testing.assert_array_equal(before, after)
            after.flags.writeable = True
