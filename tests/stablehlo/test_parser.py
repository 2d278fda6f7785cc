"""What the StableHLO parser makes of each construct: types, attributes, dense
literals, op formats, regions, names and module structure."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

from xlapy.shape import UNBOUNDED_SIZE, Shape
from xlapy.stablehlo import ast
from xlapy.stablehlo.parse import parse_mlir, split_sections
from xlapy.types import PrimitiveType as P


def ops_of(body: str, args: str = "") -> list[ast.Operation]:
    (module,) = parse_mlir(f"func.func @f({args}) {{\n{body}\n  func.return\n}}")
    return module.functions[0].body.blocks[0].operations[:-1]


def op_of(body: str, args: str = "") -> ast.Operation:
    return ops_of(body, args)[-1]


def type_of(text: str) -> ast.MlirType:
    return op_of(f"%0 = stablehlo.custom_call @t() : () -> {text}").result_types[0]


def attr_of(text: str):
    return op_of(f"stablehlo.custom_call @t() {{a = {text}}} : () -> ()").attributes["a"]


def dense_of(text: str) -> np.ndarray:
    value = attr_of(text)
    assert isinstance(value, ast.DenseElements)
    return value.literal.to_numpy()


# -- types -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, element_type",
    [
        ("i1", P.PRED),
        ("i2", P.S2),
        ("i4", P.S4),
        ("i8", P.S8),
        ("i16", P.S16),
        ("i32", P.S32),
        ("i64", P.S64),
        ("ui2", P.U2),
        ("ui4", P.U4),
        ("ui8", P.U8),
        ("ui16", P.U16),
        ("ui32", P.U32),
        ("ui64", P.U64),
        ("f16", P.F16),
        ("bf16", P.BF16),
        ("f32", P.F32),
        ("f64", P.F64),
        ("f8E4M3FN", P.F8E4M3FN),
        ("f8E5M2", P.F8E5M2),
        ("f8E4M3FNUZ", P.F8E4M3FNUZ),
        ("f8E5M2FNUZ", P.F8E5M2FNUZ),
        ("f8E4M3B11FNUZ", P.F8E4M3B11FNUZ),
        ("f8E4M3", P.F8E4M3),
        ("f8E3M4", P.F8E3M4),
        ("f8E8M0FNU", P.F8E8M0FNU),
        ("f4E2M1FN", P.F4E2M1FN),
        ("complex<f32>", P.C64),
        ("complex<f64>", P.C128),
    ],
)
def test_element_types(text: str, element_type: P) -> None:
    t = type_of(f"tensor<2x3x{text}>")
    assert t.text == f"tensor<2x3x{text}>"
    assert t.shape == Shape.array(element_type, [2, 3])


def test_scalar_token_and_tuple_types() -> None:
    assert type_of("tensor<f32>").shape == Shape.array(P.F32, [])
    assert type_of("!stablehlo.token").shape == Shape.token()
    t = type_of("tuple<tensor<2xf32>, tuple<tensor<i64>, !stablehlo.token>>")
    assert t.shape == Shape.tuple(
        [Shape.array(P.F32, [2]), Shape.tuple([Shape.array(P.S64, []), Shape.token()])]
    )


def test_dynamic_dimensions() -> None:
    unbounded = type_of("tensor<?x3xf32>").shape
    assert unbounded.dimensions == (UNBOUNDED_SIZE, 3)
    assert unbounded.dynamic_dimensions == (True, False)
    bounded = type_of("tensor<?x3xf32, #stablehlo.bounds<4, ?>>").shape
    assert bounded.dimensions == (4, 3)
    assert bounded.dynamic_dimensions == (True, False)
    mixed = type_of("tensor<?x?xi8, #stablehlo.bounds<?, 7>>").shape
    assert mixed.dimensions == (UNBOUNDED_SIZE, 7)
    assert mixed.dynamic_dimensions == (True, True)


@pytest.mark.parametrize(
    "text",
    [
        "tensor<2x!quant.uniform<i8:f32, 0.1:-30>>",
        "!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>",
        "tensor<4xf6E2M3FN>",
        "tensor<2xindex>",
        "tensor<*xf32>",
        "tf32",
        "!some.type<x, y>",
        "tensor<3xf32, #sparse.encoding<foo>>",
    ],
)
def test_types_without_hlo_shape_keep_their_text(text: str) -> None:
    t = type_of(text)
    assert t.shape is None
    assert t.text == text


# -- attributes ------------------------------------------------------------------------------


def test_scalar_attributes() -> None:
    attrs = op_of(
        "stablehlo.custom_call @t() {i = 1 : i64, n = -3, big = 18446744073709551615 : ui64, "
        "f = 2.5 : f32, e = 1.000000e-05, nan = 0x7FC00000 : f32, h = 0xFC00 : f16, "
        'b = true, c = false, u, s = "a\\"b\\n\\41", hexint = 0x10 : i32} : () -> ()'
    ).attributes
    assert attrs["i"] == 1 and isinstance(attrs["i"], int)
    assert attrs["n"] == -3
    assert attrs["big"] == 2**64 - 1
    assert attrs["f"] == 2.5 and isinstance(attrs["f"], float)
    assert attrs["e"] == 1e-05
    assert math.isnan(attrs["nan"])
    assert attrs["h"] == -math.inf
    assert attrs["b"] is True and attrs["c"] is False
    assert attrs["u"] is True  # a unit attribute
    assert attrs["s"] == 'a"b\nA'
    assert attrs["hexint"] == 16


def test_compound_attributes() -> None:
    attrs = op_of(
        'stablehlo.custom_call @t() {l = [1, [2, 3], "x"], d = {k = 1 : i32, "q k" = @s}, '
        "arr = array<i64: 1, -2>, empty = array<i64>, flags = array<i1: true, false>, "
        "fl = array<f32: 1.5>, ty = tensor<2xf32>, et = bf16, fn = (tensor<f32>) -> "
        '(tensor<f32>, i32), sym = @"quoted name"} : () -> ()'
    ).attributes
    assert attrs["l"] == [1, [2, 3], "x"]
    assert attrs["d"] == {"k": 1, "q k": ast.SymbolRef("s")}
    assert attrs["arr"] == (1, -2)
    assert attrs["empty"] == ()
    assert attrs["flags"] == (True, False)
    assert attrs["fl"] == (1.5,)
    assert attrs["ty"] == ast.MlirType("tensor<2xf32>", Shape.array(P.F32, [2]))
    assert attrs["et"].shape == Shape.array(P.BF16, [])
    fn = attrs["fn"]
    assert isinstance(fn, ast.FunctionType)
    assert [t.text for t in fn.inputs] == ["tensor<f32>"]
    assert [t.text for t in fn.results] == ["tensor<f32>", "i32"]
    assert attrs["sym"] == ast.SymbolRef("quoted name")


def test_enum_and_dialect_attributes() -> None:
    assert attr_of("#stablehlo<comparison_direction LT>") == ast.EnumAttr(
        "comparison_direction", "LT"
    )
    assert attr_of("#stablehlo<precision HIGHEST>") == ast.EnumAttr("precision", "HIGHEST")
    gather = attr_of(
        "#stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], "
        "start_index_map = [1, 0], index_vector_dim = 2>"
    )
    assert gather == ast.DialectAttr(
        "stablehlo.gather",
        {
            "offset_dims": [2, 3],
            "collapsed_slice_dims": [0],
            "operand_batching_dims": [],
            "start_indices_batching_dims": [],
            "start_index_map": [1, 0],
            "index_vector_dim": 2,
        },
    )
    scatter = attr_of(
        "#stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], "
        "scatter_dims_to_operand_dims = [0], index_vector_dim = 1>"
    )
    assert scatter.fields["input_batching_dims"] == []
    assert scatter.fields["update_window_dims"] == [1]
    dot = attr_of(
        "#stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>"
    )
    assert dot.fields == {
        "lhs_batching_dimensions": [],
        "rhs_batching_dimensions": [],
        "lhs_contracting_dimensions": [1],
        "rhs_contracting_dimensions": [0],
    }
    assert attr_of("#stablehlo.channel_handle<handle = 5, type = 2>") == ast.DialectAttr(
        "stablehlo.channel_handle", {"handle": 5, "type": 2}
    )
    alias = attr_of(
        "#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 1>"
    )
    assert alias.fields == {
        "output_tuple_indices": [0],
        "operand_index": 1,
        "operand_tuple_indices": [],
    }
    accuracy = attr_of(
        "#stablehlo.result_accuracy<ulps = 2, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>"
    )
    assert accuracy.fields == {
        "atol": 0.0,
        "rtol": 0.0,
        "ulps": 2,
        "mode": ast.EnumAttr("result_accuracy_mode", "TOLERANCE"),
    }
    algorithm = attr_of(
        "#stablehlo.dot_algorithm<lhs_precision_type = tf32, rhs_precision_type = tf32, "
        "accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, "
        "num_primitive_operations = 3, allow_imprecise_accumulation = false>"
    )
    assert algorithm.fields["lhs_precision_type"] == ast.MlirType("tf32", None)
    assert algorithm.fields["accumulation_type"].shape == Shape.array(P.F32, [])
    assert algorithm.fields["num_primitive_operations"] == 3
    assert attr_of("#stablehlo.type_extensions<bounds = [4, ?]>") == ast.DialectAttr(
        "stablehlo.type_extensions", {"bounds": [4, None]}
    )
    assert attr_of('#sdy.sharding<@mesh, [{}, {"x", ?}p1], replicated={"y"}>') == ast.SdySharding(
        "mesh",
        (ast.SdyDim(()), ast.SdyDim((ast.SdyAxis("x"),), closed=False, priority=1)),
        replicated=(ast.SdyAxis("y"),),
    )
    assert attr_of('#sdy<manual_axes{"x", "y"}>') == ast.SdyManualAxes(("x", "y"))
    assert attr_of('#sdy.mesh<["x"=2, "y"=1], device_ids=[1, 0]>') == ast.SdyMesh(
        (("x", 2), ("y", 1)), (1, 0)
    )
    opaque = attr_of("#sdy.op_sharding_rule<([i, j])->([i, j]) {i=3, j=3}, custom>")
    assert opaque == ast.OpaqueAttr("#sdy.op_sharding_rule<([i, j])->([i, j]) {i=3, j=3}, custom>")


def test_convolution_dimension_numbers_in_both_spellings() -> None:
    expected = ast.ConvDimensionNumbers(0, 3, (1, 2), 2, 3, (0, 1), 0, 3, (1, 2))
    assert attr_of("#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>") == expected
    raw = attr_of(
        "#stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, "
        "input_spatial_dimensions = [1, 2], kernel_input_feature_dimension = 2, "
        "kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1], "
        "output_batch_dimension = 0, output_feature_dimension = 3, "
        "output_spatial_dimensions = [1, 2]>"
    )
    assert raw == expected
    swapped = attr_of("#stablehlo.conv<[f, 1, 0, b]x[o, 1, 0, i]->[b, f, 1, 0]>")
    assert swapped == ast.ConvDimensionNumbers(3, 0, (2, 1), 3, 0, (2, 1), 0, 1, (3, 2))


# -- dense literals --------------------------------------------------------------------------


def test_dense_lists_and_splats() -> None:
    np.testing.assert_array_equal(
        dense_of("dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>"),
        np.array([[1, 2, 3], [4, 5, 6]], np.int32),
    )
    np.testing.assert_array_equal(dense_of("dense<7> : tensor<2x2xui8>"), np.full((2, 2), 7))
    np.testing.assert_array_equal(dense_of("dense<2.5> : tensor<f64>"), np.float64(2.5))
    np.testing.assert_array_equal(
        dense_of("dense<[true, false, 1, 0]> : tensor<4xi1>"), [True, False, True, False]
    )
    assert dense_of("dense<> : tensor<0x2xi8>").shape == (0, 2)
    assert dense_of("dense<[]> : tensor<0xf32>").shape == (0,)
    np.testing.assert_array_equal(dense_of("dense<[-1, 255]> : tensor<2xi8>"), [-1, -1])
    np.testing.assert_array_equal(dense_of("dense<[-8, 7]> : tensor<2xi4>"), [-8, 7])


def test_dense_complex_and_special_floats() -> None:
    np.testing.assert_array_equal(
        dense_of("dense<[(1.0, 2.0), (-3.5, 0.0)]> : tensor<2xcomplex<f64>>"),
        np.array([1 + 2j, -3.5 + 0j]),
    )
    np.testing.assert_array_equal(
        dense_of("dense<(3.140000e+00,1.000000e+00)> : tensor<3xcomplex<f32>>"),
        np.full(3, 3.14 + 1j, np.complex64),
    )
    bf16 = dense_of("dense<[0xFF80, -2.0, 0x7FC0, 1.5]> : tensor<4xbf16>")
    assert bf16.dtype == ml_dtypes.bfloat16
    assert bf16[0] == -np.inf and np.isnan(bf16[2]) and bf16[3] == 1.5
    f64 = dense_of("dense<[0x7FF0000000000000, 0x7FFFFFFFFFFFFFFF, 65504.0]> : tensor<3xf64>")
    assert f64[0] == np.inf and np.isnan(f64[1]) and f64[2] == 65504.0
    f4 = dense_of("dense<[0.0, -0.0, 1.0, 6.0, -0.5]> : tensor<5xf4E2M1FN>")
    assert f4.dtype == ml_dtypes.float4_e2m1fn
    np.testing.assert_array_equal(f4.astype(np.float32), [0.0, -0.0, 1.0, 6.0, -0.5])
    assert np.signbit(f4[1].astype(np.float32))


@pytest.mark.parametrize(
    "type_text, values",
    [
        ("f32", np.array([[1.5, -2.0, np.inf], [0.0, 3.25, -7.0]], np.float32)),
        ("f64", np.array([[1e300, -2.0, 0.1], [4.0, -0.0, 9.0]])),
        ("bf16", np.array([[1.5, -2.0, 3.0], [0.25, 8.0, -1.0]], ml_dtypes.bfloat16)),
        ("f16", np.array([[1.5, -2.0, 3.0], [0.25, 8.0, 65504]], np.float16)),
        ("i16", np.array([[1, -2, 300], [-32768, 7, 0]], np.int16)),
        ("ui64", np.array([[1, 2**64 - 1, 3], [4, 5, 6]], np.uint64)),
        ("complex<f32>", np.array([[1 + 2j, -1j, 3], [4, 5j, -6]], np.complex64)),
        ("complex<f64>", np.array([[1 + 2j, -1j, 3], [4, 5j, -6]], np.complex128)),
        ("f8E4M3FN", np.array([[1.5, -2.0, 3.0], [0.25, 8.0, -1.0]], ml_dtypes.float8_e4m3fn)),
    ],
)
def test_dense_hex_is_little_endian_raw_data(type_text: str, values: np.ndarray) -> None:
    hex_text = "0x" + values.astype(values.dtype.newbyteorder("<")).tobytes().hex().upper()
    decoded = dense_of(f'dense<"{hex_text}"> : tensor<2x3x{type_text}>')
    assert decoded.dtype == values.dtype
    np.testing.assert_array_equal(decoded.view(np.uint8), values.view(np.uint8))


def test_dense_hex_sub_byte_bool_and_splat() -> None:
    # One byte per element, as MLIR prints i1, i2, i4 and f4 data.
    np.testing.assert_array_equal(
        dense_of('dense<"0x0100000101"> : tensor<5xi1>'), [True, False, False, True, True]
    )
    np.testing.assert_array_equal(
        dense_of('dense<"0x080F0007"> : tensor<4xi4>'), np.array([-8, -1, 0, 7], ml_dtypes.int4)
    )
    np.testing.assert_array_equal(dense_of('dense<"0x0F0003"> : tensor<3xui4>'), [15, 0, 3])
    np.testing.assert_array_equal(dense_of('dense<"0x0203"> : tensor<2xi2>'), [-2, -1])
    f4 = dense_of('dense<"0x020F"> : tensor<2xf4E2M1FN>').astype(np.float32)
    np.testing.assert_array_equal(f4, [1.0, -6.0])
    # A single element's data is a splat.
    np.testing.assert_array_equal(
        dense_of('dense<"0x0000803F"> : tensor<2x2xf32>'), np.ones((2, 2))
    )
    np.testing.assert_array_equal(dense_of('dense<"0x01"> : tensor<3xi1>'), [True] * 3)
    # Older MLIR packed i1 data eight elements to a byte.
    np.testing.assert_array_equal(
        dense_of('dense<"0x0D01"> : tensor<9xi1>'),
        [True, False, True, True, False, False, False, False, True],
    )


def test_dense_of_index_and_unmodelled_types() -> None:
    index = attr_of("dense<[1, 0]> : tensor<2xindex>")
    assert index.literal.shape == Shape.array(P.S64, [2])
    np.testing.assert_array_equal(index.literal.to_numpy(), [1, 0])
    assert attr_of("dense<> : tensor<0xindex>").literal.shape == Shape.array(P.S64, [0])
    f6 = attr_of("dense<[1.0, 2.0]> : tensor<2xf6E2M3FN>")
    assert f6 == ast.OpaqueAttr("dense<[1.0, 2.0]> : tensor<2xf6E2M3FN>")


# -- ops: pretty formats and their generic attribute names -----------------------------------

_ARGS = (
    "%a: tensor<4xf32>, %b: tensor<4xf32>, %m: tensor<2x3xf32>, %i: tensor<i64>, "
    "%t: !stablehlo.token, %c: tensor<4xcomplex<f32>>, %z: tensor<f32>, %s: tensor<1xi64>"
)


@pytest.mark.parametrize(
    "text, name, attributes, operand_types, result_types",
    [
        (
            "%0 = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> tensor<2x3xf32>",
            "stablehlo.broadcast_in_dim",
            {"broadcast_dimensions": ()},
            ["tensor<f32>"],
            ["tensor<2x3xf32>"],
        ),
        (
            "%0 = stablehlo.transpose %m, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>",
            "stablehlo.transpose",
            {"permutation": (1, 0)},
            ["tensor<2x3xf32>"],
            ["tensor<3x2xf32>"],
        ),
        (
            "%0 = stablehlo.slice %m [0:2, 1:3:2] : (tensor<2x3xf32>) -> tensor<2x1xf32>",
            "stablehlo.slice",
            {"start_indices": (0, 1), "limit_indices": (2, 3), "strides": (1, 2)},
            ["tensor<2x3xf32>"],
            ["tensor<2x1xf32>"],
        ),
        (
            "%0 = stablehlo.iota dim = 1 : tensor<2x3xi32>",
            "stablehlo.iota",
            {"iota_dimension": 1},
            [],
            ["tensor<2x3xi32>"],
        ),
        (
            "%0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<4xf32>, tensor<4xf32>) -> "
            "tensor<8xf32>",
            "stablehlo.concatenate",
            {"dimension": 0},
            ["tensor<4xf32>", "tensor<4xf32>"],
            ["tensor<8xf32>"],
        ),
        (
            "%0 = stablehlo.pad %a, %z, low = [1], high = [2], interior = [3] : (tensor<4xf32>, "
            "tensor<f32>) -> tensor<16xf32>",
            "stablehlo.pad",
            {"edge_padding_low": (1,), "edge_padding_high": (2,), "interior_padding": (3,)},
            ["tensor<4xf32>", "tensor<f32>"],
            ["tensor<16xf32>"],
        ),
        (
            "%0 = stablehlo.dynamic_slice %a, %i, sizes = [2] : (tensor<4xf32>, tensor<i64>) -> "
            "tensor<2xf32>",
            "stablehlo.dynamic_slice",
            {"slice_sizes": (2,)},
            ["tensor<4xf32>", "tensor<i64>"],
            ["tensor<2xf32>"],
        ),
        (
            "%0 = stablehlo.dynamic_update_slice %a, %a, %i : (tensor<4xf32>, tensor<4xf32>, "
            "tensor<i64>) -> tensor<4xf32>",
            "stablehlo.dynamic_update_slice",
            {},
            ["tensor<4xf32>", "tensor<4xf32>", "tensor<i64>"],
            ["tensor<4xf32>"],
        ),
        (
            "%0 = stablehlo.compare  NE, %a, %b,  TOTALORDER : (tensor<4xf32>, tensor<4xf32>) -> "
            "tensor<4xi1>",
            "stablehlo.compare",
            {
                "comparison_direction": ast.EnumAttr("comparison_direction", "NE"),
                "compare_type": ast.EnumAttr("comparison_type", "TOTALORDER"),
            },
            ["tensor<4xf32>", "tensor<4xf32>"],
            ["tensor<4xi1>"],
        ),
        (
            "%0 = stablehlo.reverse %a, dims = [0] : tensor<4xf32>",
            "stablehlo.reverse",
            {"dimensions": (0,)},
            ["tensor<4xf32>"],
            ["tensor<4xf32>"],
        ),
        (
            "%0 = stablehlo.get_dimension_size %m, dim = 1 : (tensor<2x3xf32>) -> tensor<i32>",
            "stablehlo.get_dimension_size",
            {"dimension": 1},
            ["tensor<2x3xf32>"],
            ["tensor<i32>"],
        ),
        (
            "%0 = stablehlo.fft %c, type =  IFFT, length = [4] : (tensor<4xcomplex<f32>>) -> "
            "tensor<4xcomplex<f32>>",
            "stablehlo.fft",
            {"fft_type": ast.EnumAttr("fft_type", "IFFT"), "fft_length": (4,)},
            ["tensor<4xcomplex<f32>>"],
            ["tensor<4xcomplex<f32>>"],
        ),
        (
            "%0:2 = stablehlo.rng_bit_generator %s, algorithm =  THREE_FRY : (tensor<1xi64>) -> "
            "(tensor<1xi64>, tensor<4xui32>)",
            "stablehlo.rng_bit_generator",
            {"rng_algorithm": ast.EnumAttr("rng_algorithm", "THREE_FRY")},
            ["tensor<1xi64>"],
            ["tensor<1xi64>", "tensor<4xui32>"],
        ),
        (
            "%0 = stablehlo.rng %z, %z, %s, distribution = UNIFORM : (tensor<f32>, tensor<f32>, "
            "tensor<1xi64>) -> tensor<4xf32>",
            "stablehlo.rng",
            {"rng_distribution": ast.EnumAttr("rng_distribution", "UNIFORM")},
            ["tensor<f32>", "tensor<f32>", "tensor<1xi64>"],
            ["tensor<4xf32>"],
        ),
        (
            "%0 = stablehlo.reduce_precision %a, format = e8m7 : tensor<4xf32>",
            "stablehlo.reduce_precision",
            {"exponent_bits": 8, "mantissa_bits": 7},
            ["tensor<4xf32>"],
            ["tensor<4xf32>"],
        ),
        (
            "%0 = stablehlo.get_tuple_element %tp[1] : (tuple<tensor<4xf32>, tensor<i64>>) -> "
            "tensor<i64>",
            "stablehlo.get_tuple_element",
            {"index": 1},
            ["tuple<tensor<4xf32>, tensor<i64>>"],
            ["tensor<i64>"],
        ),
        (
            "%0 = stablehlo.tuple %a, %i : tuple<tensor<4xf32>, tensor<i64>>",
            "stablehlo.tuple",
            {},
            ["tensor<4xf32>", "tensor<i64>"],
            ["tuple<tensor<4xf32>, tensor<i64>>"],
        ),
        (
            "%0 = stablehlo.complex %a, %b : tensor<4xcomplex<f32>>",
            "stablehlo.complex",
            {},
            ["tensor<4xf32>", "tensor<4xf32>"],
            ["tensor<4xcomplex<f32>>"],
        ),
        (
            "%0 = stablehlo.select %p, %a, %b : tensor<i1>, tensor<4xf32>",
            "stablehlo.select",
            {},
            ["tensor<i1>", "tensor<4xf32>", "tensor<4xf32>"],
            ["tensor<4xf32>"],
        ),
        (
            "%0 = stablehlo.after_all  : !stablehlo.token",
            "stablehlo.after_all",
            {},
            [],
            ["!stablehlo.token"],
        ),
        (
            "%0 = stablehlo.cholesky %n, lower = true : tensor<3x3xf32>",
            "stablehlo.cholesky",
            {"lower": True},
            ["tensor<3x3xf32>"],
            ["tensor<3x3xf32>"],
        ),
        (
            "%0 = stablehlo.convert %a : (tensor<4xf32>) -> tensor<4xbf16>",
            "stablehlo.convert",
            {},
            ["tensor<4xf32>"],
            ["tensor<4xbf16>"],
        ),
        (
            "%0 = stablehlo.dynamic_iota %s, dim = 0 : (tensor<1xi64>) -> tensor<?xf32>",
            "stablehlo.dynamic_iota",
            {"iota_dimension": 0},
            ["tensor<1xi64>"],
            ["tensor<?xf32>"],
        ),
        (
            "%0 = stablehlo.constant {foo = 1 : i32} dense<1.0> : tensor<2xf32>",
            "stablehlo.constant",
            {"foo": 1, "value": "dense"},
            [],
            ["tensor<2xf32>"],
        ),
        (
            "%0 = stablehlo.exponential %a {result_accuracy = #stablehlo.result_accuracy<ulps = 1,"
            " mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : tensor<4xf32>",
            "stablehlo.exponential",
            {},
            ["tensor<4xf32>"],
            ["tensor<4xf32>"],
        ),
    ],
)
def test_pretty_formats(text, name, attributes, operand_types, result_types) -> None:
    args = _ARGS + ", %p: tensor<i1>, %n: tensor<3x3xf32>, %tp: tuple<tensor<4xf32>, tensor<i64>>"
    op = op_of(text, args)
    assert op.name == name
    for key, value in attributes.items():
        if value == "dense":
            assert isinstance(op.attributes[key], ast.DenseElements)
        else:
            assert op.attributes[key] == value, key
    assert [t.text for t in op.operand_types] == operand_types
    assert [t.text for t in op.result_types] == result_types


def test_dot_general_pretty_form() -> None:
    op = op_of(
        "%0 = stablehlo.dot_general %m, %m, batching_dims = [0] x [0], contracting_dims = [1] x "
        "[1], precision = [DEFAULT, HIGHEST], algorithm = <lhs_precision_type = f32, "
        "rhs_precision_type = f32, accumulation_type = f32, lhs_component_count = 1, "
        "rhs_component_count = 1, num_primitive_operations = 6, allow_imprecise_accumulation = "
        "false> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2xf32>",
        _ARGS,
    )
    assert op.attributes["dot_dimension_numbers"] == ast.DialectAttr(
        "stablehlo.dot",
        {
            "lhs_batching_dimensions": [0],
            "rhs_batching_dimensions": [0],
            "lhs_contracting_dimensions": [1],
            "rhs_contracting_dimensions": [1],
        },
    )
    assert op.attributes["precision_config"] == [
        ast.EnumAttr("precision", "DEFAULT"),
        ast.EnumAttr("precision", "HIGHEST"),
    ]
    algorithm = op.attributes["algorithm"]
    assert algorithm.name == "stablehlo.dot_algorithm"
    assert algorithm.fields["num_primitive_operations"] == 6


def test_convolution_pretty_form() -> None:
    op = op_of(
        "%0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],"
        " window = {stride = [4, 4], pad = [[1, 1], [0, 2]], lhs_dilate = [2, 2], rhs_dilate = "
        "[1, 1], reverse = [true, false]} {batch_group_count = 1 : i64, feature_group_count = 1 :"
        " i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}"
        " : (tensor<1x4x4x1xi64>, tensor<3x3x1x1xi64>) -> tensor<1x2x2x1xi64>",
        "%x: tensor<1x4x4x1xi64>, %k: tensor<3x3x1x1xi64>",
    )
    a = op.attributes
    assert a["dimension_numbers"] == ast.ConvDimensionNumbers(
        0, 3, (1, 2), 2, 3, (0, 1), 0, 3, (1, 2)
    )
    assert a["window_strides"] == (4, 4)
    assert isinstance(a["padding"], ast.DenseElements)
    np.testing.assert_array_equal(a["padding"].literal.to_numpy(), [[1, 1], [0, 2]])
    assert a["padding"].literal.shape == Shape.array(P.S64, [2, 2])
    assert a["lhs_dilation"] == (2, 2) and a["rhs_dilation"] == (1, 1)
    assert a["window_reversal"] == (True, False)
    assert a["batch_group_count"] == 1 and a["feature_group_count"] == 1
    assert a["precision_config"] == [ast.EnumAttr("precision", "DEFAULT")] * 2
    plain = op_of(
        "%0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]"
        ", window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : "
        "(tensor<1x4x4x1xi64>, tensor<3x3x1x1xi64>) -> tensor<1x2x2x1xi64>",
        "%x: tensor<1x4x4x1xi64>, %k: tensor<3x3x1x1xi64>",
    )
    assert "padding" not in plain.attributes and "window_strides" not in plain.attributes


def test_custom_call_composite_and_call() -> None:
    ops = ops_of(
        '%0 = stablehlo.custom_call @my.target(%a) {backend_config = "cfg", api_version = 2 : '
        "i32} : (tensor<4xf32>) -> tensor<4xf32>\n"
        '%1 = "stablehlo.custom_call"(%a) {call_target_name = "my.target"} : (tensor<4xf32>) -> '
        "tensor<4xf32>\n"
        '%2 = stablehlo.composite "ns.op" %a, %b {composite_attributes = {k = 2 : i64}, '
        "decomposition = @g, version = 3 : i32} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n"
        "%3 = call @g(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n"
        "%4 = func.call @g(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>",
        _ARGS,
    )
    assert ops[0].attributes == {
        "call_target_name": ast.SymbolRef("my.target"),
        "backend_config": "cfg",
        "api_version": 2,
        "has_side_effect": False,
        "called_computations": [],
        "output_operand_aliases": [],
    }
    assert ops[1].attributes["call_target_name"] == ast.SymbolRef("my.target")
    assert ops[2].attributes == {
        "name": "ns.op",
        "composite_attributes": {"k": 2},
        "decomposition": ast.SymbolRef("g"),
        "version": 3,
    }
    assert ops[3].name == ops[4].name == "func.call"
    assert ops[3].attributes == {"callee": ast.SymbolRef("g")}


def test_reduce_applies_builds_the_region() -> None:
    op = op_of(
        "%0 = stablehlo.reduce(%m init: %z) applies stablehlo.maximum across dimensions = [1] :"
        " (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>",
        _ARGS,
    )
    assert op.operands == ["%m", "%z"]
    assert op.attributes == {"dimensions": (1,)}
    (block,) = op.regions[0].blocks
    scalar = ast.MlirType("tensor<f32>", Shape.array(P.F32, []))
    assert [t for _, t in block.arguments] == [scalar, scalar]
    inner, ret = block.operations
    assert inner.name == "stablehlo.maximum"
    assert inner.operands == [name for name, _ in block.arguments]
    assert inner.result_types == [scalar]
    assert ret.name == "stablehlo.return" and ret.operands == inner.results


def test_variadic_reduce_orders_the_reducer_arguments() -> None:
    op = op_of(
        "%0:2 = stablehlo.reduce(%m init: %z), (%n init: %k) across dimensions = [0] : "
        "(tensor<2x3xf32>, tensor<2x3xi32>, tensor<f32>, tensor<i32>) -> (tensor<3xf32>, "
        "tensor<3xi32>)\n"
        "  reducer(%a1: tensor<f32>, %b1: tensor<f32>) (%a2: tensor<i32>, %b2: tensor<i32>)  {\n"
        "    %s = stablehlo.add %a1, %b1 : tensor<f32>\n"
        "    %q = stablehlo.maximum %a2, %b2 : tensor<i32>\n"
        "    stablehlo.return %s, %q : tensor<f32>, tensor<i32>\n"
        "  }",
        "%m: tensor<2x3xf32>, %n: tensor<2x3xi32>, %z: tensor<f32>, %k: tensor<i32>",
    )
    assert op.operands == ["%m", "%n", "%z", "%k"]
    assert op.results == ["%0#0", "%0#1"]
    (block,) = op.regions[0].blocks
    assert [name for name, _ in block.arguments] == ["%a1", "%a2", "%b1", "%b2"]


def test_while_names_the_block_arguments_after_the_loop_variables() -> None:
    op = op_of(
        "%r0, %r1 = stablehlo.while(%x = %i, %y = %a) : tensor<i64>, tensor<4xf32> "
        "attributes {trip = 3 : i64}\n"
        "  cond {\n"
        "    %c = stablehlo.compare LT, %x, %i : (tensor<i64>, tensor<i64>) -> tensor<i1>\n"
        "    stablehlo.return %c : tensor<i1>\n"
        "  } do {\n"
        "    %n = stablehlo.add %y, %y : tensor<4xf32>\n"
        "    stablehlo.return %x, %n : tensor<i64>, tensor<4xf32>\n"
        "  }",
        _ARGS,
    )
    assert op.name == "stablehlo.while"
    assert op.operands == ["%i", "%a"]
    assert op.results == ["%r0", "%r1"]
    assert [t.text for t in op.result_types] == ["tensor<i64>", "tensor<4xf32>"]
    assert op.attributes == {"trip": 3}
    cond, body = op.regions
    for region in (cond, body):
        assert [n for n, _ in region.blocks[0].arguments] == ["%x", "%y"]
    assert body.blocks[0].operations[0].operands == ["%y", "%y"]


def test_generic_regions_and_properties() -> None:
    op = op_of(
        '%r:2 = "stablehlo.sort"(%a, %b) <{dimension = 0 : i64, is_stable = true}> ({\n'
        "  ^bb0(%p: tensor<f32>, %q: tensor<f32>, %u: tensor<f32>, %v: tensor<f32>):\n"
        '    %lt = "stablehlo.compare"(%p, %q) {comparison_direction = #stablehlo<'
        "comparison_direction GT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
        '    "stablehlo.return"(%lt) : (tensor<i1>) -> ()\n'
        "}) {extra = 1 : i32} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)\n"
        '"check.expect_eq"(%r#1, %a) : (tensor<4xf32>, tensor<4xf32>) -> ()',
        _ARGS,
    )
    assert op.name == "check.expect_eq"
    assert op.operands == ["%r#1", "%a"]
    sort = ops_of(
        '%r:2 = "stablehlo.sort"(%a, %b) <{dimension = 0 : i64}> ({\n'
        "  ^bb0(%p: tensor<f32>, %q: tensor<f32>, %u: tensor<f32>, %v: tensor<f32>):\n"
        "    %lt = stablehlo.compare GT, %p, %q : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
        "    stablehlo.return %lt : tensor<i1>\n"
        "}) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)",
        _ARGS,
    )[0]
    assert sort.attributes == {"dimension": 0, "is_stable": False}
    (block,) = sort.regions[0].blocks
    assert [n for n, _ in block.arguments] == ["%p", "%q", "%u", "%v"]
    assert [o.name for o in block.operations] == ["stablehlo.compare", "stablehlo.return"]


def test_check_and_interpreter_ops() -> None:
    ops = ops_of(
        "check.expect_eq %a, %b : tensor<4xf32>\n"
        "check.expect_eq_const %i, dense<3> : tensor<i64>\n"
        "check.expect_almost_eq %a, %b, tolerance = 0.1 : tensor<4xf32>\n"
        "check.expect_almost_eq_const %a, dense<1.0> : tensor<4xf32> {tolerance = 0.5 : f64}\n"
        "check.expect_close %a, %b, max_ulp_difference = 3 : tensor<4xf32>, tensor<4xf32>\n"
        "check.expect_close %a, %b, max_ulp_difference = 3, min_ulp_difference = 1 : "
        "tensor<4xf32>, tensor<4xf32>\n"
        'check.expect_serialized_eq %i, probe_id = "p0", iter = 2 : tensor<i64>\n'
        '%0 = interpreter.probe %a, probe_id = "p1" : tensor<4xf32>\n'
        "interpreter.print %a : tensor<4xf32>\n"
        '%r:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@f], [@g]]} : '
        "(tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)",
        _ARGS,
    )
    eq, eq_const, almost, almost_const, close, close2, serialized, probe, printed, parallel = ops
    assert eq.operand_types[0] == eq.operand_types[1] and eq.result_types == []
    assert eq_const.operands == ["%i"] and eq_const.operand_types[0].text == "tensor<i64>"
    np.testing.assert_array_equal(eq_const.attributes["value"].literal.to_numpy(), 3)
    assert almost.attributes == {"tolerance": 0.1}
    assert almost_const.attributes["tolerance"] == 0.5
    assert close.attributes == {"max_ulp_difference": 3, "min_ulp_difference": 0}
    assert close2.attributes == {"max_ulp_difference": 3, "min_ulp_difference": 1}
    assert serialized.attributes == {"probe_id": "p0", "iteration": 2}
    assert probe.attributes == {"probe_id": "p1"} and probe.results == ["%0"]
    assert len(printed.results) == 1 and printed.result_types[0].text == "tensor<4xf32>"
    assert parallel.attributes == {"programs": [[ast.SymbolRef("f")], [ast.SymbolRef("g")]]}
    assert parallel.results == ["%r#0", "%r#1"]


def test_chlo_ops() -> None:
    ops = ops_of(
        "%0 = chlo.lgamma %a : tensor<4xf32> -> tensor<4xf32>\n"
        "%1 = chlo.next_after %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>\n"
        "%values, %indices = chlo.top_k(%a, k = 2) : tensor<4xf32> -> (tensor<2xf32>, "
        "tensor<2xi32>)\n"
        "%2 = chlo.broadcast_add %a, %z {broadcast_dimensions = array<i64>} : (tensor<4xf32>, "
        "tensor<f32>) -> tensor<4xf32>\n"
        "%3 = chlo.constant dense<1.0> : tensor<2xf32>",
        _ARGS,
    )
    assert [o.name for o in ops] == [
        "chlo.lgamma",
        "chlo.next_after",
        "chlo.top_k",
        "chlo.broadcast_add",
        "chlo.constant",
    ]
    assert ops[2].attributes == {"k": 2}
    assert ops[2].results == ["%values", "%indices"]
    assert ops[3].attributes == {"broadcast_dimensions": ()}


def test_quantized_types_parse_for_the_lowering_to_reject() -> None:
    op = op_of(
        '%0 = "stablehlo.uniform_quantize"(%a) : (tensor<4xf32>) -> '
        "tensor<4x!quant.uniform<i8:f32, 0.1:-30>>",
        _ARGS,
    )
    assert op.result_types[0].shape is None
    assert op.result_types[0].text == "tensor<4x!quant.uniform<i8:f32, 0.1:-30>>"


def test_unknown_dialect_ops() -> None:
    op = op_of(
        '%0 = "mydialect.op"(%a) {x = #mydialect.attr<1 2 3>} : (tensor<4xf32>) -> tensor<4xf32>',
        _ARGS,
    )
    assert op.name == "mydialect.op"
    assert op.attributes == {"x": ast.OpaqueAttr("#mydialect.attr<1 2 3>")}
    pretty = op_of(
        "%0 = mydialect.op %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>", _ARGS
    )
    assert pretty.operands == ["%a", "%b"]


# -- names, results and positions ------------------------------------------------------------


def test_multi_results_and_their_uses() -> None:
    ops = ops_of(
        "%r:2 = stablehlo.optimization_barrier %a, %i : tensor<4xf32>, tensor<i64>\n"
        '%s2, %t2:2 = "x.three"() : () -> (tensor<f32>, tensor<f32>, tensor<f32>)\n'
        "%u = stablehlo.add %r#0, %r#0 : tensor<4xf32>\n"
        "%w = stablehlo.add %t2#1, %s2 : tensor<f32>\n"
        "%v = stablehlo.add %u#0, %a : tensor<4xf32>",
        _ARGS,
    )
    assert ops[0].results == ["%r#0", "%r#1"]
    assert ops[1].results == ["%s2", "%t2#0", "%t2#1"]
    assert ops[2].operands == ["%r#0", "%r#0"]
    assert ops[3].operands == ["%t2#1", "%s2"]
    assert ops[4].operands == ["%u", "%a"]  # %u#0 of a single result is %u


def test_positions_comments_and_locations() -> None:
    text = """// RUN: some-tool %s
#loc1 = loc("x.py":3:4)
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32} {
  // a comment
  func.func public @main(%arg0: tensor<3xf32> loc("x"), %arg1: tensor<3xf32> {mhlo.sharding = "{replicated}"}) -> (tensor<3xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.sine %arg0 : tensor<3xf32> loc(#loc11)
    %1 = stablehlo.add %0, %arg1 : tensor<3xf32> loc(callsite(#loc1 at "y"(#loc1)))
    return %1 : tensor<3xf32> loc(#loc9)
  } loc(#loc)
  func.func private @unused() attributes {a.b = "c"} {
    return
  }
} loc(#loc)
#loc = loc(unknown)
#loc11 = loc("jit(f)/sin"(#loc1))
"""
    (module,) = parse_mlir(text)
    assert module.name == "jit_f"
    assert module.attributes == {"mhlo.num_partitions": 1, "mhlo.num_replicas": 2}
    assert module.line == 3
    main = module.function("main")
    assert main.visibility == "public" and main.line == 5
    assert [n for n, _ in main.arguments] == ["%arg0", "%arg1"]
    assert main.argument_attributes == [{}, {"mhlo.sharding": "{replicated}"}]
    assert main.result_attributes == [{"jax.result_info": "result"}]
    sine, add, ret = main.body.blocks[0].operations
    assert (sine.line, sine.column) == (6, 5)
    assert (ret.name, ret.line) == ("func.return", 8)
    unused = module.function("unused")
    assert unused.visibility == "private"
    assert unused.attributes == {"a.b": "c"}


def test_sections_report_file_lines() -> None:
    text = "// header\nfunc.func @a() {\n  func.return\n}\n// -----\n\n// -----\nfunc.func @b() {\n  func.return\n}\n"
    sections = split_sections(text)
    assert [line for line, _ in sections] == [1, 6, 8]
    modules = parse_mlir(text)
    assert [m.name for m in modules] == [None, None, None]
    assert [[f.name for f in m.functions] for m in modules] == [["a"], [], ["b"]]
    assert modules[2].functions[0].line == 8


def test_generic_module_and_declarations() -> None:
    (module,) = parse_mlir(
        '"builtin.module"() <{sym_name = "m"}> ({\n'
        '  "func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "f"}> ({\n'
        "  ^bb0(%x: tensor<f32>):\n"
        '    "func.return"(%x) : (tensor<f32>) -> ()\n'
        "  }) : () -> ()\n"
        '  "func.func"() <{function_type = (tensor<f32>) -> (), sym_name = "ext", '
        'sym_visibility = "private"}> ({\n  }) : () -> ()\n'
        "}) {mhlo.num_replicas = 1 : i32} : () -> ()\n"
    )
    assert module.name == "m" and module.attributes == {"mhlo.num_replicas": 1}
    f, ext = module.functions
    assert [n for n, _ in f.arguments] == ["%x"]
    assert ext.visibility == "private" and ext.body.blocks == []
    (decl_module,) = parse_mlir("func.func private @ext(tensor<f32>, tensor<2xi8>) -> tensor<f32>")
    decl = decl_module.functions[0]
    assert [t.text for _, t in decl.arguments] == ["tensor<f32>", "tensor<2xi8>"]
    assert decl.body.blocks == []
