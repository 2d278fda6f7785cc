"""The pretty and the generic form of the same program parse to equal ASTs.

Equal means: same functions, ops, attribute values and types, once SSA names
are replaced by their order of definition (the two printers name values
differently) and positions are dropped. Three sources of pairs: pairs written
by hand (including the ``check`` / ``interpreter`` ops no MLIR build here
knows), MLIR itself (jaxlib's bindings print any module both ways) and JAX's
lowering of real functions.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from xlapy.stablehlo import ast
from xlapy.stablehlo.parse import parse_mlir

CONFORMANCE = Path(__file__).resolve().parents[2].parent / "shared" / "conformance" / "stablehlo"


def canonical(module: ast.Module) -> tuple:
    """The module with SSA names numbered by definition (scoped) and positions dropped."""
    counter = [0]
    scopes: list[dict[str, str]] = [{}]

    def define(name: str) -> str:
        counter[0] += 1
        scopes[-1][name] = f"%v{counter[0]}"
        return scopes[-1][name]

    def use(name: str) -> str:
        for scope in reversed(scopes):
            if name in scope:
                return scope[name]
        raise AssertionError(f"{name} is used but never defined")

    def region(r: ast.Region) -> list:
        scopes.append({})
        blocks = []
        for b in r.blocks:
            args = [(define(a), t) for a, t in b.arguments]
            ops = []
            for op in b.operations:
                operands = [use(o) for o in op.operands]
                regions = [region(inner) for inner in op.regions]
                results = [define(x) for x in op.results]
                ops.append(
                    (op.name, operands, op.operand_types, results, op.result_types)
                    + (op.attributes, regions)
                )
            blocks.append((args, ops))
        scopes.pop()
        return blocks

    functions = []
    for f in module.functions:
        counter[0] = 0
        functions.append(
            (f.name, f.visibility, [t for _, t in f.arguments], f.argument_attributes)
            + (f.result_types, f.result_attributes, region(f.body), f.attributes)
        )
    return module.name, module.attributes, functions


def _nan_equal(a: object, b: object) -> bool:
    return isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)


def first_difference(a: object, b: object, path: str = "module") -> str | None:
    """Where two canonical forms differ (a readable assertion message), or None."""
    if type(a) is not type(b):
        return f"{path}: {type(a).__name__} {a!r:.200} vs {type(b).__name__} {b!r:.200}"
    if isinstance(a, (list, tuple)):
        if len(a) != len(b):
            return f"{path}: {len(a)} vs {len(b)} items: {a!r:.300} vs {b!r:.300}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    if isinstance(a, dict):
        if set(a) != set(b):
            return f"{path}: keys {sorted(a)} vs {sorted(b)}"
        for k in a:
            d = first_difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if a != b and not _nan_equal(a, b):
        return f"{path}: {a!r:.300} vs {b!r:.300}"
    return None


def assert_same_program(text_a: str, text_b: str) -> None:
    modules_a, modules_b = parse_mlir(text_a), parse_mlir(text_b)
    assert len(modules_a) == len(modules_b)
    for a, b in zip(modules_a, modules_b, strict=True):
        d = first_difference(canonical(a), canonical(b))
        assert d is None, d


def _wrap(body: str, args: str = "") -> str:
    return f"func.func @f({args}) {{\n{body}\n  func.return\n}}"


# -- pairs written by hand -------------------------------------------------------------------

_ARGS = (
    "%a: tensor<4xf32>, %b: tensor<4xf32>, %m: tensor<2x3xf32>, %i: tensor<i64>, "
    "%t: !stablehlo.token, %c: tensor<4xcomplex<f32>>, %p: tensor<4xi1>, %z: tensor<f32>, "
    "%tup: tuple<tensor<4xf32>, tuple<tensor<i64>>>"
)

HAND_PAIRS: dict[str, tuple[str, str]] = {
    "add": (
        "%0 = stablehlo.add %a, %b : tensor<4xf32>",
        '%0 = "stablehlo.add"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>',
    ),
    "abs_complex": (
        "%0 = stablehlo.abs %c : (tensor<4xcomplex<f32>>) -> tensor<4xf32>",
        '%0 = "stablehlo.abs"(%c) : (tensor<4xcomplex<f32>>) -> tensor<4xf32>',
    ),
    "compare": (
        "%0 = stablehlo.compare  LT, %a, %b,  FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>",
        '%0 = "stablehlo.compare"(%a, %b) {comparison_direction = #stablehlo<comparison_direction'
        " LT>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<4xf32>, tensor<4xf32>)"
        " -> tensor<4xi1>",
    ),
    "constant": (
        "%0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>",
        '%0 = "stablehlo.constant"() <{value = dense<[1.0, 2.0]> : tensor<2xf32>}> '
        ": () -> tensor<2xf32>",
    ),
    "broadcast_in_dim": (
        "%0 = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> tensor<2x3xf32>",
        '%0 = "stablehlo.broadcast_in_dim"(%z) {broadcast_dimensions = array<i64>} '
        ": (tensor<f32>) -> tensor<2x3xf32>",
    ),
    "transpose": (
        "%0 = stablehlo.transpose %m, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>",
        '%0 = "stablehlo.transpose"(%m) <{permutation = array<i64: 1, 0>}> '
        ": (tensor<2x3xf32>) -> tensor<3x2xf32>",
    ),
    "slice": (
        "%0 = stablehlo.slice %m [0:2, 1:3:2] : (tensor<2x3xf32>) -> tensor<2x1xf32>",
        '%0 = "stablehlo.slice"(%m) {start_indices = array<i64: 0, 1>, limit_indices = '
        "array<i64: 2, 3>, strides = array<i64: 1, 2>} : (tensor<2x3xf32>) -> tensor<2x1xf32>",
    ),
    "iota": (
        "%0 = stablehlo.iota dim = 0 : tensor<4xf32>",
        '%0 = "stablehlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<4xf32>',
    ),
    "concatenate": (
        "%0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>",
        '%0 = "stablehlo.concatenate"(%a, %b) {dimension = 0 : i64} '
        ": (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>",
    ),
    "pad": (
        "%0 = stablehlo.pad %a, %z, low = [1], high = [2], interior = [0] "
        ": (tensor<4xf32>, tensor<f32>) -> tensor<7xf32>",
        '%0 = "stablehlo.pad"(%a, %z) {edge_padding_low = array<i64: 1>, edge_padding_high = '
        "array<i64: 2>, interior_padding = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> "
        "tensor<7xf32>",
    ),
    "dynamic_slice": (
        "%0 = stablehlo.dynamic_slice %a, %i, sizes = [2] : (tensor<4xf32>, tensor<i64>) -> tensor<2xf32>",
        '%0 = "stablehlo.dynamic_slice"(%a, %i) {slice_sizes = array<i64: 2>} '
        ": (tensor<4xf32>, tensor<i64>) -> tensor<2xf32>",
    ),
    "dot_general": (
        "%0 = stablehlo.dot_general %m, %m, batching_dims = [0] x [0], contracting_dims = [1] x [1],"
        " precision = [DEFAULT, HIGHEST] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2xf32>",
        '%0 = "stablehlo.dot_general"(%m, %m) {dot_dimension_numbers = #stablehlo.dot<'
        "lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions"
        " = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision "
        "DEFAULT>, #stablehlo<precision HIGHEST>]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> "
        "tensor<2xf32>",
    ),
    "select": (
        "%0 = stablehlo.select %p, %a, %b : tensor<4xi1>, tensor<4xf32>",
        '%0 = "stablehlo.select"(%p, %a, %b) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) '
        "-> tensor<4xf32>",
    ),
    "clamp": (
        "%0 = stablehlo.clamp %z, %a, %z : (tensor<f32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>",
        '%0 = "stablehlo.clamp"(%z, %a, %z) : (tensor<f32>, tensor<4xf32>, tensor<f32>) '
        "-> tensor<4xf32>",
    ),
    "complex": (
        "%0 = stablehlo.complex %a, %b : tensor<4xcomplex<f32>>",
        '%0 = "stablehlo.complex"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> '
        "tensor<4xcomplex<f32>>",
    ),
    "tuple": (
        "%0 = stablehlo.tuple %a, %i : tuple<tensor<4xf32>, tensor<i64>>",
        '%0 = "stablehlo.tuple"(%a, %i) : (tensor<4xf32>, tensor<i64>) -> '
        "tuple<tensor<4xf32>, tensor<i64>>",
    ),
    "get_tuple_element": (
        "%0 = stablehlo.get_tuple_element %tup[1] : (tuple<tensor<4xf32>, tuple<tensor<i64>>>)"
        " -> tuple<tensor<i64>>",
        '%0 = "stablehlo.get_tuple_element"(%tup) {index = 1 : i32} : '
        "(tuple<tensor<4xf32>, tuple<tensor<i64>>>) -> tuple<tensor<i64>>",
    ),
    "after_all": (
        "%0 = stablehlo.after_all %t, %t : !stablehlo.token",
        '%0 = "stablehlo.after_all"(%t, %t) : (!stablehlo.token, !stablehlo.token) -> '
        "!stablehlo.token",
    ),
    "optimization_barrier": (
        "%0:2 = stablehlo.optimization_barrier %a, %i : tensor<4xf32>, tensor<i64>",
        '%0:2 = "stablehlo.optimization_barrier"(%a, %i) : (tensor<4xf32>, tensor<i64>) -> '
        "(tensor<4xf32>, tensor<i64>)",
    ),
    "reduce_precision": (
        "%0 = stablehlo.reduce_precision %a, format = e5m10 : tensor<4xf32>",
        '%0 = "stablehlo.reduce_precision"(%a) {exponent_bits = 5 : i32, mantissa_bits = 10 : '
        "i32} : (tensor<4xf32>) -> tensor<4xf32>",
    ),
    "fft": (
        "%0 = stablehlo.fft %c, type = FFT, length = [4] : (tensor<4xcomplex<f32>>) -> "
        "tensor<4xcomplex<f32>>",
        '%0 = "stablehlo.fft"(%c) {fft_type = #stablehlo<fft_type FFT>, fft_length = array<i64: 4>}'
        " : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>",
    ),
    "custom_call": (
        '%0 = stablehlo.custom_call @foo(%a) {backend_config = "", has_side_effect = true, '
        "api_version = 2 : i32} : (tensor<4xf32>) -> tensor<4xf32>",
        '%0 = "stablehlo.custom_call"(%a) {call_target_name = "foo", backend_config = "", '
        "has_side_effect = true, api_version = 2 : i32} : (tensor<4xf32>) -> tensor<4xf32>",
    ),
    "convolution": (
        "%0 = stablehlo.convolution(%m, %m) dim_numbers = [b, 0, f]x[o, 0, i]->[b, 0, f], "
        "window = {stride = [1], pad = [[1, 1]], lhs_dilate = [1], rhs_dilate = [2], reverse = "
        "[false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : "
        "(tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x1xf32>",
        '%0 = "stablehlo.convolution"(%m, %m) {dimension_numbers = #stablehlo.conv<[b, 0, f]x'
        "[o, 0, i]->[b, 0, f]>, window_strides = array<i64: 1>, padding = dense<1> : "
        "tensor<1x2xi64>, lhs_dilation = array<i64: 1>, rhs_dilation = array<i64: 2>, "
        "window_reversal = array<i1: false>, batch_group_count = 1 : i64, feature_group_count ="
        " 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x1xf32>",
    ),
    "reduce_applies": (
        "%0 = stablehlo.reduce(%m init: %z) applies stablehlo.add across dimensions = [1] : "
        "(tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>",
        '%0 = "stablehlo.reduce"(%m, %z) ({\n  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n'
        "    %s = stablehlo.add %x, %y : tensor<f32>\n    stablehlo.return %s : tensor<f32>\n"
        "  }) {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>",
    ),
    "reduce_variadic": (
        "%0:2 = stablehlo.reduce(%m init: %z), (%m init: %z) across dimensions = [0] : "
        "(tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>, tensor<f32>) -> (tensor<3xf32>, "
        "tensor<3xf32>)\n reducer(%a1: tensor<f32>, %b1: tensor<f32>) (%a2: tensor<f32>, %b2: "
        "tensor<f32>) {\n  %s = stablehlo.add %a1, %b1 : tensor<f32>\n  %q = stablehlo.maximum "
        "%a2, %b2 : tensor<f32>\n  stablehlo.return %s, %q : tensor<f32>, tensor<f32>\n }",
        '%0:2 = "stablehlo.reduce"(%m, %m, %z, %z) ({\n  ^bb0(%a1: tensor<f32>, %a2: '
        "tensor<f32>, %b1: tensor<f32>, %b2: tensor<f32>):\n  %s = stablehlo.add %a1, %b1 : "
        "tensor<f32>\n  %q = stablehlo.maximum %a2, %b2 : tensor<f32>\n  stablehlo.return %s, "
        "%q : tensor<f32>, tensor<f32>\n }) {dimensions = array<i64: 0>} : (tensor<2x3xf32>, "
        "tensor<2x3xf32>, tensor<f32>, tensor<f32>) -> (tensor<3xf32>, tensor<3xf32>)",
    ),
    "while": (
        "%0:2 = stablehlo.while(%it = %i, %acc = %a) : tensor<i64>, tensor<4xf32>\n cond {\n"
        "  %k = stablehlo.compare LT, %it, %i : (tensor<i64>, tensor<i64>) -> tensor<i1>\n"
        "  stablehlo.return %k : tensor<i1>\n } do {\n"
        "  stablehlo.return %it, %acc : tensor<i64>, tensor<4xf32>\n }",
        '%0:2 = "stablehlo.while"(%i, %a) ({\n ^bb0(%x: tensor<i64>, %y: tensor<4xf32>):\n'
        '  %k = "stablehlo.compare"(%x, %i) {comparison_direction = #stablehlo<comparison_'
        "direction LT>} : (tensor<i64>, tensor<i64>) -> tensor<i1>\n"
        '  "stablehlo.return"(%k) : (tensor<i1>) -> ()\n }, {\n'
        " ^bb0(%x: tensor<i64>, %y: tensor<4xf32>):\n"
        '  "stablehlo.return"(%x, %y) : (tensor<i64>, tensor<4xf32>) -> ()\n'
        " }) : (tensor<i64>, tensor<4xf32>) -> (tensor<i64>, tensor<4xf32>)",
    ),
    "check_expect_eq": (
        "check.expect_eq %a, %b : tensor<4xf32>",
        '"check.expect_eq"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> ()',
    ),
    "check_expect_eq_const": (
        "check.expect_eq_const %i, dense<3> : tensor<i64>",
        '"check.expect_eq_const"(%i) {value = dense<3> : tensor<i64>} : (tensor<i64>) -> ()',
    ),
    "check_expect_almost_eq_const": (
        "check.expect_almost_eq_const %a, dense<1.0> : tensor<4xf32>, tolerance = 0.01",
        '"check.expect_almost_eq_const"(%a) {value = dense<1.0> : tensor<4xf32>, tolerance = '
        "1.000000e-02 : f64} : (tensor<4xf32>) -> ()",
    ),
    "check_expect_close": (
        "check.expect_close %a, %b, max_ulp_difference = 3 : tensor<4xf32>, tensor<4xf32>",
        '"check.expect_close"(%a, %b) {max_ulp_difference = 3 : ui64} : (tensor<4xf32>, '
        "tensor<4xf32>) -> ()",
    ),
    "check_expect_serialized_eq": (
        'check.expect_serialized_eq %i, probe_id = "p", iter = 2 : tensor<i64>',
        '"check.expect_serialized_eq"(%i) {probe_id = "p", iteration = 2 : ui32} : '
        "(tensor<i64>) -> ()",
    ),
    "interpreter_probe": (
        '%0 = interpreter.probe %a, probe_id = "p" : tensor<4xf32>',
        '%0 = "interpreter.probe"(%a) {probe_id = "p"} : (tensor<4xf32>) -> tensor<4xf32>',
    ),
    "chlo_unary": (
        "%0 = chlo.lgamma %a : tensor<4xf32> -> tensor<4xf32>",
        '%0 = "chlo.lgamma"(%a) : (tensor<4xf32>) -> tensor<4xf32>',
    ),
    "chlo_top_k": (
        "%v, %ix = chlo.top_k(%a, k = 2) : tensor<4xf32> -> (tensor<2xf32>, tensor<2xi32>)",
        '%0:2 = "chlo.top_k"(%a) {k = 2 : i64} : (tensor<4xf32>) -> (tensor<2xf32>, tensor<2xi32>)',
    ),
    "composite": (
        '%0 = stablehlo.composite "my.op" %a {composite_attributes = {n = 1 : i32}, '
        "decomposition = @g} : (tensor<4xf32>) -> tensor<4xf32>",
        '%0 = "stablehlo.composite"(%a) <{name = "my.op", composite_attributes = {n = 1 : i32},'
        " decomposition = @g}> : (tensor<4xf32>) -> tensor<4xf32>",
    ),
    "call": (
        "%0 = call @g(%a) : (tensor<4xf32>) -> tensor<4xf32>",
        '%0 = "func.call"(%a) <{callee = @g}> : (tensor<4xf32>) -> tensor<4xf32>',
    ),
}


@pytest.mark.parametrize("name", sorted(HAND_PAIRS))
def test_hand_written_pairs(name: str) -> None:
    pretty, generic = HAND_PAIRS[name]
    assert_same_program(_wrap(pretty, _ARGS), _wrap(generic, _ARGS))


def test_generic_module_and_function_match_pretty() -> None:
    pretty = """
module @m attributes {mhlo.num_replicas = 2 : i32} {
  func.func private @g(%x: tensor<f32> {mhlo.sharding = "{replicated}"}) -> (tensor<f32> {jax.result_info = "r"}) {
    return %x : tensor<f32>
  }
}"""
    generic = """
"builtin.module"() <{sym_name = "m"}> ({
  "func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "g",
      sym_visibility = "private", arg_attrs = [{mhlo.sharding = "{replicated}"}],
      res_attrs = [{jax.result_info = "r"}]}> ({
  ^bb0(%arg0: tensor<f32>):
    "func.return"(%arg0) : (tensor<f32>) -> ()
  }) : () -> ()
}) {mhlo.num_replicas = 2 : i32} : () -> ()"""
    assert_same_program(pretty, generic)


# -- MLIR as the oracle: jaxlib prints the same module in both forms -----------------------------


@pytest.fixture(scope="module")
def mlir_context():
    pytest.importorskip("jax", reason="jaxlib's MLIR bindings print the generic form")
    from jax._src.interpreters import mlir
    from jax._src.lib.mlir import ir

    return mlir.make_ir_context(), ir


def both_forms(mlir_context, text: str) -> tuple[str, str]:
    context, ir = mlir_context
    with context:
        module = ir.Module.parse(text)
        return module.operation.get_asm(), module.operation.get_asm(print_generic_op_form=True)


# Written in the generic form: MLIR chooses each op's pretty form when printing.
ORACLE_PROGRAMS = {
    "collectives_and_control": """
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.composite"(%a) {name = "foo.bar", decomposition = @g, composite_attributes = {a = 1 : i32}} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "stablehlo.all_reduce"(%0) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0]]> : tensor<1x1xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "stablehlo.slice"(%1) {start_indices = array<i64: 0>, limit_indices = array<i64: 2>, strides = array<i64: 1>} : (tensor<4xf32>) -> tensor<2xf32>
  %k = stablehlo.constant dense<0> : tensor<i32>
  %3 = "stablehlo.case"(%k) ({ stablehlo.return %2 : tensor<2xf32> }, { stablehlo.return %2 : tensor<2xf32> }) : (tensor<i32>) -> tensor<2xf32>
  %p = stablehlo.constant dense<true> : tensor<i1>
  %4 = "stablehlo.if"(%p) ({ stablehlo.return %2 : tensor<2xf32> }, { stablehlo.return %3 : tensor<2xf32> }) : (tensor<i1>) -> tensor<2xf32>
  %5 = "stablehlo.all_gather"(%a) {all_gather_dim = 0 : i64, replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  %6 = stablehlo.create_token : !stablehlo.token
  %7 = "stablehlo.collective_broadcast"(%a) {replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  %8 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], algorithm = #stablehlo.dot_algorithm<lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  %9 = "stablehlo.exponential"(%a) {result_accuracy = #stablehlo.result_accuracy<atol = 1.0e-5, rtol = 0.0, ulps = 1, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : (tensor<4xf32>) -> tensor<4xf32>
  %10 = "stablehlo.sort"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %q = stablehlo.compare LT, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %q : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<4xf32>) -> tensor<4xf32>
  %11:2 = "stablehlo.custom_call"(%a) {call_target_name = "foo", api_version = 2 : i32, backend_config = "x", output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>]} : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  %12:2 = chlo.top_k(%a, k = 2) : tensor<4xf32> -> (tensor<2xf32>, tensor<2xi32>)
  return %1 : tensor<4xf32>
}
func.func private @g(%a: tensor<4xf32>) -> tensor<4xf32> { return %a : tensor<4xf32> }
""",
    "pretty_forms": """
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>, %m: tensor<3x3xf32>, %i: tensor<i32>, %s: tensor<1xi64>, %x: tensor<1x4x4x1xf32>, %k: tensor<3x3x1x1xf32>, %pad: tensor<2x2xi64>, %tok: !stablehlo.token, %c: tensor<4xcomplex<f32>>, %t: tuple<tensor<4xf32>, tensor<i32>>) -> tensor<4xf32> {
  %0 = "stablehlo.dynamic_conv"(%x, %k, %pad) {window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>, tensor<2x2xi64>) -> tensor<1x4x4x1xf32>
  %1 = "stablehlo.convolution"(%x, %k) {window_strides = array<i64: 1, 1>, padding = dense<1> : tensor<2x2xi64>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: true, false>, dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = [1, 2], kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>, batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision HIGHEST>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x4x4x1xf32>
  %2 = "stablehlo.dot"(%m, %m) {precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision HIGHEST>]} : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  %3 = "stablehlo.broadcast"(%a) {broadcast_sizes = array<i64: 2>} : (tensor<4xf32>) -> tensor<2x4xf32>
  %4 = "stablehlo.cholesky"(%m) {lower = true} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %o = stablehlo.constant dense<1.0> : tensor<f32>
  %sh = stablehlo.constant dense<[3, 3]> : tensor<2xi64>
  %5 = "stablehlo.rng"(%z, %o, %sh) {rng_distribution = #stablehlo<rng_distribution NORMAL>} : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<3x3xf32>
  %6 = "stablehlo.set_dimension_size"(%a, %i) {dimension = 0 : i64} : (tensor<4xf32>, tensor<i32>) -> tensor<4xf32>
  %sh2 = stablehlo.constant dense<[3, 4]> : tensor<2xi64>
  %7 = "stablehlo.dynamic_broadcast_in_dim"(%a, %sh2) {broadcast_dimensions = array<i64: 1>, known_expanding_dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<2xi64>) -> tensor<?x4xf32>
  %8 = "stablehlo.map"(%a, %b) ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %r = stablehlo.add %p, %q : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %9:3 = "stablehlo.batch_norm_training"(%x, %a, %a) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<1x4x4x1xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x4x1xf32>, tensor<4xf32>, tensor<4xf32>)
  %10 = "stablehlo.real"(%c) : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %11 = "stablehlo.complex"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xcomplex<f32>>
  %12 = "stablehlo.tuple"(%a, %i) : (tensor<4xf32>, tensor<i32>) -> tuple<tensor<4xf32>, tensor<i32>>
  %13 = "stablehlo.get_tuple_element"(%t) {index = 1 : i32} : (tuple<tensor<4xf32>, tensor<i32>>) -> tensor<i32>
  %14 = "stablehlo.after_all"(%tok, %tok) : (!stablehlo.token, !stablehlo.token) -> !stablehlo.token
  %15:2 = "stablehlo.optimization_barrier"(%a, %i) : (tensor<4xf32>, tensor<i32>) -> (tensor<4xf32>, tensor<i32>)
  %p1 = stablehlo.constant dense<true> : tensor<i1>
  %16 = "stablehlo.select"(%p1, %a, %b) : (tensor<i1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %17 = "stablehlo.clamp"(%z, %a, %o) : (tensor<f32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %18 = "stablehlo.reduce_precision"(%a) {exponent_bits = 5 : i32, mantissa_bits = 10 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  %19 = "stablehlo.compare"(%a, %b) {comparison_direction = #stablehlo<comparison_direction GE>, compare_type = #stablehlo<comparison_type TOTALORDER>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %20 = "stablehlo.fft"(%c) {fft_type = #stablehlo<fft_type FFT>, fft_length = array<i64: 4>} : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  %21:2 = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : (tensor<1xi64>) -> (tensor<1xi64>, tensor<4xui32>)
  %22 = "stablehlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<4xf32>
  %23 = "stablehlo.reverse"(%a) {dimensions = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
  %24 = "stablehlo.outfeed"(%a, %tok) {outfeed_config = ""} : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
  %25:2 = "stablehlo.infeed"(%tok) {infeed_config = ""} : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
  %26 = "stablehlo.send"(%a, %tok) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>, is_host_transfer = true} : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
  %27 = "stablehlo.triangular_solve"(%m, %m) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  %28 = "stablehlo.replica_id"() : () -> tensor<ui32>
  %29 = "stablehlo.real_dynamic_slice"(%a, %s, %s, %s) : (tensor<4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
  "stablehlo.optimization_barrier"() : () -> ()
  %30 = "stablehlo.after_all"() : () -> !stablehlo.token
  %31 = "stablehlo.get_dimension_size"(%a) {dimension = 0 : i64} : (tensor<4xf32>) -> tensor<i32>
  %32 = "stablehlo.bitcast_convert"(%a) : (tensor<4xf32>) -> tensor<4xi32>
  %33 = "stablehlo.convert"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %34 = "stablehlo.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>, foo = 1 : i32} : () -> tensor<2xf32>
  %35 = "stablehlo.is_finite"(%a) : (tensor<4xf32>) -> tensor<4xi1>
  %36 = "stablehlo.partition_id"() : () -> tensor<ui32>
  %37 = "stablehlo.dynamic_iota"(%s) {iota_dimension = 0 : i64} : (tensor<1xi64>) -> tensor<4xf32>
  %38 = "stablehlo.dynamic_reshape"(%a, %s) : (tensor<4xf32>, tensor<1xi64>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}
""",
    "reduce_while_and_attributes": """
func.func @f(%a: tensor<4x3xf32>, %z: tensor<f32>) -> tensor<3xf32> {
  %0 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4x3xf32>, tensor<f32>) -> tensor<3xf32>
  %1:2 = stablehlo.while(%iterArg = %a, %iterArg_0 = %z) : tensor<4x3xf32>, tensor<f32> attributes {foo = 1 : i64}
  cond {
    %c = stablehlo.compare LT, %iterArg_0, %z : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    stablehlo.return %iterArg, %iterArg_0 : tensor<4x3xf32>, tensor<f32>
  }
  %3 = stablehlo.reduce(%a init: %z) applies stablehlo.maximum across dimensions = [0] {foo = 2 : i64} : (tensor<4x3xf32>, tensor<f32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
""",
    "chlo_and_dense": """
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>, %m: tensor<2x4xf32>) -> tensor<4xf32> {
  %0 = "chlo.broadcast_add"(%a, %m) {broadcast_dimensions = array<i64: 1>} : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %1 = "chlo.is_inf"(%a) : (tensor<4xf32>) -> tensor<4xi1>
  %2 = "chlo.constant_like"(%a) {value = 1.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "chlo.constant"() {value = dense<1.0> : tensor<4xf32>} : () -> tensor<4xf32>
  %4 = "chlo.broadcast_compare"(%a, %b) {comparison_direction = #chlo<comparison_direction LT>, compare_type = #chlo<comparison_type FLOAT>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %5 = "chlo.next_after"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %6 = "stablehlo.constant"() {value = dense<"0x0000803F00000040"> : tensor<2xf32>} : () -> tensor<2xf32>
  %7 = "stablehlo.constant"() {value = dense<[1, -2, 3, -4, 5, 6, 7, -8, 1]> : tensor<9xi4>} : () -> tensor<9xi4>
  %8 = "stablehlo.constant"() {value = dense<[(1.0, 2.0), (3.0, -4.0)]> : tensor<2xcomplex<f32>>} : () -> tensor<2xcomplex<f32>>
  %9 = "stablehlo.constant"() {value = dense<[1.5, -2.0, 0x7FC0]> : tensor<3xbf16>} : () -> tensor<3xbf16>
  return %a : tensor<4xf32>
}
""",
}


@pytest.mark.parametrize("name", sorted(ORACLE_PROGRAMS))
def test_mlir_printed_pretty_and_generic_forms_agree(mlir_context, name: str) -> None:
    text = ORACLE_PROGRAMS[name]
    pretty, generic = both_forms(mlir_context, text)
    assert_same_program(pretty, generic)
    assert_same_program(text, generic)


def _conformance_sample() -> list:
    files = sorted(CONFORMANCE.glob("testdata/*.mlir"))
    if not files:
        return [pytest.param(None, marks=pytest.mark.skip(reason="no conformance suite"))]
    chosen: dict[str, Path] = {}
    for f in files:  # one file per op family (the name up to the first type or size)
        family = f.name.split("_")[0]
        for part in f.name.split("_")[1:]:
            if any(ch.isdigit() for ch in part) or part.startswith(
                ("float", "int", "uint", "bool")
            ):
                break
            family += "_" + part
        chosen.setdefault(family, f)
    return [pytest.param(f, id=f.name) for f in chosen.values()]


@pytest.mark.parametrize("path", _conformance_sample())
def test_conformance_file_in_both_forms(mlir_context, path: Path) -> None:
    """The JAX-written file, MLIR's generic print of it and MLIR's pretty reprint agree."""
    text = path.read_text()
    pretty, generic = both_forms(mlir_context, text)
    assert_same_program(text, generic)
    assert_same_program(pretty, generic)


# -- JAX as the source: real lowered functions -----------------------------------------------


def _jax_functions():
    jax = pytest.importorskip("jax", reason="JAX lowers the functions")
    jnp = jax.numpy
    lax = jax.lax
    f32 = jnp.ones((4, 4), jnp.float32)
    i32 = jnp.arange(8, dtype=jnp.int32).reshape(2, 4)
    c64 = jnp.ones((3,), jnp.complex64)
    return {
        "elementwise": (lambda x: jnp.sin(x) * 2 + jnp.exp(-x), (f32,)),
        "reduce_sum": (lambda x: jnp.sum(x, axis=0), (f32,)),
        "argmax": (lambda x: jnp.argmax(x, axis=1), (f32,)),
        "variadic_reduce": (
            lambda x, y: lax.reduce(
                (x, y), (0.0, 0.0), lambda p, q: (p[0] + q[0], jnp.maximum(p[1], q[1])), (1,)
            ),
            (f32, f32),
        ),
        "while_loop": (
            lambda x: lax.while_loop(lambda s: s[0] < 10, lambda s: (s[0] + 1, s[1] * 2), (0, x)),
            (f32,),
        ),
        "cond": (lambda x: lax.cond(x[0, 0] > 0, lambda: x + 1, lambda: x - 1), (f32,)),
        "switch": (lambda x: lax.switch(1, [lambda: x, lambda: -x, lambda: x * x]), (f32,)),
        "sort": (lambda x: jnp.sort(x, axis=1), (f32,)),
        "cumsum": (lambda x: jnp.cumsum(x, axis=0), (f32,)),
        "reduce_window": (
            lambda x: lax.reduce_window(x, 0.0, lax.add, (2, 2), (1, 1), "VALID"),
            (f32,),
        ),
        "scatter_add": (lambda x: x.at[jnp.array([0, 1])].add(1.0), (f32,)),
        "gather": (lambda x: x[jnp.array([0, 2])], (f32,)),
        "top_k": (lambda x: lax.top_k(x, 2), (f32,)),
        "matmul": (lambda x: x @ x.T, (f32,)),
        "batched_dot": (lambda x: jnp.einsum("bij,bjk->bik", x, x), (jnp.ones((2, 3, 3)),)),
        "conv": (
            lambda x, k: lax.conv_general_dilated(x, k, (1, 1), "SAME"),
            (jnp.ones((1, 2, 5, 5)), jnp.ones((3, 2, 3, 3))),
        ),
        "integer_ops": (lambda x: (x << 1) ^ (x >> 1) | (x % 3), (i32,)),
        "complex": (lambda z: jnp.abs(z) + jnp.real(z * jnp.conj(z)), (c64,)),
        "slicing_and_padding": (
            lambda x: jnp.pad(x[1:3, ::2], ((1, 0), (0, 2))) + jnp.flip(x[:2, :2], 0).sum(),
            (f32,),
        ),
        "dynamic_update": (lambda x, i: lax.dynamic_update_slice(x, x[:2, :2], (i, i)), (f32, 1)),
        "fft": (lambda z: jnp.fft.fft(z), (c64,)),
        "random": (lambda k: jax.random.uniform(jax.random.key(k), (3,)), (0,)),
        "lgamma_and_erf": (lambda x: jax.scipy.special.gammaln(x) + lax.erf_inv(x * 0.1), (f32,)),
        "cholesky_and_triangular": (
            lambda x: jnp.linalg.cholesky(x @ x.T + 4 * jnp.eye(4)),
            (f32,),
        ),
        "clamp_select_convert": (
            lambda x: jnp.where(x > 0.5, jnp.clip(x, 0, 1), x).astype(jnp.bfloat16),
            (f32,),
        ),
    }


def _jax_params() -> list:
    names = [
        "elementwise reduce_sum argmax variadic_reduce while_loop cond switch sort cumsum "
        "reduce_window scatter_add gather top_k matmul batched_dot conv integer_ops complex "
        "slicing_and_padding dynamic_update fft random lgamma_and_erf cholesky_and_triangular "
        "clamp_select_convert"
    ]
    return names[0].split()


@pytest.mark.parametrize("name", _jax_params())
def test_jax_lowering_in_both_forms(name: str) -> None:
    jax = pytest.importorskip("jax", reason="JAX lowers the functions")
    fn, args = _jax_functions()[name]
    lowered = jax.jit(fn).lower(*args)
    pretty = lowered.as_text()
    generic = lowered.compiler_ir("stablehlo").operation.get_asm(print_generic_op_form=True)
    with_locations = lowered.as_text(debug_info=True)
    assert_same_program(pretty, generic)
    assert_same_program(with_locations, generic)
    (module,) = parse_mlir(pretty)
    assert module.name is not None and module.name.startswith("jit_")
    assert module.function("main").visibility == "public"
