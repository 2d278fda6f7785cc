"""Shape refinement of shape-polymorphic StableHLO (``stablehlo.refine``, ``.polymorphic``).

The jax.export modules come from tests/data/jax_corpus (written by tools/gen_jax_corpus.py);
the small hand-written ones pin one rule each. Programs run on the interpreter, which
compiles fastest; the corpus runs them on both backends.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import xlapy
from xlapy.errors import InvalidArgumentError, UnimplementedError
from xlapy.shape import Shape
from xlapy.stablehlo import PolymorphicModule, parse_module, parse_program, refine_module
from xlapy.stablehlo.parse import parse_mlir
from xlapy.stablehlo.refine import module_is_polymorphic
from xlapy.types import PrimitiveType

CORPUS = Path(__file__).resolve().parent / "data" / "jax_corpus"
F32 = PrimitiveType.F32


def corpus_text(name: str) -> str:
    return (CORPUS / f"{name}.mlir").read_text()


def f32(*dims: int) -> Shape:
    return Shape.array(F32, list(dims))


def interpreter():
    return xlapy.local_client("interpreter")


def polymorphic(text: str) -> PolymorphicModule:
    module = parse_module(text)
    assert isinstance(module, PolymorphicModule)
    return module


def _types(module) -> list[str]:
    """Every type of every op, argument and result in ``module``."""
    found = []

    def walk(region):
        for block in region.blocks:
            found.extend(t.text for _, t in block.arguments)
            for op in block.operations:
                found.extend(t.text for t in (*op.operand_types, *op.result_types))
                for inner in op.regions:
                    walk(inner)

    for function in module.functions:
        found.extend(t.text for _, t in function.arguments)
        found.extend(t.text for t in function.result_types)
        walk(function.body)
    return found


# -- refine_module: the static module ---------------------------------------------------------


def test_refined_module_is_static_and_checked():
    (module,) = parse_mlir(corpus_text("dynamic_matvec"))
    refined = refine_module(module, [f32(3, 6), f32(6)])
    main = refined.function("main")
    assert [t.text for _, t in main.arguments] == ["tensor<3x6xf32>", "tensor<6xf32>"]
    assert [t.text for t in main.result_types] == [
        "tensor<3xf32>", "tensor<3xf32>", "tensor<3xi32>"]  # fmt: skip
    assert not module_is_polymorphic(refined)
    assert not any("?" in t for t in _types(refined))
    names = [op.attributes.get("call_target_name") for f in refined.functions
             for op in f.body.blocks[0].operations]  # fmt: skip
    assert all(getattr(n, "name", n) != "shape_assertion" for n in names)
    # The dimension sizes (jax.global_constant arguments) became constants of the callee.
    callee = refined.function("_wrapped_jax_export_main")
    assert [t.text for _, t in callee.arguments] == ["tensor<3x6xf32>", "tensor<6xf32>"]
    first = callee.body.blocks[0].operations[:2]
    assert [(op.name, op.results[0]) for op in first] == [
        ("stablehlo.constant", "%arg0"), ("stablehlo.constant", "%arg1")]  # fmt: skip
    # The input module is untouched.
    assert module_is_polymorphic(module)
    assert module.function("main").arguments[0][1].text == "tensor<?x?xf32>"


def test_polymorphic_module_compiles_once_per_signature():
    module = polymorphic(corpus_text("dynamic_rows"))
    assert module.parameter_types == ["tensor<?x4xf32>"]
    executable = module.compile_per_signature(interpreter())
    rng = np.random.default_rng(0)
    for rows in (5, 2, 5):
        x = rng.standard_normal((rows, 4)).astype(np.float32)
        total, gram, stacked = executable(x)
        np.testing.assert_allclose(total, np.sum(np.sin(x) * 2, axis=0), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(gram, x.T @ x, rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(stacked, np.concatenate([x, x * 2]))
    assert [key[0][1] for key in executable.signatures] == [(5, 4), (2, 4)]


def test_map_hlo_transforms_each_signature():
    seen = []

    def rename(module):
        seen.append(module.entry.program_shape.parameters[0].dimensions)
        module.name = "renamed"
        return module

    module = polymorphic(corpus_text("dynamic_rows")).map_hlo(rename)
    assert module.hlo_module([f32(3, 4)]).name == "renamed"
    assert seen == [(3, 4)]


# -- shape assertions: JAX's messages -----------------------------------------------------------


def test_failed_assertion_reports_jax_message_with_values():
    executable = polymorphic(corpus_text("dynamic_matvec")).compile_per_signature(interpreter())
    a = np.ones((3, 6), np.float32)
    with pytest.raises(InvalidArgumentError) as info:
        executable(a, np.ones(5, np.float32))
    message = str(info.value)
    assert message.startswith("Input shapes do not match the polymorphic shapes specification. "
                              "Found inconsistency between dimension size args[1].shape[0] "
                              "(= 5) and the specification 'k' (= 6).")
    assert "'b' = 3 from specification 'b' for dimension args[0].shape[0] (= 3)" in message
    assert executable.signatures == []  # nothing compiled for the bad signature


def test_lower_bound_and_divisibility_assertions():
    matvec = polymorphic(corpus_text("dynamic_matvec"))
    with pytest.raises(InvalidArgumentError, match="Expected value >= 1 for dimension variable "
                       "'b'.*'b' = 0 from specification 'b'"):  # fmt: skip
        matvec.hlo_module([f32(0, 6), f32(6)])
    even = polymorphic(corpus_text("dynamic_even_rows"))
    with pytest.raises(InvalidArgumentError, match="Division had remainder 1 when computing"):
        even.hlo_module([f32(7, 3)])
    shape = even.hlo_module([f32(8, 3)]).entry.program_shape
    assert [str(s) for s in shape.result.tuple_shapes] == [
        "f32[4,6]{1,0}", "f32[4,3]{1,0}", "f32[5,2]{1,0}"]  # fmt: skip


def test_arguments_must_fit_the_declared_types():
    module = polymorphic(corpus_text("dynamic_rows"))
    with pytest.raises(InvalidArgumentError, match=r"argument 0 \(%arg0\) of @main: expected "
                       r"tensor<\?x4xf32>, got f32\[5,3\]"):  # fmt: skip
        module.hlo_module([f32(5, 3)])
    with pytest.raises(InvalidArgumentError, match="expected tensor<.x4xf32>, got s32"):
        module.hlo_module([Shape.array(PrimitiveType.S32, [5, 4])])
    with pytest.raises(InvalidArgumentError, match="takes 1 arguments"):
        module.hlo_module([f32(5, 4), f32(5, 4)])


# -- the dynamic ops, hand-written ------------------------------------------------------------

DYNAMIC_OPS = """
func.func @main(%x: tensor<?xf32>) -> (tensor<?xi32>, tensor<2x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?x2xf32>) {
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %two = stablehlo.constant dense<2> : tensor<i32>
  %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %iota = stablehlo.dynamic_iota %n1, dim = 0 : (tensor<1xi32>) -> tensor<?xi32>
  %half = stablehlo.divide %n, %two : tensor<i32>
  %h1 = stablehlo.reshape %half : (tensor<i32>) -> tensor<1xi32>
  %c2 = stablehlo.constant dense<2> : tensor<1xi32>
  %shape = stablehlo.concatenate %c2, %h1, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %r = stablehlo.dynamic_reshape %x, %shape : (tensor<?xf32>, tensor<2xi32>) -> tensor<2x?xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %lo = stablehlo.constant dense<1> : tensor<1xi32>
  %hi = stablehlo.constant dense<2> : tensor<1xi32>
  %in = stablehlo.constant dense<0> : tensor<1xi32>
  %p = stablehlo.dynamic_pad %x, %zero, %lo, %hi, %in : (tensor<?xf32>, tensor<f32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<?xf32>
  %nm1 = stablehlo.subtract %n, %one : tensor<i32>
  %limit = stablehlo.reshape %nm1 : (tensor<i32>) -> tensor<1xi32>
  %s = "stablehlo.real_dynamic_slice"(%x, %lo, %limit, %lo) : (tensor<?xf32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<?xf32>
  %bshape = stablehlo.concatenate %n1, %c2, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %b = stablehlo.dynamic_broadcast_in_dim %x, %bshape, dims = [0] : (tensor<?xf32>, tensor<2xi32>) -> tensor<?x2xf32>
  return %iota, %r, %p, %s, %b : tensor<?xi32>, tensor<2x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?x2xf32>
}
"""


def test_dynamic_ops_take_their_folded_shapes():
    executable = polymorphic(DYNAMIC_OPS).compile_per_signature(interpreter())
    for n in (4, 6):
        x = np.arange(n, dtype=np.float32) + 1
        iota, reshaped, padded, sliced, broadcast = executable(x)
        np.testing.assert_array_equal(iota, np.arange(n, dtype=np.int32))
        np.testing.assert_array_equal(reshaped, x.reshape(2, n // 2))
        np.testing.assert_array_equal(padded, np.pad(x, (1, 2)))
        np.testing.assert_array_equal(sliced, x[1 : n - 1])
        np.testing.assert_array_equal(broadcast, np.stack([x, x], axis=1))


def test_experimental_dynamic_top_k_becomes_top_k():
    text = """
    func.func @main(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xi32>) {
      %k = stablehlo.constant dense<2> : tensor<i64>
      %v, %i = stablehlo.custom_call @stablehlo.dynamic_top_k(%x, %k) : (tensor<?xf32>, tensor<i64>) -> (tensor<?xf32>, tensor<?xi32>)
      return %v, %i : tensor<?xf32>, tensor<?xi32>
    }"""
    values, indices = polymorphic(text).compile_per_signature(interpreter())(
        np.array([1, 5, 3, 4], np.float32))  # fmt: skip
    np.testing.assert_array_equal(values, [5, 4])
    np.testing.assert_array_equal(indices, [1, 3])


def test_dynamic_conv_with_unknown_batch():
    text = """
    func.func @main(%x: tensor<?x4x4x1xf32>, %w: tensor<3x3x1x1xf32>) -> tensor<?x4x4x1xf32> {
      %padding = stablehlo.constant dense<1> : tensor<2x2xi64>
      %0 = "stablehlo.dynamic_conv"(%x, %w, %padding) {
        window_strides = array<i64: 1, 1>,
        dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>,
        batch_group_count = 1 : i64, feature_group_count = 1 : i64
      } : (tensor<?x4x4x1xf32>, tensor<3x3x1x1xf32>, tensor<2x2xi64>) -> tensor<?x4x4x1xf32>
      return %0 : tensor<?x4x4x1xf32>
    }"""
    executable = polymorphic(text).compile_per_signature(interpreter())
    y = executable(np.ones((2, 4, 4, 1), np.float32), np.ones((3, 3, 1, 1), np.float32))
    assert y.shape == (2, 4, 4, 1)
    np.testing.assert_array_equal(y[0, :, :, 0], [[4, 6, 6, 4], [6, 9, 9, 6], [6, 9, 9, 6],
                                                  [4, 6, 6, 4]])  # fmt: skip


def test_experimental_dynamic_rng_bit_generator_takes_its_output_shape():
    text = """
    func.func @main(%x: tensor<?xf32>, %state: tensor<2xui64>) -> (tensor<2xui64>, tensor<?x3xui32>) {
      %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?xf32>) -> tensor<i32>
      %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
      %c3 = stablehlo.constant dense<3> : tensor<1xi32>
      %shape = stablehlo.concatenate %n1, %c3, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
      %s, %bits = stablehlo.custom_call @stablehlo.dynamic_rng_bit_generator(%state, %shape) {mhlo.attributes = {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>}} : (tensor<2xui64>, tensor<2xi32>) -> (tensor<2xui64>, tensor<?x3xui32>)
      return %s, %bits : tensor<2xui64>, tensor<?x3xui32>
    }"""
    module = polymorphic(text)
    shapes = [f32(5), Shape.array(PrimitiveType.U64, [2])]
    hlo = module.hlo_module(shapes)
    assert "rng-bit-generator" in str(hlo) and "algorithm=rng_three_fry" in str(hlo)
    state, bits = module.compile_per_signature(interpreter())(
        np.zeros(5, np.float32), np.array([1, 2], np.uint64))  # fmt: skip
    assert bits.shape == (5, 3) and bits.dtype == np.uint32 and state.shape == (2,)


def test_callee_specialized_per_constant():
    """One callee, called with two different dimension constants: two static copies."""
    text = """
    func.func @main(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
      %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?xf32>) -> tensor<i32>
      %two = stablehlo.constant dense<2> : tensor<i32>
      %m = stablehlo.multiply %n, %two : tensor<i32>
      %a = call @ones(%n) : (tensor<i32>) -> tensor<?xf32>
      %b = call @ones(%m) : (tensor<i32>) -> tensor<?xf32>
      return %a, %b : tensor<?xf32>, tensor<?xf32>
    }
    func.func private @ones(%d: tensor<i32> {jax.global_constant = "d"}) -> tensor<?xf32> {
      %one = stablehlo.constant dense<1.0> : tensor<f32>
      %s = stablehlo.reshape %d : (tensor<i32>) -> tensor<1xi32>
      %r = stablehlo.dynamic_broadcast_in_dim %one, %s, dims = [] : (tensor<f32>, tensor<1xi32>) -> tensor<?xf32>
      return %r : tensor<?xf32>
    }"""
    (module,) = parse_mlir(text)
    refined = refine_module(module, [f32(3)])
    results = {f.name: [t.text for t in f.result_types] for f in refined.functions}
    assert results == {"main": ["tensor<3xf32>", "tensor<6xf32>"], "ones": ["tensor<3xf32>"],
                       "ones_refined_1": ["tensor<6xf32>"]}  # fmt: skip
    a, b = polymorphic(text).compile_per_signature(interpreter())(np.zeros(3, np.float32))
    assert a.shape == (3,) and b.shape == (6,)


# -- what refinement refuses ----------------------------------------------------------------------


def test_shape_from_runtime_data_is_refused():
    text = """
    func.func @main(%x: tensor<?xf32>, %n: tensor<1xi32>) -> tensor<?xi32> {
      %r = stablehlo.dynamic_iota %n, dim = 0 : (tensor<1xi32>) -> tensor<?xi32>
      return %r : tensor<?xi32>
    }"""
    shapes = [f32(3), Shape.array(PrimitiveType.S32, [1])]
    with pytest.raises(UnimplementedError, match="dynamic_iota at line 3.*computed at run time"):
        polymorphic(text).hlo_module(shapes)


def test_static_size_contradicting_refinement_is_an_error():
    text = """
    func.func @main(%x: tensor<?xf32>) -> tensor<4xf32> {
      %y = stablehlo.abs %x : (tensor<?xf32>) -> tensor<4xf32>
      return %y : tensor<4xf32>
    }"""
    with pytest.raises(InvalidArgumentError, match="abs at line 3: result 0 is declared"):
        polymorphic(text).hlo_module([f32(3)])


def test_static_arguments_with_unknown_inner_types_are_refined_at_import():
    text = """
    func.func @main(%x: tensor<3xf32>) -> tensor<?xf32> {
      %y = stablehlo.abs %x : (tensor<3xf32>) -> tensor<?xf32>
      return %y : tensor<?xf32>
    }"""
    module = parse_module(text)
    assert str(module.entry.program_shape.result) == "f32[3]{0}"
    program = parse_program(text)
    assert not program.is_polymorphic()


def test_modules_marked_polymorphic_have_their_assertions_checked():
    """jax.uses_shape_polymorphism: refined (assertions evaluated, then removed) even when
    every type is static."""
    text = """
    module @m attributes {jax.uses_shape_polymorphism = true} {
      func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
        %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<3xf32>) -> tensor<i32>
        %four = stablehlo.constant dense<4> : tensor<i32>
        %ok = stablehlo.compare GE, %n, %four, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.custom_call @shape_assertion(%ok, %n, %four) {error_message = "size {0} < {1}", has_side_effect = true} : (tensor<i1>, tensor<i32>, tensor<i32>) -> ()
        return %x : tensor<3xf32>
      }
    }"""
    with pytest.raises(InvalidArgumentError, match="^size 3 < 4$"):
        parse_module(text)
    module = parse_module(text.replace("GE", "LE"))
    assert "shape_assertion" not in str(module)
