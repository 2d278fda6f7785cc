"""xlapy.ops.linalg: dots, convolutions, FFT, Cholesky, triangular solve, batch norm.

Every computation is checked three ways: the inferred shape, the HLO text
(xlapy's parser prints it back identically, and XLA's own parser reprints the
same instructions), and the values the real XLA computes from it, against
numpy/scipy references written independently here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np
import pytest
import scipy.linalg
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xlapy.builder import XlaBuilder, XlaComputation, XlaOp
from xlapy.hlo import parse_module
from xlapy.ops import linalg as la
from xlapy.ops import movement as mv
from xlapy.shape import Shape
from xlapy.testing import xla_oracle
from xlapy.testing.builders import expect_error, params, run
from xlapy.types import PrimitiveType
from xlapy.xla_data import (
    ConvolutionDimensionNumbers,
    DotDimensionNumbers,
    FftType,
    Padding,
    Precision,
    PrecisionAlgorithm,
    PrecisionConfig,
    RaggedDotDimensionNumbers,
    Transpose,
    make_padding,
)

S = Shape.parse
RNG = np.random.default_rng(1234)

# -- helpers ----------------------------------------------------------------------------------


def _instruction_lines(text: str) -> list[str]:
    """Instruction lines without the long form's % and /*index=N*/ decorations."""
    out = []
    for line in text.splitlines():
        if line.startswith("  "):
            line = re.sub(r"/\*index=\d+\*/", "", line.strip().replace("%", ""))
            out.append(line.removeprefix("ROOT "))
    return sorted(out)


def xla_reprint(text: str) -> str:
    pytest.importorskip("jax", reason="XLA's HLO parser comes with jax")
    from jax._src.lib import xla_client

    return xla_client.hlo.hlo_module_from_text(text).to_string()


def check_text(computation: XlaComputation) -> str:
    """xlapy parses the text back to the same text, and XLA prints the same instructions."""
    text = computation.to_hlo_text()
    assert parse_module(text).to_text() == text
    if xla_oracle.available():
        assert _instruction_lines(xla_reprint(text)) == _instruction_lines(text)
    return text


def build(fn: Callable[[XlaBuilder], XlaOp], name: str = "t") -> XlaComputation:
    b = XlaBuilder(name)
    return b.build(fn(b))


def text(element_type: str, dims: Sequence[int]) -> str:
    return f"{element_type}[{','.join(map(str, dims))}]"


def f32(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


# -- Dot --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lhs", "rhs", "result"),
    [
        ("f32[3]", "f32[3]", "f32[]"),  # vector dot vector: scalar
        ("f32[2,3]", "f32[3]", "f32[2]{0}"),  # matrix-vector
        ("f32[2,3]", "f32[3,4]", "f32[2,4]{1,0}"),  # matrix-matrix
    ],
)
def test_dot_spec_table(lhs: str, rhs: str, result: str) -> None:
    c = build(lambda b: la.Dot(*params(b, lhs, rhs)))
    assert c.program_shape.result == S(result)
    assert "lhs_contracting_dims={" + ("0" if lhs == "f32[3]" else "1") + "}" in check_text(c)
    x, y = f32(*S(lhs).dimensions), f32(*S(rhs).dimensions)
    (out,) = run(c, x, y)
    np.testing.assert_allclose(out, np.matmul(x, y), rtol=1e-5, atol=1e-5)


def test_dot_types_precision_and_preferred_element_type() -> None:
    def make(b: XlaBuilder) -> XlaOp:
        x, y, i, j = params(b, "f32[2,3]", "f32[3,2]", "s8[2,3]", "s8[3,2]")
        highest = PrecisionConfig((Precision.HIGHEST, Precision.HIGHEST))
        algorithm = PrecisionConfig(algorithm=PrecisionAlgorithm.ALG_DOT_F32_F32_F32)
        defaults = PrecisionConfig((Precision.DEFAULT, Precision.DEFAULT))
        return mv.Tuple(b, [
            la.Dot(x, y, precision_config=highest),
            la.Dot(x, y, precision_config=algorithm),
            la.Dot(x, y, precision_config=defaults),  # all-default: nothing printed
            la.Dot(i, j, preferred_element_type=PrimitiveType.S32),
            la.Dot(x, y, preferred_element_type=np.float64),
        ])  # fmt: skip

    c = build(make)
    shapes = [s.to_string(False) for s in c.program_shape.result.tuple_shapes]
    assert shapes == ["f32[2,2]", "f32[2,2]", "f32[2,2]", "s32[2,2]", "f64[2,2]"]
    text = check_text(c)
    assert "operand_precision={highest,highest}" in text
    assert "algorithm=dot_f32_f32_f32" in text
    assert text.count("operand_precision") == 1
    x, y = f32(2, 3), f32(3, 2)
    i = RNG.integers(-128, 127, (2, 3)).astype(np.int8)
    j = RNG.integers(-128, 127, (3, 2)).astype(np.int8)
    outs = run(c, x, y, i, j)
    for out in outs[:3]:
        np.testing.assert_allclose(out, x @ y, rtol=1e-5)
    np.testing.assert_array_equal(outs[3], i.astype(np.int32) @ j.astype(np.int32))
    assert outs[4].dtype == np.float64
    np.testing.assert_allclose(outs[4], x.astype(np.float64) @ y, rtol=1e-6)


def test_matmul_operator_builds_dot() -> None:
    c = build(lambda b: (lambda x, y: x @ y)(*params(b, "f32[2,3]", "f32[3]")))
    assert c.hlo_module.entry.root.opcode.value == "dot"


# -- DotGeneral -------------------------------------------------------------------------------


def test_dot_general_spec_contracting_example() -> None:
    lhs = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
    rhs = np.array([[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]], np.float32)
    dn = DotDimensionNumbers(lhs_contracting_dimensions=[1], rhs_contracting_dimensions=[1])
    c = build(lambda b: la.DotGeneral(*params(b, "f32[2,3]", "f32[2,3]"), dn))
    assert c.program_shape.result == S("f32[2,2]{1,0}")
    check_text(c)
    (out,) = run(c, lhs, rhs)
    np.testing.assert_array_equal(out, [[6.0, 12.0], [15.0, 30.0]])


def test_dot_general_spec_batch_example() -> None:
    lhs = np.array([[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]], np.float32)
    rhs = np.array([np.eye(2), np.eye(2)], np.float32)
    dn = DotDimensionNumbers([2], [1], [0], [0])
    c = build(lambda b: la.DotGeneral(*params(b, "f32[2,2,2]", "f32[2,2,2]"), dn))
    text = check_text(c)
    assert "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}" in text
    (out,) = run(c, lhs, rhs)
    np.testing.assert_array_equal(out, lhs)


@pytest.mark.parametrize(
    ("lhs", "rhs", "dn", "result", "einsum"),
    [
        ("f32[5,2,3]", "f32[5,3,4]", ([2], [1], [0], [0]), "f32[5,2,4]", "bmk,bkn->bmn"),
        (
            "f32[2,3,5,4]",
            "f32[2,4,6,5]",
            ([3, 2], [1, 3], [0], [0]),
            "f32[2,3,6]",
            "bmkl,blnk->bmn",
        ),  # fmt: skip
        ("f32[3,4]", "f32[2,5]", ([], [], [], []), "f32[3,4,2,5]", "ab,cd->abcd"),  # outer product
        ("f32[4,3,2]", "f32[2,3,4]", ([0], [2], [2], [0]), "f32[2,3,3]", "kmb,bnk->bmn"),
    ],
)
def test_dot_general_against_einsum(
    lhs: str, rhs: str, dn: tuple, result: str, einsum: str
) -> None:
    numbers = DotDimensionNumbers(*dn)
    c = build(lambda b: la.DotGeneral(*params(b, lhs, rhs), numbers))
    assert c.program_shape.result.to_string(False) == result
    check_text(c)
    x, y = f32(*S(lhs).dimensions), f32(*S(rhs).dimensions)
    (out,) = run(c, x, y)
    np.testing.assert_allclose(out, np.einsum(einsum, x, y), rtol=1e-4, atol=1e-5)


def test_dot_errors() -> None:
    expect_error(
        "Dot", lambda b: la.Dot(*params(b, "f32[2,3]", "f32[4,5]")), "f32[2,3]", "f32[4,5]",
        "contracting dimension sizes differ",
    )  # fmt: skip
    expect_error(
        "DotGeneral",
        lambda b: la.DotGeneral(*params(b, "f32[2,3]", "f32[3,4]"), DotDimensionNumbers([2], [0])),
        "f32[2,3]", "f32[3,4]", "lhs_contracting_dims",
    )  # fmt: skip
    expect_error(
        "Dot",
        lambda b: la.Dot(*params(b, "s32[2,3]", "s32[3]"), preferred_element_type=PrimitiveType.S8),
        "s32[2,3]", "narrower",
    )  # fmt: skip
    expect_error(
        "Dot",
        lambda b: la.Dot(*params(b, "f32[2,3]", "f32[3]"), PrecisionConfig([Precision.HIGH] * 3)),
        "f32[2,3]", "operand_precision has 3 entries",
    )  # fmt: skip
    expect_error("Dot", lambda b: la.Dot(*params(b, "f32[]", "f32[3]")), "f32[]", "rank >= 1")


# -- RaggedDot and ScaledDot (XLA:CPU cannot run them: shapes and text only) ---------------------


def _ragged(lhs_ragged: int, group: Sequence[int], contracting: tuple, batch: tuple = ((), ())):
    dot = DotDimensionNumbers(contracting[0], contracting[1], batch[0], batch[1])
    return RaggedDotDimensionNumbers(dot, [lhs_ragged], group)


@pytest.mark.parametrize(
    ("shapes", "dn", "result"),
    [
        # ragged rows: each group of lhs rows uses its own rhs matrix
        (("f32[11,5]", "f32[3,5,7]", "s32[3]"), _ragged(0, [0], ([1], [1])), "f32[11,7]"),
        # ragged contracting dimension: one result per group
        (("f32[11,5]", "f32[5,7]", "s32[3]"), _ragged(1, [], ([1], [0])), "f32[3,11,7]"),
        # ragged batch dimension behaves like dot
        (
            ("f32[4,11,5]", "f32[4,5,7]", "s32[3]"),
            _ragged(0, [], ([2], [1]), ([0], [0])),
            "f32[4,11,7]",
        ),  # fmt: skip
    ],
)
def test_ragged_dot_modes(shapes: tuple, dn: RaggedDotDimensionNumbers, result: str) -> None:
    c = build(lambda b: la.RaggedDot(*params(b, *shapes), dn))
    assert c.program_shape.result.to_string(False) == result
    text = check_text(c)
    assert "lhs_ragged_dims=" in text


def test_scaled_dot_shapes_and_text() -> None:
    dn = DotDimensionNumbers([1], [0])
    c = build(
        lambda b: la.ScaledDot(
            *params(b, "f8e4m3fn[4,32]", "f8e4m3fn[32,8]", "f8e8m0fnu[4,1]", "f8e8m0fnu[1,8]"),
            dn, preferred_element_type=PrimitiveType.F32,
        )
    )  # fmt: skip
    assert c.program_shape.result.to_string(False) == "f32[4,8]"
    assert "scaled-dot(" in check_text(c)


def test_ragged_and_scaled_dot_errors() -> None:
    expect_error(
        "RaggedDot",
        lambda b: la.RaggedDot(*params(b, "f32[11,5]", "f32[3,5,7]", "f32[3]"), _ragged(0, [0], ([1], [1]))),  # fmt: skip
        "f32[3]", "integer",
    )  # fmt: skip
    expect_error(
        "RaggedDot",
        lambda b: la.RaggedDot(*params(b, "f32[11,5]", "f32[3,5,7]", "s32[4]"), _ragged(0, [0], ([1], [1]))),  # fmt: skip
        "f32[3,5,7]", "s32[4]",
    )  # fmt: skip
    expect_error(
        "ScaledDot",
        lambda b: la.ScaledDot(*params(b, "f32[4,32]", "f32[32,8]", "f32[4,3]", "f32[1,8]"), DotDimensionNumbers([1], [0])),  # fmt: skip
        "f32[4,3]", "multiple of lhs_scale",
    )  # fmt: skip
    expect_error(
        "ScaledDot",
        lambda b: la.ScaledDot(*params(b, "f32[4,32]", "f32[32,8]", "f32[4]", "f32[1,8]"), DotDimensionNumbers([1], [0])),  # fmt: skip
        "f32[4]", "rank",
    )  # fmt: skip


# -- convolution --------------------------------------------------------------------------------


def _dilate(x: np.ndarray, axis: int, factor: int) -> np.ndarray:
    if factor == 1 or x.shape[axis] == 0:
        return x
    shape = list(x.shape)
    shape[axis] = (shape[axis] - 1) * factor + 1
    out = np.zeros(shape, x.dtype)
    index = [slice(None)] * x.ndim
    index[axis] = slice(None, None, factor)
    out[tuple(index)] = x
    return out


def _pad(x: np.ndarray, axis: int, low: int, high: int) -> np.ndarray:
    widths = [(0, 0)] * x.ndim
    widths[axis] = (max(low, 0), max(high, 0))
    x = np.pad(x, widths)
    index = [slice(None)] * x.ndim
    index[axis] = slice(max(-low, 0), x.shape[axis] - max(-high, 0))
    return x[tuple(index)]


def reference_conv(
    lhs: np.ndarray,
    rhs: np.ndarray,
    strides: Sequence[int],
    padding: Sequence[tuple[int, int]],
    lhs_dilation: Sequence[int],
    rhs_dilation: Sequence[int],
    dn: ConvolutionDimensionNumbers,
    feature_group_count: int = 1,
    batch_group_count: int = 1,
    reversal: Sequence[bool] = (),
) -> np.ndarray:
    """The spec's convolution, written from its description with numpy loops."""
    n = len(strides)
    x = np.transpose(lhs, [dn.input_batch_dimension, dn.input_feature_dimension, *dn.input_spatial_dimensions]).astype(np.float64)  # fmt: skip
    w = np.transpose(rhs, [dn.kernel_output_feature_dimension, dn.kernel_input_feature_dimension, *dn.kernel_spatial_dimensions]).astype(np.float64)  # fmt: skip
    for i in range(n):
        x = _pad(_dilate(x, 2 + i, lhs_dilation[i]), 2 + i, *padding[i])
        if reversal and reversal[i]:
            w = np.flip(w, 2 + i)
        w = _dilate(w, 2 + i, rhs_dilation[i])
    (batch, _), (out_features, in_group), window = x.shape[:2], w.shape[:2], w.shape[2:]
    out_spatial = [max((x.shape[2 + i] - window[i]) // strides[i] + 1, 0) for i in range(n)]
    full = np.zeros([batch, out_features, *out_spatial])
    per_group = out_features // feature_group_count
    for pos in np.ndindex(*out_spatial):
        index = tuple(slice(p * s, p * s + k) for p, s, k in zip(pos, strides, window, strict=True))
        patch = x[(slice(None), slice(None), *index)]
        for g in range(feature_group_count):
            xs = patch[:, g * in_group : (g + 1) * in_group]
            ws = w[g * per_group : (g + 1) * per_group]
            full[(slice(None), slice(g * per_group, (g + 1) * per_group), *pos)] = np.tensordot(
                xs, ws, axes=(range(1, xs.ndim), range(1, ws.ndim))
            )
    # batch groups: output feature group g sees only lhs batch group g (contiguous chunks)
    out_batch = batch // batch_group_count
    feature_chunk = out_features // batch_group_count
    result = np.zeros([out_batch, out_features, *out_spatial])
    for o in range(out_features):
        result[:, o] = full[
            o // feature_chunk * out_batch : (o // feature_chunk + 1) * out_batch, o
        ]
    canonical = [dn.output_batch_dimension, dn.output_feature_dimension, *dn.output_spatial_dimensions]  # fmt: skip
    return np.transpose(result, np.argsort(canonical))


def _conv_case(c: XlaComputation, lhs: np.ndarray, rhs: np.ndarray, expected: np.ndarray) -> None:
    assert c.program_shape.result.dimensions == expected.shape
    check_text(c)
    (out,) = run(c, lhs, rhs)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)


DEFAULT2 = ConvolutionDimensionNumbers.default(2)
NHWC = ConvolutionDimensionNumbers(0, 3, [1, 2], 2, 3, [0, 1], 0, 3, [1, 2])  # b01f_01io->b01f


def test_conv_hand_computed_1d() -> None:
    # out[o] = sum_k in[o*2 + k - 1] * w[k] with one zero of padding at the low end
    lhs = np.array([[[1.0, 2.0, 3.0, 4.0, 5.0]]], np.float32)
    rhs = np.array([[[1.0, 10.0, 100.0]]], np.float32)
    c = build(lambda b: la.ConvWithGeneralPadding(*params(b, "f32[1,1,5]", "f32[1,1,3]"), [2], [(1, 0)]))  # fmt: skip
    assert c.program_shape.result == S("f32[1,1,2]{2,1,0}")
    assert "window={size=3 stride=2 pad=1_0}, dim_labels=bf0_oi0->bf0" in check_text(c)
    (out,) = run(c, lhs, rhs)
    np.testing.assert_array_equal(out, [[[0 * 1 + 1 * 10 + 2 * 100, 2 + 30 + 400]]])


@pytest.mark.parametrize("padding", [Padding.SAME, Padding.VALID, "same"])
@pytest.mark.parametrize("strides", [(1, 1), (2, 3)])
def test_conv_same_and_valid(padding: Padding | str, strides: tuple[int, int]) -> None:
    lhs, rhs = f32(2, 3, 7, 6), f32(4, 3, 3, 2)
    c = build(lambda b: la.Conv(*params(b, "f32[2,3,7,6]", "f32[4,3,3,2]"), strides, padding))
    pad = Padding.SAME if padding != Padding.VALID else Padding.VALID
    if pad is Padding.SAME:  # SAME keeps ceil(size / stride) outputs
        assert c.program_shape.result.dimensions[2:] == tuple(-(-s // t) for s, t in zip((7, 6), strides, strict=True))  # fmt: skip
    pairs = make_padding((7, 6), (3, 2), strides, pad)
    _conv_case(c, lhs, rhs, reference_conv(lhs, rhs, strides, pairs, (1, 1), (1, 1), DEFAULT2))


def test_conv_with_general_dimensions_nhwc() -> None:
    lhs, rhs = f32(2, 6, 5, 3), f32(3, 2, 3, 4)
    c = build(lambda b: la.ConvWithGeneralDimensions(*params(b, "f32[2,6,5,3]", "f32[3,2,3,4]"), [1, 2], Padding.SAME, NHWC))  # fmt: skip
    assert "dim_labels=b01f_01io->b01f" in c.to_hlo_text()
    pairs = [(1, 1), (0, 1)]
    _conv_case(c, lhs, rhs, reference_conv(lhs, rhs, (1, 2), pairs, (1, 1), (1, 1), NHWC))


def test_conv_general_and_dilated() -> None:
    lhs, rhs = f32(1, 5, 6, 2), f32(2, 2, 2, 3)
    pads = [(2, -1), (0, 1)]
    c = build(lambda b: la.ConvGeneral(*params(b, "f32[1,5,6,2]", "f32[2,2,2,3]"), [1, 1], pads, NHWC))  # fmt: skip
    _conv_case(c, lhs, rhs, reference_conv(lhs, rhs, (1, 1), pads, (1, 1), (1, 1), NHWC))
    # lhs dilation (transposed convolution), rhs dilation (atrous) and kernel reversal
    lhs, rhs = f32(2, 2, 4, 5), f32(3, 2, 2, 3)
    c = build(
        lambda b: la.ConvGeneralDilated(
            *params(b, "f32[2,2,4,5]", "f32[3,2,2,3]"), [2, 1], [(1, 1), (2, 0)], [2, 1], [1, 2],
            DEFAULT2, window_reversal=[True, False],
        )
    )  # fmt: skip
    assert "lhs_dilate=2x1 rhs_dilate=1x2 rhs_reversal=1x0" in c.to_hlo_text()
    expected = reference_conv(lhs, rhs, (2, 1), [(1, 1), (2, 0)], (2, 1), (1, 2), DEFAULT2, reversal=(True, False))  # fmt: skip
    _conv_case(c, lhs, rhs, expected)


def test_conv_feature_and_batch_groups() -> None:
    # depthwise: feature_group_count = input features
    lhs, rhs = f32(2, 4, 5, 5), f32(8, 1, 3, 3)
    c = build(lambda b: la.Conv(*params(b, "f32[2,4,5,5]", "f32[8,1,3,3]"), [1, 1], Padding.VALID, feature_group_count=4))  # fmt: skip
    assert "feature_group_count=4" in c.to_hlo_text()
    _conv_case(c, lhs, rhs, reference_conv(lhs, rhs, (1, 1), [(0, 0)] * 2, (1, 1), (1, 1), DEFAULT2, 4))  # fmt: skip
    # batch groups, as used for filter gradients
    lhs, rhs = f32(6, 2, 4, 4), f32(6, 2, 2, 2)
    c = build(lambda b: la.Conv(*params(b, "f32[6,2,4,4]", "f32[6,2,2,2]"), [1, 1], Padding.VALID, batch_group_count=3))  # fmt: skip
    assert c.program_shape.result.dimensions == (2, 6, 3, 3)
    expected = reference_conv(lhs, rhs, (1, 1), [(0, 0)] * 2, (1, 1), (1, 1), DEFAULT2, 1, 3)
    _conv_case(c, lhs, rhs, expected)


def test_conv_precision_and_preferred_type() -> None:
    config = PrecisionConfig((Precision.HIGHEST, Precision.DEFAULT))
    c = build(lambda b: la.Conv(*params(b, "s8[1,2,4]", "s8[3,2,2]"), [1], Padding.VALID, precision_config=config, preferred_element_type=PrimitiveType.S32))  # fmt: skip
    assert c.program_shape.result == S("s32[1,3,3]{2,1,0}")
    assert "operand_precision={highest,default}" in check_text(c)
    lhs = RNG.integers(-100, 100, (1, 2, 4)).astype(np.int8)
    rhs = RNG.integers(-100, 100, (3, 2, 2)).astype(np.int8)
    (out,) = run(c, lhs, rhs)
    expected = reference_conv(lhs, rhs, (1,), [(0, 0)], (1,), (1,), ConvolutionDimensionNumbers.default(1))  # fmt: skip
    np.testing.assert_array_equal(out, expected.astype(np.int32))


def test_conv_errors() -> None:
    expect_error(
        "Conv", lambda b: la.Conv(*params(b, "f32[1,3,5,5]", "f32[4,2,3,3]"), [1, 1], Padding.SAME),
        "f32[1,3,5,5]", "f32[4,2,3,3]", "feature",
    )  # fmt: skip
    expect_error(
        "Conv", lambda b: la.Conv(*params(b, "f32[1,2,5,5]", "f32[4,2,3,3]"), [1, 1, 1], Padding.SAME),
        "f32[1,2,5,5]", "window_strides has 3 entries",
    )  # fmt: skip
    expect_error(
        "ConvWithGeneralPadding",
        lambda b: la.ConvWithGeneralPadding(*params(b, "f32[1,2,5]", "f32[4,2,3]"), [1], [(-4, -2)]),
        "f32[1,2,5]", "padding -4_-2",
    )  # fmt: skip
    expect_error(
        "Conv", lambda b: la.Conv(*params(b, "f32[1,2,5]", "f32[4,2,3,3]"), [1], Padding.VALID),
        "f32[1,2,5]", "same number of dimensions",
    )  # fmt: skip
    expect_error(
        "ConvGeneralDilated",
        lambda b: la.ConvGeneralDilated(*params(b, "f32[1,2,5]", "f32[4,2,3]"), [1], [(0, 0)], [0], [1], ConvolutionDimensionNumbers.default(1)),  # fmt: skip
        "f32[1,2,5]", "lhs_dilation must all be >= 1",
    )  # fmt: skip
    expect_error(
        "Conv", lambda b: la.Conv(*params(b, "f32[4,2,5]", "f32[4,2,3]"), [1], "VALID", batch_group_count=3),  # fmt: skip
        "f32[4,2,5]", "batch_group_count",
    )  # fmt: skip
    expect_error(
        "Conv", lambda b: la.Conv(*params(b, "f32[4,2,5]", "f32[4,2,3]"), [1], "VALID", precision_config=PrecisionConfig(algorithm=PrecisionAlgorithm.ALG_DOT_F32_F32_F32)),  # fmt: skip
        "f32[4,2,5]", "operand_precision",
    )  # fmt: skip


@st.composite
def conv_configs(draw: st.DrawFn) -> dict:
    n = draw(st.integers(1, 2))
    rank = n + 2
    inp, ker, out = (draw(st.permutations(list(range(rank)))) for _ in range(3))
    dn = ConvolutionDimensionNumbers(inp[0], inp[1], inp[2:], ker[0], ker[1], ker[2:], out[0], out[1], out[2:])  # fmt: skip
    groups = draw(st.sampled_from(["none", "feature", "batch"]))
    count = draw(st.integers(2, 3)) if groups != "none" else 1
    fgc = count if groups == "feature" else 1
    bgc = count if groups == "batch" else 1
    batch = draw(st.integers(1, 2)) * bgc
    in_group = draw(st.integers(1, 2))
    out_features = draw(st.integers(1, 2)) * count
    window = [draw(st.integers(1, 3)) for _ in range(n)]
    base = [draw(st.integers(1, 6)) for _ in range(n)]
    strides = [draw(st.integers(1, 3)) for _ in range(n)]
    lhs_dil = [draw(st.integers(1, 2)) for _ in range(n)]
    rhs_dil = [draw(st.integers(1, 2)) for _ in range(n)]
    padding = [(draw(st.integers(-1, 2)), draw(st.integers(-1, 2))) for _ in range(n)]
    reversal = [draw(st.booleans()) for _ in range(n)]
    for i in range(n):  # keep the padded, dilated base non-negative
        dilated = (base[i] - 1) * lhs_dil[i] + 1
        low, high = padding[i]
        if dilated + low + high < 0:
            padding[i] = (0, 0)
    lhs_dims = [0] * rank
    lhs_dims[dn.input_batch_dimension] = batch
    lhs_dims[dn.input_feature_dimension] = in_group * fgc
    rhs_dims = [0] * rank
    rhs_dims[dn.kernel_input_feature_dimension] = in_group
    rhs_dims[dn.kernel_output_feature_dimension] = out_features
    for i in range(n):
        lhs_dims[dn.input_spatial_dimensions[i]] = base[i]
        rhs_dims[dn.kernel_spatial_dimensions[i]] = window[i]
    return dict(
        dn=dn, fgc=fgc, bgc=bgc, lhs_dims=lhs_dims, rhs_dims=rhs_dims, strides=strides,
        padding=padding, lhs_dil=lhs_dil, rhs_dil=rhs_dil, reversal=reversal,
    )  # fmt: skip


@settings(
    max_examples=20, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(conv_configs())
def test_conv_random_configurations_match_numpy(config: dict) -> None:
    lhs_shape = Shape.array(PrimitiveType.F32, config["lhs_dims"])
    rhs_shape = Shape.array(PrimitiveType.F32, config["rhs_dims"])

    def make(b: XlaBuilder) -> XlaOp:
        x = mv.Parameter(b, 0, lhs_shape)
        w = mv.Parameter(b, 1, rhs_shape)
        return la.ConvGeneralDilated(
            x, w, config["strides"], config["padding"], config["lhs_dil"], config["rhs_dil"],
            config["dn"], config["fgc"], config["bgc"], window_reversal=config["reversal"],
        )  # fmt: skip

    c = build(make)
    lhs, rhs = f32(*config["lhs_dims"]), f32(*config["rhs_dims"])
    expected = reference_conv(
        lhs, rhs, config["strides"], config["padding"], config["lhs_dil"], config["rhs_dil"],
        config["dn"], config["fgc"], config["bgc"], config["reversal"],
    )  # fmt: skip
    _conv_case(c, lhs, rhs, expected)


# -- FFT ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("rank", [1, 2, 3])
def test_fft_all_types(rank: int) -> None:
    dims = [3, 4, 6, 5][: rank + 1]
    lengths = dims[1:]
    n = len(lengths)
    half = [*dims[:-1], dims[-1] // 2 + 1]
    real = f32(*dims)
    cplx = (f32(*dims) + 1j * f32(*dims)).astype(np.complex64)
    axes = tuple(range(-n, 0))
    spectrum = np.fft.rfftn(real, axes=axes).astype(np.complex64)

    def make(b: XlaBuilder) -> XlaOp:
        x, r, h = params(b, text("c64", dims), text("f32", dims), text("c64", half))
        return mv.Tuple(b, [
            la.Fft(x, FftType.FFT, lengths), la.Fft(x, "IFFT", lengths),
            la.Fft(r, FftType.RFFT, lengths), la.Fft(h, FftType.IRFFT, lengths),
        ])  # fmt: skip

    c = build(make)
    shapes = [s.dimensions for s in c.program_shape.result.tuple_shapes]
    assert shapes == [tuple(dims), tuple(dims), tuple(half), tuple(dims)]
    assert [s.element_type for s in c.program_shape.result.tuple_shapes] == [PrimitiveType.C64] * 3 + [PrimitiveType.F32]  # fmt: skip
    check_text(c)
    fft, ifft, rfft, irfft = run(c, cplx, real, spectrum)
    tol = dict(rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(fft, np.fft.fftn(cplx, axes=axes), **tol)
    np.testing.assert_allclose(ifft, np.fft.ifftn(cplx, axes=axes), **tol)
    np.testing.assert_allclose(rfft, np.fft.rfftn(real, axes=axes), **tol)
    np.testing.assert_allclose(irfft, np.fft.irfftn(spectrum, s=lengths, axes=axes), **tol)
    np.testing.assert_allclose(irfft, real, **tol)


def test_fft_errors() -> None:
    expect_error("Fft", lambda b: la.Fft(*params(b, "f32[8]"), FftType.FFT, [8]), "f32[8]", "complex")  # fmt: skip
    expect_error("Fft", lambda b: la.Fft(*params(b, "f32[8]"), FftType.RFFT, [6]), "f32[8]", "fft_length [6]")  # fmt: skip
    expect_error("Fft", lambda b: la.Fft(*params(b, "c64[2,2,2,2]"), FftType.FFT, [2] * 4), "c64[2,2,2,2]", "1 to 3")  # fmt: skip
    expect_error("Fft", lambda b: la.Fft(*params(b, "c64[8,4]"), FftType.IRFFT, [8]), "c64[8,4]", "fft_length[-1]/2+1")  # fmt: skip


# -- Cholesky and TriangularSolve -----------------------------------------------------------------


def spd(*batch: int, n: int = 4, dtype: type = np.float32) -> np.ndarray:
    a = RNG.standard_normal((*batch, n, n))
    if np.issubdtype(dtype, np.complexfloating):
        a = a + 1j * RNG.standard_normal((*batch, n, n))
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype)


@pytest.mark.parametrize(("dtype", "name"), [(np.float32, "f32"), (np.complex64, "c64")])
def test_cholesky_lower_and_upper(dtype: type, name: str) -> None:
    a = spd(2, dtype=dtype)

    def make(b: XlaBuilder) -> XlaOp:
        (p,) = params(b, f"{name}[2,4,4]")
        return mv.Tuple(b, [la.Cholesky(p, True), la.Cholesky(p, lower=False)])

    c = build(make)
    assert c.program_shape.result.tuple_shapes[0].to_string(False) == f"{name}[2,4,4]"
    text = check_text(c)
    assert text.count("lower=true") == 1
    lower, upper = run(c, a)
    expected = np.linalg.cholesky(a.astype(np.complex128))
    np.testing.assert_allclose(np.tril(lower), expected, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.triu(upper), np.conj(np.swapaxes(expected, -1, -2)), rtol=1e-4, atol=1e-4)  # fmt: skip


def test_cholesky_default_is_lower_and_errors() -> None:
    c = build(lambda b: la.Cholesky(*params(b, "f64[3,3]")))
    assert "lower=true" in check_text(c)
    expect_error("Cholesky", lambda b: la.Cholesky(*params(b, "f32[3,4]")), "f32[3,4]", "equal size")  # fmt: skip
    expect_error("Cholesky", lambda b: la.Cholesky(*params(b, "s32[3,3]")), "s32[3,3]", "floating-point")  # fmt: skip
    expect_error("Cholesky", lambda b: la.Cholesky(*params(b, "f32[3]")), "f32[3]", "rank >= 2")


def _solve_reference(
    a: np.ndarray, b: np.ndarray, left: bool, lower: bool, unit: bool, transpose: Transpose
) -> np.ndarray:
    trans = {Transpose.NO_TRANSPOSE: 0, Transpose.TRANSPOSE: 1, Transpose.ADJOINT: 2}[transpose]
    if left:  # op(a) x = b
        return scipy.linalg.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=unit)
    # x op(a) = b  <=>  op(a)^T x^T = b^T, and op(a)^T is a (transposed), a, or conj(a)
    if transpose is Transpose.NO_TRANSPOSE:
        xt = scipy.linalg.solve_triangular(a, b.T, trans=1, lower=lower, unit_diagonal=unit)
    elif transpose is Transpose.TRANSPOSE:
        xt = scipy.linalg.solve_triangular(a, b.T, trans=0, lower=lower, unit_diagonal=unit)
    else:
        xt = scipy.linalg.solve_triangular(np.conj(a), b.T, trans=0, lower=lower, unit_diagonal=unit)  # fmt: skip
    return xt.T


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("lower", [True, False])
def test_triangular_solve(left: bool, lower: bool) -> None:
    m, k = 4, 3
    a = (RNG.standard_normal((m, m)) + 1j * RNG.standard_normal((m, m)) + 4 * np.eye(m)).astype(np.complex64)  # fmt: skip
    b_shape = (m, k) if left else (k, m)
    rhs = (RNG.standard_normal(b_shape) + 1j * RNG.standard_normal(b_shape)).astype(np.complex64)
    cases = [(unit, t) for unit in (False, True) for t in Transpose if t is not Transpose.TRANSPOSE_INVALID]  # fmt: skip

    def make(b: XlaBuilder) -> XlaOp:
        pa, pb = params(b, "c64[4,4]", f"c64[{b_shape[0]},{b_shape[1]}]")
        return mv.Tuple(b, [la.TriangularSolve(pa, pb, left, lower, u, t) for u, t in cases])

    c = build(make)
    assert all(s.dimensions == b_shape for s in c.program_shape.result.tuple_shapes)
    text = check_text(c)
    assert "transpose_a=ADJOINT" in text and ("left_side=true" in text) == left
    outs = run(c, a, rhs)
    for out, (unit, t) in zip(outs, cases, strict=True):
        expected = _solve_reference(a.astype(np.complex128), rhs, left, lower, unit, t)
        np.testing.assert_allclose(out, expected, rtol=1e-3, atol=1e-4)


def test_triangular_solve_batched_real() -> None:
    a = (np.tril(RNG.standard_normal((2, 3, 3))) + 3 * np.eye(3)).astype(np.float32)
    rhs = f32(2, 3, 5)
    c = build(lambda b: la.TriangularSolve(*params(b, "f32[2,3,3]", "f32[2,3,5]"), True, True, False, "NO_TRANSPOSE"))  # fmt: skip
    assert c.program_shape.result == S("f32[2,3,5]{2,1,0}")
    check_text(c)
    (out,) = run(c, a, rhs)
    for i in range(2):
        expected = scipy.linalg.solve_triangular(a[i].astype(np.float64), rhs[i], lower=True)
        np.testing.assert_allclose(out[i], expected, rtol=1e-5, atol=1e-6)


def test_triangular_solve_errors() -> None:
    expect_error(
        "TriangularSolve", lambda b: la.TriangularSolve(*params(b, "f32[3,3]", "f32[4,2]"), True, True, False, Transpose.NO_TRANSPOSE),  # fmt: skip
        "f32[3,3]", "f32[4,2]", "second-to-last",
    )  # fmt: skip
    expect_error(
        "TriangularSolve", lambda b: la.TriangularSolve(*params(b, "f32[3,3]", "f64[3,2]"), True, True, False, Transpose.NO_TRANSPOSE),  # fmt: skip
        "f32[3,3]", "f64[3,2]", "same element type",
    )  # fmt: skip
    expect_error(
        "TriangularSolve", lambda b: la.TriangularSolve(*params(b, "f32[2,3,3]", "f32[3,3,2]"), True, True, False, Transpose.NO_TRANSPOSE),  # fmt: skip
        "f32[2,3,3]", "batch dimensions",
    )  # fmt: skip
    expect_error(
        "TriangularSolve", lambda b: la.TriangularSolve(*params(b, "f32[3,3]", "f32[3,2]"), True, True, False, "SIDEWAYS"),  # fmt: skip
        "transpose_a must be",
    )  # fmt: skip


# -- batch normalization ----------------------------------------------------------------------


def _moments(x: np.ndarray, feature: int) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    axes = tuple(i for i in range(x.ndim) if i != feature)
    mean = x.mean(axis=axes)
    var = ((x - np.expand_dims(mean, axes)) ** 2).mean(axis=axes)
    return mean, var, axes


def test_batch_norm_training_inference_and_grad() -> None:
    eps, fi = 1e-3, 1
    x = f32(4, 3, 2, 5) * 2 + 1
    scale, offset, mean_in = f32(3), f32(3), f32(3)
    var_in = np.abs(f32(3)) + 0.5
    dy = f32(4, 3, 2, 5)

    def make(b: XlaBuilder) -> XlaOp:
        px, ps, po, pm, pv, pdy = params(b, "f32[4,3,2,5]", "f32[3]", "f32[3]", "f32[3]", "f32[3]", "f32[4,3,2,5]")  # fmt: skip
        return mv.Tuple(b, [
            la.BatchNormTraining(px, ps, po, eps, fi),
            la.BatchNormInference(px, ps, po, pm, pv, eps, fi),
            la.BatchNormGrad(px, ps, pm, pv, pdy, eps, fi),
        ])  # fmt: skip

    c = build(make)
    training, inference, grad = c.program_shape.result.tuple_shapes
    assert training.to_string(False) == "(f32[4,3,2,5], f32[3], f32[3])"
    assert inference.to_string(False) == "f32[4,3,2,5]"
    assert grad.to_string(False) == "(f32[4,3,2,5], f32[3], f32[3])"
    assert "epsilon=0.001, feature_index=1" in check_text(c)
    y, mean, var, inf, gx, gscale, goffset = run(c, x, scale, offset, mean_in, var_in, dy)

    x, scale, offset, mean_in, var_in, dy = (
        a.astype(np.float64) for a in (x, scale, offset, mean_in, var_in, dy)
    )
    m, v, axes = _moments(x, fi)
    e = lambda a: np.expand_dims(a, axes)  # noqa: E731
    tol = dict(rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(mean, m, **tol)
    np.testing.assert_allclose(var, v, **tol)
    np.testing.assert_allclose(y, e(scale) * (x - e(m)) / np.sqrt(e(v) + eps) + e(offset), **tol)
    expected_inf = e(scale) * (x - e(mean_in)) / np.sqrt(e(var_in) + eps) + e(offset)
    np.testing.assert_allclose(inf, expected_inf, **tol)
    # The spec's gradient formulas, with the given moments.
    centered = x - e(mean_in)
    count = x.size / x.shape[fi]
    c_l = (dy * centered / (e(var_in) + eps)).sum(axis=axes) / count
    d_l = dy.sum(axis=axes) / count
    expected_gx = e(scale) / np.sqrt(e(var_in) + eps) * (dy - e(d_l) - e(c_l) * centered)
    np.testing.assert_allclose(gx, expected_gx, **tol)
    expected_gscale = (dy * centered / np.sqrt(e(var_in) + eps)).sum(axis=axes)
    np.testing.assert_allclose(gscale, expected_gscale, **tol)
    np.testing.assert_allclose(goffset, dy.sum(axis=axes), **tol)


def test_batch_norm_errors() -> None:
    expect_error(
        "BatchNormTraining", lambda b: la.BatchNormTraining(*params(b, "f32[2,3]", "f32[3]", "f32[3]"), 1e-3, 2),  # fmt: skip
        "f32[2,3]", "feature_index 2",
    )  # fmt: skip
    expect_error(
        "BatchNormInference", lambda b: la.BatchNormInference(*params(b, "f32[2,3]", "f32[3]", "f32[3]", "f32[4]", "f32[3]"), 1e-3, 1),  # fmt: skip
        "f32[4]", "mean (operand 3) has 4 elements",
    )  # fmt: skip
    expect_error(
        "BatchNormGrad", lambda b: la.BatchNormGrad(*params(b, "f32[2,3]", "f32[3]", "f32[3]", "f32[3]", "f32[3,2]"), 1e-3, 1),  # fmt: skip
        "f32[3,2]", "grad_output",
    )  # fmt: skip
    expect_error(
        "BatchNormTraining", lambda b: la.BatchNormTraining(*params(b, "s32[2,3]", "s32[3]", "s32[3]"), 1e-3, 1),  # fmt: skip
        "s32[2,3]", "floating-point",
    )  # fmt: skip
