"""Malformed StableHLO text: a ParseError at the right line and column, never a crash."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xlapy.errors import ParseError, UnimplementedError
from xlapy.stablehlo.parse import parse_mlir

CONFORMANCE = Path(__file__).resolve().parents[2].parent / "shared" / "conformance" / "stablehlo"


def parse_error(text: str) -> ParseError:
    with pytest.raises(ParseError) as info:
        parse_mlir(text)
    return info.value


def where(text: str, needle: str, occurrence: int = 1) -> tuple[int, int]:
    """1-based line and column of the n-th occurrence of ``needle``."""
    pos = -1
    for _ in range(occurrence):
        pos = text.index(needle, pos + 1)
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


_GOOD = """func.func @f(%a: tensor<2xi32>) -> tensor<2xi32> {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %1 = stablehlo.add %a, %0 : tensor<2xi32>
  func.return %1 : tensor<2xi32>
}
"""


def test_the_reference_program_parses() -> None:
    (module,) = parse_mlir(_GOOD)
    assert [op.name for op in module.functions[0].body.blocks[0].operations] == [
        "stablehlo.constant",
        "stablehlo.add",
        "func.return",
    ]


@pytest.mark.parametrize(
    "broken, at, message",
    [
        # Truncated: the region never closes.
        (_GOOD[: _GOOD.index("  func.return")], "END", "'}' closing the region"),
        (_GOOD[: _GOOD.index("<[1, 2]>") + 3], "[1", "no closing '>'"),
        (_GOOD.replace("%a, %0 :", "%a, %0"), "tensor<2xi32>\n  func", "expected ':'"),
        # Unbalanced braces.
        (_GOOD + "}\n", "LAST }", "expected 'module' or 'func.func'"),
        (_GOOD.replace("-> tensor<2xi32> {", "-> tensor<2xi32> {{"), "{\n  %0", "an operation"),
        (_GOOD.replace("dense<[1, 2]>", "dense<[1, 2>"), "[1, 2>", "unbalanced '['"),
        # Bad types.
        (_GOOD.replace("%0 : tensor<2xi32>", "%0 : tensor<2xq32>"), "q32", "unknown element type"),
        (_GOOD.replace("(%a: tensor<2xi32>)", "(%a: tensor<2xi32)"), ") ->", "'>'"),
        (_GOOD.replace("(%a: tensor<2xi32>)", "(%a: sensor<2xi32>)"), "sensor", "expected a type"),
        # Bad dense literals.
        (_GOOD.replace("dense<[1, 2]>", "dense<[1, 2, 3]>"), "[1, 2, 3]", "shape [3]"),
        (_GOOD.replace("dense<[1, 2]>", "dense<[1, x]>"), "[1, x]", "invalid dense element"),
        (_GOOD.replace("dense<[1, 2]>", "dense<[1, 1.5]>"), "[1, 1.5]", "invalid dense element"),
        (_GOOD.replace("dense<[1, 2]>", "dense<[1, 5000000000]>"), "[1, 5", "out of range"),
        (_GOOD.replace("dense<[1, 2]>", 'dense<"0x0102">'), '"0x0102"', "hex data has 2 bytes"),
        # Unknown and misused SSA values.
        (_GOOD.replace("%a, %0 :", "%a, %9 :"), "%9", "use of undefined value %9"),
        (
            _GOOD.replace("%1 = stablehlo.add", "%0 = stablehlo.add"),
            "%0 = stablehlo.add",
            "redefinition of %0",
        ),
        (_GOOD.replace("%1 = stablehlo.add", "%1:2 = stablehlo.add"), "%1:2", "2 result names"),
        (
            _GOOD.replace("%a: tensor<2xi32>)", "%a: tensor<2xf32>)"),
            "%a, %0",
            "has type tensor<2xf32>",
        ),
        # Unknown ops and attributes.
        (_GOOD.replace("stablehlo.add", "stablehlo.frobnicate"), "stablehlo.frob", "unknown op"),
        (
            _GOOD.replace(
                "%1 = stablehlo.add %a, %0 : tensor<2xi32>",
                '%1 = stablehlo.add %a, %0 {k = "x} : tensor<2xi32>',
            ),
            '"x}',
            "unterminated string",
        ),
        (
            _GOOD.replace(
                "%1 = stablehlo.add %a, %0 : tensor<2xi32>",
                "%1 = stablehlo.add %a, %0 {k = #nope} : tensor<2xi32>",
            ),
            "#nope",
            "undefined attribute alias",
        ),
    ],
)
def test_errors_point_at_the_problem(broken: str, at: str, message: str) -> None:
    error = parse_error(broken)
    if at == "END":  # reported just after the last text
        end = len(broken.rstrip())
        line, column = broken.count("\n", 0, end) + 1, end - broken.rfind("\n", 0, end)
    elif at.startswith("LAST "):
        pos = broken.rindex(at[len("LAST ") :])
        line, column = broken.count("\n", 0, pos) + 1, pos - broken.rfind("\n", 0, pos)
    else:
        line, column = where(broken, at)
    assert message in error.message, error.message
    assert (error.line, error.column) == (line, column), str(error)
    assert "^" in str(error)  # the rendered message shows the line and a caret


def test_an_error_in_a_later_section_reports_the_file_line() -> None:
    text = _GOOD + "// -----\n" + _GOOD.replace("%a, %0 :", "%a, %bad :")
    error = parse_error(text)
    assert (error.line, error.column) == where(text, "%bad")
    assert error.source_line.strip().startswith("%1 = stablehlo.add")


def test_structure_errors() -> None:
    assert "one module" in parse_error("module {\n}\nmodule {\n}\n").message
    assert "'}' closing the module" in parse_error("module {\n" + _GOOD).message
    mixed = "func.func @f(%a: tensor<f32>, tensor<f32>) {\n  func.return\n}"
    assert "expected an argument name" in parse_error(mixed).message
    assert (
        "names its arguments"
        in parse_error("func.func @f(tensor<f32>) {\n  func.return\n}").message
    )


def test_constructs_xlapy_cannot_represent() -> None:
    with pytest.raises(UnimplementedError, match="module-level op 'sdy.manual_axes'"):
        parse_mlir('module {\n  sdy.manual_axes @mesh = <["x"=2]>\n}\n')
    with pytest.raises(UnimplementedError, match="successor blocks"):
        parse_mlir('func.func @f() {\n  "cf.br"()[^bb1] : () -> ()\n^bb1:\n  func.return\n}\n')
    with pytest.raises(UnimplementedError, match="pretty form of 'foo.bar'"):
        parse_mlir("func.func @f() {\n  foo.bar <<weird>>\n  func.return\n}\n")


# -- random single-character edits of valid sections -------------------------------------------

_SEEDS = [
    _GOOD,
    """module @m attributes {mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x3xf32> {a.b = "c"}, %arg1: tensor<f32>) -> (tensor<3xf32> {jax.result_info = ""}) {
    %0 = stablehlo.reduce(%arg0 init: %arg1) applies stablehlo.add across dimensions = [0] : (tensor<4x3xf32>, tensor<f32>) -> tensor<3xf32>
    %1:2 = stablehlo.while(%iterArg = %0, %iterArg_0 = %arg1) : tensor<3xf32>, tensor<f32>
    cond {
      %2 = stablehlo.compare  LT, %iterArg_0, %arg1,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    } do {
      %3 = stablehlo.broadcast_in_dim %iterArg_0, dims = [] : (tensor<f32>) -> tensor<3xf32>
      stablehlo.return %3, %iterArg_0 : tensor<3xf32>, tensor<f32>
    }
    %4 = stablehlo.slice %arg0 [0:2, 1:3:2] : (tensor<4x3xf32>) -> tensor<2x1xf32>
    %5 = stablehlo.constant dense<"0x0000803F000000400000404000008040"> : tensor<2x2xf32>
    %6 = stablehlo.dot_general %5, %5, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2xf32>
    stablehlo.custom_call @check.expect_close(%6, %6) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
    return %1#0 : tensor<3xf32>
  }
}
""",
    """func.func @g(%x: tensor<1x4x4x1xi64>, %k: tensor<3x3x1x1xi64>) {
  %r = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [4, 4], pad = [[1, 1], [1, 1]], lhs_dilate = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xi64>, tensor<3x3x1x1xi64>) -> tensor<1x2x2x1xi64>
  %g = "stablehlo.gather"(%x, %k) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4, 4, 1>, indices_are_sorted = false} : (tensor<1x4x4x1xi64>, tensor<3x3x1x1xi64>) -> tensor<3x4x4x1xi64>
  check.expect_eq_const %r, dense<[[[[1], [5]], [[10], [14]]]]> : tensor<1x2x2x1xi64>
  %c = stablehlo.constant dense<[(1.0, 2.0), (3.0, -4.0)]> : tensor<2xcomplex<f32>>
  %t = stablehlo.tuple %c, %r : tuple<tensor<2xcomplex<f32>>, tensor<1x2x2x1xi64>>
  %e = stablehlo.get_tuple_element %t[0] : (tuple<tensor<2xcomplex<f32>>, tensor<1x2x2x1xi64>>) -> tensor<2xcomplex<f32>>
  %p = interpreter.probe %e, probe_id = "p" : tensor<2xcomplex<f32>>
  %b = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  %q = "stablehlo.uniform_quantize"(%b) : (tensor<2xi1>) -> tensor<2x!quant.uniform<i8:f32, 0.1:-30>>
  func.return
}
// -----
func.func @h() -> tensor<?x3xf32, #stablehlo.bounds<4, ?>> {
  %0 = stablehlo.iota dim = 0 : tensor<4x3xf32>
  %1 = "stablehlo.reshape"(%0) {a = array<i64: 1, 2>, b = {c = @d}} : (tensor<4x3xf32>) -> tensor<?x3xf32, #stablehlo.bounds<4, ?>>
  func.return %1 : tensor<?x3xf32, #stablehlo.bounds<4, ?>>
}
""",
]
if (CONFORMANCE / "interpret").is_dir():
    _SEEDS += [
        (CONFORMANCE / "interpret" / name).read_text()
        for name in ("while.mlir", "reduce.mlir", "all_reduce.mlir", "printing.mlir")
        if (CONFORMANCE / "interpret" / name).is_file()
    ]

_ALPHABET = list('%@#!^:,=()[]{}<>"x0123456789.-+? \nabfiusT') + ["tensor", "->", "//", "dense"]


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
@given(
    seed=st.sampled_from(range(len(_SEEDS))),
    fraction=st.floats(0, 1),
    edit=st.sampled_from(["insert", "delete", "replace"]),
    char=st.sampled_from(_ALPHABET),
)
def test_single_character_edits_raise_only_parse_errors(seed, fraction, edit, char) -> None:
    text = _SEEDS[seed]
    i = int(fraction * len(text))
    if edit == "insert":
        text = text[:i] + char + text[i:]
    elif edit == "delete":
        text = text[:i] + text[i + 1 :]
    else:
        text = text[:i] + char + text[i + 1 :]
    try:
        parse_mlir(text)
    except (ParseError, UnimplementedError) as e:
        if isinstance(e, ParseError) and e.line is not None:
            assert 1 <= e.line <= text.count("\n") + 1
