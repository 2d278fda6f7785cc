"""Shape rules of dot, ragged-dot, scaled-dot, convolution, FFT, factorizations and batch norm.

Results come from operation_semantics.md's worked examples and XLA's shape
inference tests; dot, convolution, FFT and ragged-dot shapes are also compared
with JAX (which runs XLA's own shape functions) when it is installed.
"""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import xlapy.shape_inference.linalg  # noqa: F401  (registers the rules)
from xlapy import Shape
from xlapy.errors import InvalidArgumentError
from xlapy.hlo.attributes import parse_attribute
from xlapy.opcode import HloOpcode as Op
from xlapy.shape_inference import infer_shape
from xlapy.types import F32, S32
from xlapy.xla_data import (
    ConvolutionDimensionNumbers,
    FftType,
    Precision,
    Transpose,
    Window,
)

S = Shape.parse


def ok(opcode, operands, attrs=None, declared=None):
    return infer_shape(
        opcode, [S(o) for o in operands], attrs, declared=S(declared) if declared else None
    )


def same(opcode, operands, attrs, expected, declared=None):
    result = ok(opcode, operands, attrs, declared)
    assert result.compatible(S(expected)), f"{result} != {expected}"


def fails(opcode, operands, attrs=None, message="", declared=None):
    with pytest.raises(InvalidArgumentError, match=opcode.value) as info:
        ok(opcode, operands, attrs, declared)
    text = str(info.value)
    assert message in text, text
    for o in operands:
        assert str(S(o)) in text, text


def dot_attrs(lc=(), rc=(), lb=(), rb=()):
    return {
        "lhs_contracting_dims": tuple(lc),
        "rhs_contracting_dims": tuple(rc),
        "lhs_batch_dims": tuple(lb),
        "rhs_batch_dims": tuple(rb),
    }


def conv_attrs(window_text, labels, fgc=1, bgc=1):
    return {
        "window": parse_attribute(Op.CONVOLUTION, "window", window_text),
        "dim_labels": parse_attribute(Op.CONVOLUTION, "dim_labels", labels),
        "feature_group_count": fgc,
        "batch_group_count": bgc,
    }


# -- dot ------------------------------------------------------------------------------------


def test_dot_spec_table():
    # vector . vector -> scalar; matrix . vector -> vector; matrix . matrix -> matrix.
    same(Op.DOT, ["f32[5]", "f32[5]"], dot_attrs([0], [0]), "f32[]")
    same(Op.DOT, ["f32[3,5]", "f32[5]"], dot_attrs([1], [0]), "f32[3]")
    same(Op.DOT, ["f32[3,5]", "f32[5,4]"], dot_attrs([1], [0]), "f32[3,4]")


def test_dot_general_spec_examples():
    # The contracting example: {{1,2,3},{4,5,6}} . {{1,1,1},{2,2,2}} -> 2x2.
    same(Op.DOT, ["f32[2,3]", "f32[2,3]"], dot_attrs([1], [1]), "f32[2,2]")
    # The batch example: batch size 2 of 2x2 matrices.
    same(Op.DOT, ["f32[2,2,2]", "f32[2,2,2]"], dot_attrs([2], [1], [0], [0]), "f32[2,2,2]")
    # The batch-matmul table.
    same(Op.DOT, ["f32[7,3,5]", "f32[7,5,4]"], dot_attrs([2], [1], [0], [0]), "f32[7,3,4]")
    same(
        Op.DOT,
        ["f32[7,6,3,5]", "f32[7,6,5,4]"],
        dot_attrs([3], [2], [0, 1], [0, 1]),
        "f32[7,6,3,4]",
    )


def test_dot_result_order_batch_then_lhs_then_rhs():
    same(Op.DOT, ["f32[4,2,3]", "f32[3,5,4]"], dot_attrs([2], [0], [0], [2]), "f32[4,2,5]")
    same(Op.DOT, ["f32[2,3]", "f32[4]"], dot_attrs(), "f32[2,3,4]")  # outer product


def test_dot_element_types():
    # Mixed operand types: the stated result type wins, else the higher precision one.
    same(Op.DOT, ["s8[32,32]", "s16[32,32]"], dot_attrs([1], [0]), "s32[32,32]", "s32[32,32]")
    same(Op.DOT, ["bf16[2,3]", "f32[3,4]"], dot_attrs([1], [0]), "f32[2,4]")
    same(Op.DOT, ["bf16[2,3]", "f16[3,4]"], dot_attrs([1], [0]), "bf16[2,4]")
    same(Op.DOT, ["s8[2,3]", "u8[3,4]"], dot_attrs([1], [0]), "s8[2,4]")
    same(Op.DOT, ["c64[2,3]", "f64[3,4]"], dot_attrs([1], [0]), "c64[2,4]")
    same(Op.DOT, ["bf16[2,3]", "bf16[3,4]"], dot_attrs([1], [0]), "f32[2,4]", "f32[2,4]")


def test_dot_dynamic_dimensions_propagate():
    same(Op.DOT, ["f32[<=4,3]", "f32[3,5]"], dot_attrs([1], [0]), "f32[<=4,5]")


def test_dot_operand_precision():
    attrs = dot_attrs([1], [0]) | {"operand_precision": (Precision.HIGH, Precision.DEFAULT)}
    same(Op.DOT, ["f32[2,3]", "f32[3,4]"], attrs, "f32[2,4]")
    attrs["operand_precision"] = (Precision.HIGH,)
    fails(Op.DOT, ["f32[2,3]", "f32[3,4]"], attrs, "operand_precision has 1 entries")


def test_dot_invalid():
    fails(Op.DOT, ["f32[2,3]", "f32[4,5]"], dot_attrs([1], [0]), "contracting dimension sizes")
    fails(
        Op.DOT,
        ["f32[2,2,3]", "f32[3,3,4]"],
        dot_attrs([2], [1], [0], [0]),
        "batch dimension sizes differ",
    )
    fails(Op.DOT, ["f32[2,3]", "f32[3,4]"], dot_attrs([2], [0]), "outside [0, 2)")
    fails(Op.DOT, ["f32[2,3]", "f32[3,4]"], dot_attrs([1], []), "same number")
    fails(Op.DOT, ["f32[2,3]", "f32[3,4]"], dot_attrs([1, 1], [0, 0]), "repeats")
    fails(Op.DOT, ["f32[3,3]", "f32[3,3]"], dot_attrs([0], [0], [0], [1]), "both batch and")
    fails(Op.DOT, ["(f32[2])", "f32[2]"], dot_attrs([0], [0]), "must be an array")
    fails(Op.DOT, ["f32[2]"], dot_attrs([0], [0]), "takes 2 operands")


# -- ragged-dot -----------------------------------------------------------------------------


def ragged_attrs(lc, rc, lb=(), rb=(), ragged=(), group=()):
    return dot_attrs(lc, rc, lb, rb) | {
        "lhs_ragged_dims": tuple(ragged),
        "rhs_group_dims": tuple(group),
    }


def test_ragged_dot_modes():
    # mode 1, ragged non-contracting: [m,k], [g,k,n], [g] -> [m,n]
    same(
        Op.RAGGED_DOT,
        ["f32[11,5]", "f32[3,5,7]", "u32[3]"],
        ragged_attrs([1], [1], ragged=[0], group=[0]),
        "f32[11,7]",
    )
    # mode 2, ragged contracting: [m,k], [k,n], [g] -> [g,m,n]
    same(
        Op.RAGGED_DOT,
        ["f32[11,5]", "f32[5,7]", "u32[3]"],
        ragged_attrs([1], [0], ragged=[1]),
        "f32[3,11,7]",
    )
    # mode 3, ragged batch: [b,m,k], [b,k,n], [g] -> [b,m,n]
    same(
        Op.RAGGED_DOT,
        ["f32[3,11,5]", "f32[3,5,7]", "u32[3]"],
        ragged_attrs([2], [1], [0], [0], ragged=[0]),
        "f32[3,11,7]",
    )
    # A stated result type (preferred_element_type).
    same(Op.RAGGED_DOT, ["s8[11,5]", "s8[5,7]", "u32[3]"], ragged_attrs([1], [0], ragged=[1]), "s32[3,11,7]", "s32[3,11,7]")  # fmt: skip


def test_ragged_dot_vectorized_group_sizes():
    # [b1,b2,m1,m2,k] x [g,b1,b2,k,n] with group sizes [b1,b2,m1,g] or just [g].
    attrs = ragged_attrs([4], [3], [0, 1], [1, 2], ragged=[3], group=[0])
    operands = ["f32[64,64,32,32,128]", "f32[3,64,64,128,32]"]
    same(Op.RAGGED_DOT, operands + ["u32[64,64,32,3]"], attrs, "f32[64,64,32,32,32]")
    same(Op.RAGGED_DOT, operands + ["u32[3]"], attrs, "f32[64,64,32,32,32]")
    # When m2 is ragged the vectorized group sizes are [b, m1, g].
    fails(
        Op.RAGGED_DOT,
        ["f32[19,17,11,5]", "f32[3,19,5,7]", "u32[19,11,3]"],
        ragged_attrs([3], [2], [0], [1], ragged=[2], group=[0]),
        "group_sizes is expected to have shape [19, 17, 3]",
    )
    # Ragged contracting k2: [b, k1, g].
    fails(
        Op.RAGGED_DOT,
        ["f32[19,11,17,5]", "f32[19,17,5,7]", "u32[19,11,3]"],
        ragged_attrs([2, 3], [1, 2], [0], [0], ragged=[3]),
        "group_sizes is expected to have shape [19, 17, 3]",
    )
    # Ragged batch b2: [b1, g].
    fails(
        Op.RAGGED_DOT,
        ["f32[17,19,11,5]", "f32[17,19,5,7]", "u32[19,3]"],
        ragged_attrs([3], [2], [0, 1], [0, 1], ragged=[1]),
        "group_sizes is expected to have shape [17, 3]",
    )


def test_ragged_dot_invalid():
    base = ["f32[11,5]", "f32[3,5,7]", "u32[3]"]
    fails(Op.RAGGED_DOT, ["f32[11,5]", "f32[3,2,7]", "u32[3]"], ragged_attrs([1], [1], ragged=[0], group=[0]), "contracting dimension sizes differ")  # fmt: skip
    fails(Op.RAGGED_DOT, base, ragged_attrs([1], [1], ragged=[0, 1], group=[0]), "exactly one ragged dimension")  # fmt: skip
    fails(Op.RAGGED_DOT, base, ragged_attrs([1], [1], ragged=[2], group=[0]), "lhs ragged dimension 2 is out of range [0, 2)")  # fmt: skip
    fails(Op.RAGGED_DOT, ["f32[11,5]", "f32[3,5,7]", "u32[2,3]"], ragged_attrs([1], [1], ragged=[0], group=[0]), "expected group_sizes to have rank 1, got 2")  # fmt: skip
    fails(Op.RAGGED_DOT, ["f32[11,5]", "f32[3,5,7]", "u32[2]"], ragged_attrs([1], [1], ragged=[0], group=[0]), "expected to have size=2 (the number of group sizes), got 3")  # fmt: skip
    fails(Op.RAGGED_DOT, ["f32[19,11,5]", "f32[19,5,7]", "u32[19,3]"], ragged_attrs([2], [1], [0], [0], ragged=[1], group=[0]), "cannot be a batch or contracting dimension")  # fmt: skip
    fails(Op.RAGGED_DOT, ["f32[11,3]", "f32[3,3,7]", "u32[3]"], ragged_attrs([1], [1], ragged=[0], group=[1]), "cannot be a batch or contracting dimension")  # fmt: skip
    fails(Op.RAGGED_DOT, ["f32[2,11,5]", "f32[3,2,5,7]", "u32[3]"], ragged_attrs([2], [2], [0], [1], ragged=[0], group=[0]), "zero group dimensions")  # fmt: skip
    fails(Op.RAGGED_DOT, base, ragged_attrs([1], [1], ragged=[1], group=[0]), "zero group dimensions")  # fmt: skip
    fails(Op.RAGGED_DOT, ["f32[11,5]", "f32[5,7]", "u32[3]"], ragged_attrs([1], [0], ragged=[0]), "exactly one group dimension")  # fmt: skip
    fails(Op.RAGGED_DOT, ["f32[11,5]", "f32[3,5,7]", "f32[3]"], ragged_attrs([1], [1], ragged=[0], group=[0]), "integer element type")  # fmt: skip


# -- scaled-dot -----------------------------------------------------------------------------


def test_scaled_dot():
    # MXFP8: block size 32 along the contracting dimension (XLA's block-scaling tests).
    operands = ["f8e4m3fn[32,256]", "f8e4m3fn[16,256]", "f8e8m0fnu[32,8]", "f8e8m0fnu[16,8]"]
    same(Op.SCALED_DOT, operands, dot_attrs([1], [1]), "f32[32,16]", "f32[32,16]")
    operands = ["f8e5m2[128,128]", "f8e5m2[128,256]", "f8e8m0fnu[128,4]", "f8e8m0fnu[4,256]"]
    same(Op.SCALED_DOT, operands, dot_attrs([1], [0]), "bf16[128,256]", "bf16[128,256]")
    # A size-1 scale broadcasts over the whole operand.
    operands = ["bf16[4,4]", "bf16[4,4]", "bf16[1,1]", "bf16[1,1]"]
    same(Op.SCALED_DOT, operands, dot_attrs([1], [1]), "bf16[4,4]")


def test_scaled_dot_invalid():
    fails(
        Op.SCALED_DOT,
        ["f8e4m3fn[32,256]", "f8e4m3fn[16,256]", "f8e8m0fnu[32,7]", "f8e8m0fnu[16,8]"],
        dot_attrs([1], [1]),
        "must be a multiple of lhs_scale dimension 1",
    )
    fails(
        Op.SCALED_DOT,
        ["f8e4m3fn[32,256]", "f8e4m3fn[16,256]", "f8e8m0fnu[32,8]", "f8e8m0fnu[8]"],
        dot_attrs([1], [1]),
        "must have the rank of rhs",
    )
    fails(
        Op.SCALED_DOT,
        ["f8e4m3fn[32,256]", "f8e4m3fn[16,128]", "f8e8m0fnu[32,8]", "f8e8m0fnu[16,8]"],
        dot_attrs([1], [1]),
        "contracting dimension sizes differ",
    )
    fails(Op.SCALED_DOT, ["f32[2,2]", "f32[2,2]"], dot_attrs([1], [0]), "takes 4 operands")


# -- convolution ---------------------------------------------------------------------------


def test_convolution_basic_and_spec_layouts():
    # NCHW input, OIHW kernel: batch, then output-z, then one value per window placement.
    attrs = conv_attrs("{size=3x3}", "bf01_oi01->bf01")
    same(Op.CONVOLUTION, ["f32[2,3,10,10]", "f32[8,3,3,3]"], attrs, "f32[2,8,8,8]")
    # SAME-style padding keeps the spatial size; strides divide it (rounding up).
    attrs = conv_attrs("{size=3x3 stride=2x2 pad=1_1x1_1}", "b01f_01io->b01f")
    same(Op.CONVOLUTION, ["f32[2,10,10,3]", "f32[3,3,3,8]"], attrs, "f32[2,5,5,8]")
    # lhs dilation (transposed convolution) and rhs dilation (atrous convolution).
    attrs = conv_attrs("{size=3 lhs_dilate=2}", "bf0_oi0->bf0")
    same(Op.CONVOLUTION, ["f32[1,1,5]", "f32[1,1,3]"], attrs, "f32[1,1,7]")
    attrs = conv_attrs("{size=3 rhs_dilate=2}", "bf0_oi0->bf0")
    same(Op.CONVOLUTION, ["f32[1,1,9]", "f32[1,1,3]"], attrs, "f32[1,1,5]")
    # Negative padding removes elements; a window larger than the base fits nowhere.
    attrs = conv_attrs("{size=2 pad=-1_-1}", "bf0_oi0->bf0")
    same(Op.CONVOLUTION, ["f32[1,1,6]", "f32[1,1,2]"], attrs, "f32[1,1,3]")
    attrs = conv_attrs("{size=4}", "bf0_oi0->bf0")
    same(Op.CONVOLUTION, ["f32[1,1,3]", "f32[1,1,4]"], attrs, "f32[1,1,0]")
    # No spatial dimensions: a matrix product between features.
    attrs = {"dim_labels": parse_attribute(Op.CONVOLUTION, "dim_labels", "bf_io->bf")}
    same(Op.CONVOLUTION, ["f32[4,3]", "f32[3,5]"], attrs, "f32[4,5]")


def test_convolution_groups():
    # Depthwise: feature_group_count = input features, kernel input features 1.
    attrs = conv_attrs("{size=3x3}", "b01f_01io->b01f", fgc=8)
    same(Op.CONVOLUTION, ["f32[1,10,10,8]", "f32[3,3,1,16]"], attrs, "f32[1,8,8,16]")
    # Batch groups: output batch = input batch / batch_group_count.
    attrs = conv_attrs("{size=3}", "bf0_oi0->bf0", bgc=4)
    same(Op.CONVOLUTION, ["f32[8,2,5]", "f32[12,2,3]"], attrs, "f32[2,12,3]")


def test_convolution_types_and_dynamic():
    attrs = conv_attrs("{size=3}", "bf0_oi0->bf0")
    same(Op.CONVOLUTION, ["s8[1,2,5]", "s8[4,2,3]"], attrs, "s32[1,4,3]", "s32[1,4,3]")
    same(Op.CONVOLUTION, ["bf16[1,2,5]", "f32[4,2,3]"], attrs, "f32[1,4,3]")
    same(Op.CONVOLUTION, ["f32[<=3,2,<=5]", "f32[4,2,3]"], attrs, "f32[<=3,4,<=3]")


def test_convolution_invalid():
    lhs, rhs = "f32[2,3,10,10]", "f32[8,3,3,3]"
    labels = "bf01_oi01->bf01"
    fails(Op.CONVOLUTION, [lhs, rhs], conv_attrs("{size=3x3}", labels, fgc=0), "feature_group_count must be a positive")  # fmt: skip
    fails(Op.CONVOLUTION, [lhs, rhs], conv_attrs("{size=3x3}", labels, bgc=-1), "batch_group_count must be a positive")  # fmt: skip
    fails(Op.CONVOLUTION, [lhs, rhs], conv_attrs("{size=3x3}", labels, fgc=2, bgc=2), "cannot both be")  # fmt: skip
    fails(Op.CONVOLUTION, [lhs, rhs], conv_attrs("{size=3}", "bf0_oi0->bf0"), "must have rank 3")
    fails(Op.CONVOLUTION, [lhs, rhs], conv_attrs("{size=3}", labels), "the window has 1 dimensions")  # fmt: skip
    fails(Op.CONVOLUTION, [lhs, rhs], conv_attrs("{size=3x2}", labels), "window sizes [3, 2] do not match")  # fmt: skip
    fails(Op.CONVOLUTION, [lhs, "f32[8,4,3,3]"], conv_attrs("{size=3x3}", labels), "lhs feature dimension (size 3)")  # fmt: skip
    fails(Op.CONVOLUTION, ["f32[2,4,10,10]", "f32[6,1,3,3]"], conv_attrs("{size=3x3}", labels, fgc=4), "divisible by feature_group_count (4)")  # fmt: skip
    fails(Op.CONVOLUTION, ["f32[4,3,10,10]", "f32[6,3,3,3]"], conv_attrs("{size=3x3}", labels, bgc=4), "multiple of batch_group_count (4)")  # fmt: skip
    fails(Op.CONVOLUTION, ["f32[3,3,10,10]", "f32[4,3,3,3]"], conv_attrs("{size=3x3}", labels, bgc=2), "batch dimension (size 3) must be divisible")  # fmt: skip
    fails(Op.CONVOLUTION, ["f32[1,1,4]", "f32[1,1,1]"], conv_attrs("{size=1 pad=-3_-3}", "bf0_oi0->bf0"), "removes more than")  # fmt: skip
    bad = ConvolutionDimensionNumbers(0, 1, (2, 5), 1, 0, (2, 3), 0, 1, (2, 3))
    attrs = {"window": Window.make([3, 3]), "dim_labels": bad}
    fails(Op.CONVOLUTION, [lhs, rhs], attrs, "must contain each dimension 0..3")


def _jax():
    return pytest.importorskip("jax", reason="JAX cross-checks need jax installed")


def _jax_shape(fn, *shapes):
    jax = _jax()
    import jax.numpy as jnp

    args = [jax.ShapeDtypeStruct(tuple(s), jnp.float32) for s in shapes]
    return tuple(jax.eval_shape(fn, *args).shape)


def _conv_case(data):
    """A random convolution: layouts, sizes, strides, padding, dilations and groups."""
    n = data.draw(st.integers(1, 3), label="spatial")
    rank = n + 2
    lhs_perm = data.draw(st.permutations(range(rank)), label="lhs_perm")
    rhs_perm = data.draw(st.permutations(range(rank)), label="rhs_perm")
    out_perm = data.draw(st.permutations(range(rank)), label="out_perm")
    groups = data.draw(st.integers(1, 3), label="groups")
    by_batch = data.draw(st.booleans(), label="batch_groups")
    fgc, bgc = (1, groups) if by_batch else (groups, 1)
    in_per_group = data.draw(st.integers(1, 3))
    out_features = groups * data.draw(st.integers(1, 3))
    batch = bgc * data.draw(st.integers(1, 3))
    base = [data.draw(st.integers(1, 9)) for _ in range(n)]
    window = [data.draw(st.integers(1, 4)) for _ in range(n)]
    strides = [data.draw(st.integers(1, 3)) for _ in range(n)]
    lhs_dil = [data.draw(st.integers(1, 3)) for _ in range(n)]
    rhs_dil = [data.draw(st.integers(1, 3)) for _ in range(n)]
    padding = [(data.draw(st.integers(-1, 3)), data.draw(st.integers(-1, 3))) for _ in range(n)]
    # lhs_perm[k] is the position of logical dimension k (batch, feature, spatial...).
    lhs = [0] * rank
    for k, size in enumerate([batch, in_per_group * fgc] + base):
        lhs[lhs_perm[k]] = size
    rhs = [0] * rank
    for k, size in enumerate([out_features, in_per_group] + window):
        rhs[rhs_perm[k]] = size
    dn = ConvolutionDimensionNumbers(
        lhs_perm[0], lhs_perm[1], tuple(lhs_perm[2:]),
        rhs_perm[1], rhs_perm[0], tuple(rhs_perm[2:]),
        out_perm[0], out_perm[1], tuple(out_perm[2:]),
    )  # fmt: skip
    win = Window.make(window, strides, padding, lhs_dil, rhs_dil)
    attrs = {"window": win, "dim_labels": dn, "feature_group_count": fgc, "batch_group_count": bgc}
    jax_args = dict(
        window_strides=strides,
        padding=padding,
        lhs_dilation=lhs_dil,
        rhs_dilation=rhs_dil,
        dimension_numbers=(tuple(lhs_perm), tuple(rhs_perm), tuple(out_perm)),
        feature_group_count=fgc,
        batch_group_count=bgc,
    )
    return lhs, rhs, attrs, jax_args


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_convolution_matches_jax(data):
    _jax()
    from jax import lax

    lhs, rhs, attrs, jax_args = _conv_case(data)
    jax_args["dimension_numbers"] = lax.ConvDimensionNumbers(*jax_args["dimension_numbers"])
    operands = [Shape.array(F32, d) for d in (lhs, rhs)]
    try:
        expected = _jax_shape(lambda a, b: lax.conv_general_dilated(a, b, **jax_args), lhs, rhs)
    except (TypeError, ValueError):
        with pytest.raises(InvalidArgumentError):
            infer_shape(Op.CONVOLUTION, operands, attrs)
        return
    assert infer_shape(Op.CONVOLUTION, operands, attrs).dimensions == expected


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_dot_matches_jax(data):
    _jax()
    from jax import lax

    nb = data.draw(st.integers(0, 2))
    nc = data.draw(st.integers(0, 2))
    lf = data.draw(st.integers(0, 2))
    rf = data.draw(st.integers(0, 2))
    sizes = st.integers(1, 5)
    batch = [data.draw(sizes) for _ in range(nb)]
    contract = [data.draw(sizes) for _ in range(nc)]
    lhs_roles = data.draw(st.permutations(["b"] * nb + ["c"] * nc + ["f"] * lf))
    rhs_roles = data.draw(st.permutations(["b"] * nb + ["c"] * nc + ["f"] * rf))

    def layout(roles):
        dims, idx = [], {"b": [], "c": []}
        for pos, role in enumerate(roles):
            if role == "f":
                dims.append(data.draw(sizes))
            else:
                dims.append((batch if role == "b" else contract)[len(idx[role])])
                idx[role].append(pos)
        return dims, idx["b"], idx["c"]

    lhs, lb, lc = layout(lhs_roles)
    rhs, rb, rc = layout(rhs_roles)
    dn = ((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb)))
    expected = _jax_shape(lambda a, b: lax.dot_general(a, b, dn), lhs, rhs)
    result = infer_shape(
        Op.DOT, [Shape.array(F32, lhs), Shape.array(F32, rhs)], dot_attrs(lc, rc, lb, rb)
    )
    assert result.dimensions == expected


@pytest.mark.parametrize(
    "lhs, rhs, sizes, lc, rc, lb, rb, ragged, group",
    [
        ([11, 5], [3, 5, 7], [3], [1], [1], [], [], [0], [0]),
        ([11, 5], [5, 7], [3], [1], [0], [], [], [1], []),
        ([2, 11, 5], [3, 2, 5, 7], [3], [2], [2], [0], [1], [1], [0]),
        ([2, 11, 5], [2, 5, 7], [3], [2], [1], [0], [0], [2], []),
    ],
)
def test_ragged_dot_matches_jax(lhs, rhs, sizes, lc, rc, lb, rb, ragged, group):
    jax = _jax()
    import jax.numpy as jnp
    from jax import lax

    rd = lax.RaggedDotDimensionNumbers(
        dot_dimension_numbers=((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb))),
        lhs_ragged_dimensions=ragged,
        rhs_group_dimensions=group,
    )
    f = jax.ShapeDtypeStruct
    expected = jax.eval_shape(
        lambda a, b, g: lax.ragged_dot_general(a, b, g, rd),
        f(tuple(lhs), jnp.float32),
        f(tuple(rhs), jnp.float32),
        f(tuple(sizes), jnp.int32),
    ).shape
    operands = [Shape.array(F32, lhs), Shape.array(F32, rhs), Shape.array(S32, sizes)]
    result = infer_shape(Op.RAGGED_DOT, operands, ragged_attrs(lc, rc, lb, rb, ragged, group))
    assert result.dimensions == tuple(expected)


# -- fft --------------------------------------------------------------------------------


def fft(fft_type, lengths):
    return {"fft_type": fft_type, "fft_length": tuple(lengths)}


def test_fft_spec_semantics():
    same(Op.FFT, ["c64[4,8]"], fft(FftType.FFT, [8]), "c64[4,8]")
    same(Op.FFT, ["c128[2,4,8]"], fft(FftType.IFFT, [2, 4, 8]), "c128[2,4,8]")
    # RFFT(fft_length=[16]) has the same output shape as RFFT(fft_length=[17]).
    same(Op.FFT, ["f32[3,16]"], fft(FftType.RFFT, [16]), "c64[3,9]")
    same(Op.FFT, ["f32[3,17]"], fft(FftType.RFFT, [17]), "c64[3,9]")
    same(Op.FFT, ["f64[5,4,17]"], fft(FftType.RFFT, [4, 17]), "c128[5,4,9]")
    # IRFFT expands the innermost axis back to fft_length[-1].
    same(Op.FFT, ["c64[3,9]"], fft(FftType.IRFFT, [16]), "f32[3,16]")
    same(Op.FFT, ["c64[3,9]"], fft(FftType.IRFFT, [17]), "f32[3,17]")
    same(Op.FFT, ["c128[2,4,9]"], fft(FftType.IRFFT, [2, 4, 16]), "f64[2,4,16]")
    # Zero-sized innermost dimensions are preserved.
    same(Op.FFT, ["f32[3,0]"], fft(FftType.RFFT, [0]), "c64[3,0]")
    same(Op.FFT, ["c64[3,0]"], fft(FftType.IRFFT, [0]), "f32[3,0]")


def test_fft_invalid():
    fails(Op.FFT, ["f32[8]"], fft(FftType.FFT, [8]), "FFT needs a complex operand")
    fails(Op.FFT, ["c64[8]"], fft(FftType.RFFT, [8]), "RFFT needs an f32 or f64 operand")
    fails(Op.FFT, ["f32[9]"], fft(FftType.IRFFT, [16]), "IRFFT needs a complex operand")
    fails(Op.FFT, ["c64[2,2,2,2]"], fft(FftType.FFT, [2, 2, 2, 2]), "1 to 3 entries")
    fails(Op.FFT, ["c64[2,2,2,2]"], fft(FftType.FFT, []), "1 to 3 entries")
    fails(Op.FFT, ["c64[8]"], fft(FftType.FFT, [2, 8]), "rank at least 2")
    fails(Op.FFT, ["f32[3,16]"], fft(FftType.RFFT, [15]), "equal fft_length [15]")
    fails(Op.FFT, ["c64[3,8]"], fft(FftType.IRFFT, [16]), "fft_length[-1]/2+1 = 9")
    fails(Op.FFT, ["c64[3,9]"], fft(FftType.IRFFT, [4, 16]), "all but the innermost")
    fails(Op.FFT, ["c64[3,9]"], fft(FftType.IFFT, [8]), "equal fft_length [8]")


@pytest.mark.parametrize(
    "fft_type, dtype, shape, lengths",
    [
        ("FFT", "complex64", [3, 8], [8]),
        ("IFFT", "complex64", [2, 4, 6], [4, 6]),
        ("RFFT", "float32", [5, 4, 17], [4, 17]),
        ("RFFT", "float64", [10], [10]),
        ("IRFFT", "complex64", [3, 4, 9], [4, 16]),
        ("IRFFT", "complex128", [2, 3, 5, 4], [3, 5, 7]),
    ],
)
def test_fft_matches_jax(fft_type, dtype, shape, lengths):
    jax = _jax()
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from jax import lax

    try:
        out = jax.eval_shape(
            lambda x: lax.fft(x, getattr(lax.FftType, fft_type), tuple(lengths)),
            jax.ShapeDtypeStruct(tuple(shape), jnp.dtype(dtype)),
        )
    finally:
        jax.config.update("jax_enable_x64", False)
    types = {"complex64": "c64", "complex128": "c128", "float32": "f32", "float64": "f64"}
    operand = f"{types[dtype]}[{','.join(map(str, shape))}]"
    result = ok(Op.FFT, [operand], fft(FftType[fft_type], lengths))
    assert result.dimensions == tuple(out.shape)
    assert result.element_type.dtype == out.dtype


# -- cholesky and triangular-solve ----------------------------------------------------------


def test_cholesky():
    same(Op.CHOLESKY, ["f32[4,4]"], {"lower": True}, "f32[4,4]")
    same(Op.CHOLESKY, ["c64[2,3,5,5]"], {"lower": False}, "c64[2,3,5,5]")
    fails(Op.CHOLESKY, ["s32[4,4]"], {"lower": True}, "floating-point or complex")
    fails(Op.CHOLESKY, ["f32[4]"], {"lower": True}, "rank >= 2")
    fails(Op.CHOLESKY, ["f32[2,4,3]"], {"lower": True}, "two minor dimensions")


def tri(left_side, transpose=Transpose.NO_TRANSPOSE):
    return {"left_side": left_side, "lower": True, "unit_diagonal": False, "transpose_a": transpose}


def test_triangular_solve():
    # a is [..., M, M]; b is [..., M, K] when left_side, [..., K, M] otherwise.
    same(Op.TRIANGULAR_SOLVE, ["f32[4,4]", "f32[4,3]"], tri(True), "f32[4,3]")
    same(Op.TRIANGULAR_SOLVE, ["f32[4,4]", "f32[3,4]"], tri(False), "f32[3,4]")
    same(Op.TRIANGULAR_SOLVE, ["c64[2,5,5]", "c64[2,5,7]"], tri(True, Transpose.ADJOINT), "c64[2,5,7]")  # fmt: skip


def test_triangular_solve_invalid():
    fails(Op.TRIANGULAR_SOLVE, ["f32[4,4]", "f32[3,4]"], tri(True), "second-to-last dimension of b")  # fmt: skip
    fails(Op.TRIANGULAR_SOLVE, ["f32[4,4]", "f32[4,3]"], tri(False), "last dimension of b")
    fails(Op.TRIANGULAR_SOLVE, ["f32[4,3]", "f32[4,3]"], tri(True), "two minor dimensions")
    fails(Op.TRIANGULAR_SOLVE, ["f32[4,4]", "f64[4,3]"], tri(True), "same element type")
    fails(Op.TRIANGULAR_SOLVE, ["f32[2,4,4]", "f32[4,3]"], tri(True), "equal rank")
    fails(Op.TRIANGULAR_SOLVE, ["f32[2,4,4]", "f32[3,4,3]"], tri(True), "batch dimensions")
    fails(Op.TRIANGULAR_SOLVE, ["s32[4,4]", "s32[4,3]"], tri(True), "floating-point or complex")


# -- batch normalization --------------------------------------------------------------------


def test_batch_norm_shapes():
    attrs = {"epsilon": 0.001, "feature_index": 3}
    same(Op.BATCH_NORM_TRAINING, ["f32[2,4,4,3]", "f32[3]", "f32[3]"], attrs, "(f32[2,4,4,3], f32[3], f32[3])")  # fmt: skip
    same(Op.BATCH_NORM_INFERENCE, ["f32[2,4,4,3]"] + ["f32[3]"] * 4, attrs, "f32[2,4,4,3]")
    grad = ["f32[2,4,4,3]", "f32[3]", "f32[3]", "f32[3]", "f32[2,4,4,3]"]
    same(Op.BATCH_NORM_GRAD, grad, attrs, "(f32[2,4,4,3], f32[3], f32[3])")
    attrs = {"epsilon": 0.001, "feature_index": 1}
    same(Op.BATCH_NORM_TRAINING, ["bf16[8,5]", "bf16[5]", "bf16[5]"], attrs, "(bf16[8,5], bf16[5], bf16[5])")  # fmt: skip


def test_batch_norm_invalid():
    attrs = {"epsilon": 0.001, "feature_index": 1}
    fails(Op.BATCH_NORM_TRAINING, ["f32[2,3]", "f32[4]", "f32[3]"], attrs, "scale (operand 1) has 4 elements")  # fmt: skip
    fails(Op.BATCH_NORM_TRAINING, ["f32[2,3]", "f32[3]", "f32[3]"], {"epsilon": 0.1, "feature_index": 2}, "feature_index 2 is outside")  # fmt: skip
    fails(Op.BATCH_NORM_TRAINING, ["s32[2,3]", "s32[3]", "s32[3]"], attrs, "floating-point")
    fails(Op.BATCH_NORM_TRAINING, ["f32[2,3]", "f32[3,1]", "f32[3]"], attrs, "must have rank 1")
    fails(Op.BATCH_NORM_TRAINING, ["f32[2,3]", "s32[3]", "f32[3]"], attrs, "element type s32")
    fails(Op.BATCH_NORM_INFERENCE, ["f32[2,3]", "f32[3]", "f32[3]", "f32[2]", "f32[3]"], attrs, "mean (operand 3) has 2 elements")  # fmt: skip
    fails(Op.BATCH_NORM_INFERENCE, ["f32[2,3]", "f32[3]", "f32[3]"], attrs, "takes 5 operands")
    fails(Op.BATCH_NORM_INFERENCE, ["pred[2,3]"] + ["pred[3]"] * 4, attrs, "floating-point")
    fails(Op.BATCH_NORM_INFERENCE, ["f32[2,3]", "f32[3]", "f32[3]", "f32[3]", "s32[3]"], attrs, "variance (operand 4) has element type s32")  # fmt: skip
    fails(Op.BATCH_NORM_GRAD, ["f32[2,3]", "f32[3]", "f32[3]", "f32[3]", "f32[3,2]"], attrs, "grad_output (operand 4)")  # fmt: skip
    fails(Op.BATCH_NORM_GRAD, ["f32[2,3]", "f32[3]", "f32[3]", "f32[4]", "f32[2,3]"], attrs, "variance (operand 3)")  # fmt: skip
    fails(Op.BATCH_NORM_GRAD, ["f32[2,3]", "f32[3]", "f32[3]", "f32[3]", "f32[2,3]"], {"epsilon": 0.1}, "needs the attribute feature_index=")  # fmt: skip
