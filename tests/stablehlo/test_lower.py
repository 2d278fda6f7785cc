"""The importer's API and error reporting, on hand-built ASTs and on MLIR text; and a JAX
program (an MLP's gradient) imported and run against JAX's own result."""

from __future__ import annotations

import re

import numpy as np
import pytest

from xlapy.backends.interpreter import run
from xlapy.errors import InvalidArgumentError, UnimplementedError
from xlapy.literal import Literal
from xlapy.shape import Shape
from xlapy.stablehlo import ast, lower, supported_ops
from xlapy.types import PrimitiveType

_ELEMENT = {"f32": PrimitiveType.F32, "i32": PrimitiveType.S32, "i1": PrimitiveType.PRED}


def T(text: str) -> ast.MlirType:
    """A tensor type from its MLIR text (the few forms these tests use)."""
    match = re.fullmatch(r"tensor<((?:\d+x)*)(\w+)>", text)
    if match is None:
        return ast.MlirType(text, None)
    dims = [int(d) for d in match.group(1).split("x") if d]
    return ast.MlirType(text, Shape.array(_ELEMENT[match.group(2)], dims))


def make_op(name, operands, types, results, result_types, attributes=None, regions=(), line=1):
    return ast.Operation(
        name, list(operands), [T(t) for t in types], list(results),
        [T(t) for t in result_types], dict(attributes or {}), list(regions), line,
    )  # fmt: skip


def module_of(operations, arguments=(), results=(), name="main", module_name=None, attrs=None):
    block = ast.Block([], list(operations))
    function = ast.Function(
        name, "public", [(n, T(t)) for n, t in arguments], [{} for _ in arguments],
        [T(t) for t in results], [{} for _ in results], ast.Region([block]),
    )  # fmt: skip
    return ast.Module(module_name, dict(attrs or {}), [function])


def _adder() -> ast.Region:
    args = [("%a", T("tensor<f32>")), ("%b", T("tensor<f32>"))]
    return ast.Region([ast.Block(args, [
        make_op("stablehlo.add", ["%a", "%b"], ["tensor<f32>"] * 2, ["%s"], ["tensor<f32>"]),
        make_op("stablehlo.return", ["%s"], ["tensor<f32>"], [], []),
    ])])  # fmt: skip


# -- hand-built ASTs (independent of the parser) --------------------------------------------


def test_ast_reduce_and_broadcast_run():
    zero = ast.DenseElements(Literal.from_value(np.float32(0)))
    module = module_of(
        [
            make_op("stablehlo.constant", [], [], ["%c"], ["tensor<f32>"], {"value": zero}),
            make_op(
                "stablehlo.reduce",
                ["%x", "%c"],
                ["tensor<2x3xf32>", "tensor<f32>"],
                ["%r"],
                ["tensor<2xf32>"],
                {"dimensions": (1,)},
                [_adder()],
            ),  # fmt: skip
            make_op(
                "stablehlo.broadcast_in_dim",
                ["%r"],
                ["tensor<2xf32>"],
                ["%b"],
                ["tensor<3x2xf32>"],
                {"broadcast_dimensions": (1,)},
            ),  # fmt: skip
            make_op("func.return", ["%b", "%r"], ["tensor<3x2xf32>", "tensor<2xf32>"], [], []),
        ],
        arguments=[("%x", "tensor<2x3xf32>")],
        results=["tensor<3x2xf32>", "tensor<2xf32>"],
        module_name="jit_f",
        attrs={"mhlo.num_replicas": 1, "mhlo.num_partitions": 1},
    )
    hlo = lower(module)
    assert hlo.name == "jit_f"
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    broadcast, reduced = run(hlo, x)
    np.testing.assert_array_equal(reduced, x.sum(1))
    np.testing.assert_array_equal(broadcast, np.broadcast_to(x.sum(1), (3, 2)))


def test_metadata_points_at_the_mlir_op():
    module = module_of(
        [
            make_op(
                "stablehlo.negate", ["%x"], ["tensor<2xf32>"], ["%n"], ["tensor<2xf32>"], line=7
            ),
            make_op("func.return", ["%n"], ["tensor<2xf32>"], [], []),
        ],
        arguments=[("%x", "tensor<2xf32>")],
        results=["tensor<2xf32>"],
    )
    root = lower(module).entry.root
    metadata = root.attribute("metadata")
    assert (metadata.op_type, metadata.source_line, metadata.op_name) == (
        "stablehlo.negate", 7, "main/n",
    )  # fmt: skip


def test_unknown_op_names_the_op_and_its_line():
    module = module_of(
        [make_op("stablehlo.frobnicate", ["%x"], ["tensor<2xf32>"], ["%n"], ["tensor<2xf32>"], line=12),
         make_op("func.return", ["%n"], ["tensor<2xf32>"], [], [])],
        arguments=[("%x", "tensor<2xf32>")], results=["tensor<2xf32>"],
    )  # fmt: skip
    with pytest.raises(
        UnimplementedError, match="stablehlo.frobnicate at line 12 is not supported yet"
    ):
        lower(module)


def test_shape_errors_name_the_op_and_line():
    module = module_of(
        [make_op("stablehlo.add", ["%x", "%y"], ["tensor<2xf32>", "tensor<3xf32>"], ["%s"],
           ["tensor<2xf32>"], line=4),
         make_op("func.return", ["%s"], ["tensor<2xf32>"], [], [])],
        arguments=[("%x", "tensor<2xf32>"), ("%y", "tensor<3xf32>")], results=["tensor<2xf32>"],
    )  # fmt: skip
    with pytest.raises(InvalidArgumentError, match=r"^stablehlo.add at line 4: ") as info:
        lower(module)
    assert "[at " not in str(info.value)


def test_declared_result_type_mismatch_is_reported():
    module = module_of(
        [make_op("stablehlo.negate", ["%x"], ["tensor<2xf32>"], ["%n"], ["tensor<3xf32>"], line=5),
         make_op("func.return", ["%n"], ["tensor<3xf32>"], [], [])],
        arguments=[("%x", "tensor<2xf32>")], results=["tensor<3xf32>"],
    )  # fmt: skip
    with pytest.raises(
        InvalidArgumentError, match=r"stablehlo.negate at line 5: result 0 is declared"
    ):
        lower(module)


def test_quantized_types_are_unsupported_with_their_line():
    quantized = "tensor<2x!quant.uniform<i8:f32, 0.5:3>>"
    module = module_of(
        [make_op("stablehlo.uniform_quantize", ["%x"], ["tensor<2xf32>"], ["%q"], [quantized], line=3),
         make_op("func.return", ["%x"], ["tensor<2xf32>"], [], [])],
        arguments=[("%x", "tensor<2xf32>")], results=["tensor<2xf32>"],
    )  # fmt: skip
    with pytest.raises(UnimplementedError, match=r"stablehlo.uniform_quantize at line 3"):
        lower(module)


def test_supported_ops_cover_the_spec():
    names = set(supported_ops())
    for op in ["add", "dot_general", "convolution", "scatter", "while", "case", "all_to_all",
               "rng_bit_generator", "fft", "batch_norm_grad", "dynamic_conv", "composite",
               "custom_call", "reduce_precision", "collective_broadcast"]:  # fmt: skip
        assert f"stablehlo.{op}" in names
    assert {"chlo.lgamma", "chlo.top_k", "check.expect_close", "interpreter.run_parallel"} <= names


# -- text (needs the parser) -------------------------------------------------------------------


def test_parse_module_picks_main_and_module_attributes():
    from xlapy.stablehlo import parse_module

    text = """
    module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32} {
      func.func public @main(%x: tensor<2xf32>) -> tensor<2xf32> {
        %0 = call @helper(%x) : (tensor<2xf32>) -> tensor<2xf32>
        return %0 : tensor<2xf32>
      }
      func.func private @helper(%x: tensor<2xf32>) -> tensor<2xf32> {
        %0 = stablehlo.multiply %x, %x : tensor<2xf32>
        return %0 : tensor<2xf32>
      }
    }"""
    module = parse_module(text)
    assert module.name == "jit_f" and module.replica_count == 2
    assert module.entry.name.startswith("main")


def test_single_public_function_is_the_entry_and_ambiguity_is_an_error():
    from xlapy.stablehlo import parse_module, parse_program

    one = """
    func.func @only(%x: tensor<f32>) -> tensor<f32> {
      return %x : tensor<f32>
    }"""
    assert parse_module(one).entry.name.startswith("only")
    two = one + one.replace("@only", "@other")
    with pytest.raises(InvalidArgumentError, match="no @main"):
        parse_module(two)
    program = parse_program(two)
    assert program.function_names == ["only", "other"]
    assert program.hlo_module("other").entry.name.startswith("other")


def test_parse_programs_splits_sections():
    from xlapy.stablehlo import parse_programs

    text = """
    func.func @a() -> tensor<i32> {
      %0 = stablehlo.constant dense<1> : tensor<i32>
      return %0 : tensor<i32>
    }

    // -----

    module @second {
      func.func @b() -> tensor<i32> {
        %0 = stablehlo.constant dense<2> : tensor<i32>
        return %0 : tensor<i32>
      }
    }"""
    programs = parse_programs(text)
    assert [p.function_names for p in programs] == [["a"], ["b"]]
    assert [run(p.hlo_module()) for p in programs] == [1, 2]
    assert programs[1].num_replicas == 1 and programs[1].num_partitions == 1


# -- a JAX program ---------------------------------------------------------------------------


def test_jax_mlp_gradient_imports_and_matches_jax():
    jax = pytest.importorskip("jax", reason="JAX lowers the program under test")
    import jax.numpy as jnp

    from xlapy.stablehlo import parse_module

    def loss(params, x, y):
        w1, b1, w2, b2 = params
        h = jnp.tanh(x @ w1 + b1)
        logits = h @ w2 + b2
        return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * y, axis=-1))

    rng = np.random.default_rng(0)
    params = [
        rng.standard_normal((4, 8)).astype(np.float32),
        rng.standard_normal(8).astype(np.float32),
        rng.standard_normal((8, 3)).astype(np.float32),
        rng.standard_normal(3).astype(np.float32),
    ]
    x = rng.standard_normal((5, 4)).astype(np.float32)
    y = np.eye(3, dtype=np.float32)[rng.integers(0, 3, 5)]
    text = jax.jit(jax.grad(loss)).lower(params, x, y).as_text()
    got = run(parse_module(text), *params, x, y)
    want = jax.jit(jax.grad(loss))(params, x, y)
    assert len(got) == 4
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, np.asarray(w), rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("case", ["cholesky", "solve_triangular"])
def test_jax_lapack_calls_become_hlo_ops(case):
    jax = pytest.importorskip("jax", reason="JAX lowers the program under test")
    import jax.numpy as jnp

    from xlapy.opcode import HloOpcode
    from xlapy.stablehlo import parse_module

    a = np.random.default_rng(1).standard_normal((2, 4, 4)).astype(np.float32)
    if case == "cholesky":

        def f(a):
            return jnp.linalg.cholesky(a @ jnp.swapaxes(a, -1, -2) + 5 * jnp.eye(4))

        args, opcode = (a,), HloOpcode.CHOLESKY
    else:

        def f(a, b):
            lower = jnp.tril(a) + 4 * jnp.eye(4)
            return jax.scipy.linalg.solve_triangular(lower, b, lower=True, trans=1)

        args, opcode = (a, a), HloOpcode.TRIANGULAR_SOLVE
    text = jax.jit(f).lower(*args).as_text()
    assert "lapack_" in text  # JAX's CPU lowering: a LAPACK custom call
    module = parse_module(text)
    opcodes = {i.opcode for c in module.computations for i in c.instructions}
    assert opcode in opcodes and HloOpcode.CUSTOM_CALL not in opcodes
    np.testing.assert_allclose(run(module, *args), jax.jit(f)(*args), rtol=1e-4, atol=1e-5)
