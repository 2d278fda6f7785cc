"""XLA:CPU's f16/bf16 excess precision (passes FloatNormalization and FpContraction).

What XLA:CPU does, found with jax 0.10.2 (``jax.jit(f)`` on CPU, the optimized HLO from
``.lower(...).compile().as_text()``, and ``XLA_FLAGS=--xla_allow_excess_precision=false``):

- bf16: every bf16 op is computed in f32 and rounded to bf16, except for users that
  convert it to f32: with ``xla_allow_excess_precision`` (the default) they read the f32
  value unrounded (FloatNormalization). ``(b * b + 1).astype(f32)`` rounds ``b * b`` but
  not the sum; ``(a @ b).astype(f32)`` is the f32 dot. With the flag off, everything rounds.
- f16: every op rounds, but LLVM contracts a multiply whose only use is an add or subtract
  into an FMA, rounded once (XLA gives the same with the flag off).

The numbers below are JAX's (XLA:CPU) answers, computed once with jax 0.10.2 and stored here,
so the tests run without JAX; each module is the HLO JAX emits for the function named in the
case, written by hand. With the passes off, the CPU backend rounds per op as the interpreter.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pytest

import xlapy
from xlapy import hlo
from xlapy.backends.cpu.pipeline import cpu_pipeline
from xlapy.client import CompileOptions
from xlapy.passes import FloatNormalization, FpContraction, PassPipeline, run_passes
from xlapy.types import PrimitiveType

DTYPES = {"f16": PrimitiveType.F16.dtype, "bf16": PrimitiveType.BF16.dtype,
          "f32": np.dtype(np.float32)}
EXCESS_PRECISION = (FloatNormalization.name, FpContraction.name)


class Case(NamedTuple):
    dtype: str  # of the parameters
    args: tuple[tuple[float, ...], ...]
    body: tuple[str, ...]  # the instructions after the parameters
    want: tuple[float, ...]  # JAX's result
    want_dtype: str


# name -> the JAX function it mirrors (a, b, c, d: the parameters), its inputs and JAX's
# answer: f16_mul_add a*b+c; f16_sub_mul c-a*b; f16_two_products a*b+c*d (the left product
# is fused); f16_shared_product m=a*b, (m+c)*(m-d) (no FMA: m has two uses);
# f16_sum_of_three a+b+c (per op); bf16_square_plus_one_to_f32 (a*a+1).astype(f32);
# bf16_divide_to_f32 (a/b).astype(f32); bf16_dot_to_f32 (a[2,4] @ b[4,2]).astype(f32);
# bf16_mul_add a*b+c (per op: bf16 keeps no FMA, its products are rounded by converts).
CASES: dict[str, Case] = {
    "f16_mul_add": Case(
        "f16",
        ((1.8974609375, -3.01171875, -1.482421875, -0.78955078125, 3.89453125, -2.474609375, 2.755859375, 2.51953125),
         (3.67578125, -3.609375, 3.818359375, 0.5888671875, 3.083984375, 2.853515625, 2.6875, -2.732421875),
         (3.724609375, -0.95703125, 1.8154296875, 2.427734375, 2.62890625, -2.423828125, -1.857421875, 3.58203125),),
        ('m = f16[8] multiply(p0, p1)', 'ROOT r = f16[8] add(m, p2)'),
        (10.703125, 9.9140625, -3.845703125, 1.962890625, 14.640625, -9.484375, 5.55078125, -3.302734375), "f16"),
    "f16_sub_mul": Case(
        "f16",
        ((-3.474609375, 0.91943359375, -1.09765625, 3.048828125, -0.93994140625, -0.5595703125, -1.1669921875, -1.8818359375),
         (0.681640625, 0.57861328125, -0.9716796875, 3.130859375, -1.69140625, 1.71875, 1.708984375, 1.341796875),
         (-2.78125, -2.509765625, 1.9326171875, 2.939453125, 2.36328125, 3.134765625, -3.068359375, 2.6640625),),
        ('m = f16[8] multiply(p0, p1)', 'ROOT r = f16[8] subtract(p2, m)'),
        (-0.412841796875, -3.041015625, 0.8662109375, -6.60546875, 0.7734375, 4.09765625, -1.07421875, 5.1875), "f16"),
    "f16_two_products": Case(
        "f16",
        ((-1.0439453125, 1.3828125, 2.8515625, -2.8984375, 2.572265625, -2.822265625, -3.73046875, 0.7509765625),
         (0.6689453125, 0.63720703125, 1.4111328125, 0.78955078125, 3.056640625, 0.5185546875, 2.76953125, 1.67578125),
         (1.2822265625, -1.3388671875, -3.314453125, 3.994140625, -2.251953125, 1.625, 3.953125, -0.953125),
         (1.6796875, -2.30859375, -3.623046875, 1.529296875, 2.38671875, -0.8125, -2.7734375, 1.9150390625),),
        ('m = f16[8] multiply(p0, p1)', 'n = f16[8] multiply(p2, p3)', 'ROOT r = f16[8] add(m, n)'),
        (1.4560546875, 3.97265625, 16.03125, 3.8203125, 2.48828125, -2.783203125, -21.296875, -0.56689453125), "f16"),
    "f16_shared_product": Case(
        "f16",
        ((2.333984375, -3.478515625, -3.267578125, -2.84765625, -3.271484375, -1.451171875, 1.009765625, 0.69580078125),
         (2.771484375, -1.30078125, 2.35546875, -3.94921875, -0.96533203125, 1.6298828125, 0.900390625, 1.03515625),
         (2.2578125, -2.080078125, 2.529296875, -0.65576171875, -2.0625, -0.96337890625, -3.982421875, 0.54248046875),
         (0.607421875, -3.8125, -1.42578125, -2.2734375, -2.861328125, 3.5625, -3.984375, 1.359375),),
        ('m = f16[8] multiply(p0, p1)', 's = f16[8] add(m, p2)', 't = f16[8] subtract(m, p3)', 'ROOT r = f16[8] multiply(s, t)'),
        (51.125, 20.375, 32.375, 143.125, 6.59375, 19.734375, -15.046875, -0.80712890625), "f16"),
    "f16_sum_of_three": Case(
        "f16",
        ((-3.9140625, -3.134765625, 1.0380859375, -3.478515625, 0.8681640625, 2.09765625, 1.1435546875, -2.513671875),
         (3.30859375, 2.2734375, 1.9775390625, -1.0771484375, -3.9765625, -1.54296875, -2.6015625, 2.548828125),
         (3.94140625, 3.59375, 2.39453125, 0.8095703125, 3.771484375, 3.875, -3.0234375, 2.501953125),),
        ('s = f16[8] add(p0, p1)', 'ROOT r = f16[8] add(s, p2)'),
        (3.3359375, 2.732421875, 5.41015625, -3.74609375, 0.662109375, 4.4296875, -4.48046875, 2.537109375), "f16"),
    "bf16_square_plus_one_to_f32": Case(
        "bf16",
        ((-1.2265625, 1.609375, -1.3515625, 2.71875, -2.484375, -0.88671875, 0.67578125, -1.625),),
        ('m = bf16[8] multiply(p0, p0)', 'one = bf16[] constant(1)', 'ones = bf16[8] broadcast(one), dimensions={}', 's = bf16[8] add(m, ones)', 'ROOT r = f32[8] convert(s)'),
        (2.5078125, 3.59375, 2.828125, 8.40625, 7.1875, 1.78515625, 1.45703125, 3.640625), "f32"),
    "bf16_divide_to_f32": Case(
        "bf16",
        ((3.640625, -2.890625, -2.84375, 3.90625, -2.203125, -0.7265625, -2.75, 0.8515625),
         (-3.15625, -3.75, 1.828125, -1.6484375, -3.9375, 1.4140625, -2.15625, -3.9375),),
        ('q = bf16[8] divide(p0, p1)', 'ROOT r = f32[8] convert(q)'),
        (-1.1534653902053833, 0.7708333134651184, -1.5555555820465088, -2.3696682453155518, 0.5595238208770752, -0.5138121843338013, 1.2753623723983765, -0.2162698358297348), "f32"),
    "bf16_dot_to_f32": Case(
        "bf16",
        ((-2.90625, -2.203125, 3.4375, 3.578125, -2.40625, 3.109375, 2.0, -2.34375),
         (-3.125, 3.796875, -3.0625, -3.453125, -1.0, 2.296875, 1.796875, 1.6875),),
        ('x = bf16[2,4] reshape(p0)', 'y = bf16[4,2] reshape(p1)', 'd = bf16[2,2] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}', 'c = f32[2,2] convert(d)', 'ROOT r = f32[4] reshape(c)'),
        (18.821044921875, 10.506591796875, -8.21435546875, -19.234619140625), "f32"),
    "bf16_mul_add": Case(
        "bf16",
        ((2.21875, -3.234375, -3.21875, -1.0234375, 1.5390625, -2.765625, 1.0625, -3.96875),
         (3.34375, 1.0625, -2.546875, 3.5625, 3.46875, -3.125, 1.1640625, -3.09375),
         (3.109375, 3.265625, -1.734375, -2.703125, 1.0390625, -2.5625, 2.75, -2.34375),),
        ('m = bf16[8] multiply(p0, p1)', 'ROOT r = bf16[8] add(m, p2)'),
        (10.5, -0.171875, 6.4375, -6.34375, 6.375, 6.0625, 3.984375, 9.875), "bf16"),
}


def _module(name: str) -> hlo.HloModule:
    case = CASES[name]
    params = [f"p{i} = {case.dtype}[8] parameter({i})" for i in range(len(case.args))]
    lines = "\n  ".join([*params, *case.body])
    return hlo.parse_module(f"HloModule {name}\n\nENTRY main {{\n  {lines}\n}}\n")


def _args(name: str) -> list[np.ndarray]:
    case = CASES[name]
    return [np.array(a, np.float32).astype(DTYPES[case.dtype]) for a in case.args]


def with_excess_precision(module, options) -> PassPipeline:
    """The CPU pipeline with the two passes where XLA:CPU has them: FloatNormalization
    after inlining, before simplification; FpContraction after the last simplification,
    before layouts and fusion (where LLVM contracts: on the code as emitted)."""
    pipeline = cpu_pipeline(options)
    names = [p.name for p in pipeline.passes]
    if FloatNormalization.name not in names:
        pipeline.passes.insert(names.index("map-inliner") + 1, FloatNormalization())
        names = [p.name for p in pipeline.passes]
    if FpContraction.name not in names:
        pipeline.passes.insert(names.index("simplify-after-expansion") + 1, FpContraction())
    return pipeline


def per_op(module, options) -> PassPipeline:
    """The CPU pipeline without them: every op rounded, as the interpreter."""
    pipeline = cpu_pipeline(options)
    pipeline.passes = [p for p in pipeline.passes if p.name not in EXCESS_PRECISION]
    return pipeline


def _run(name: str, backend: str, passes=None) -> np.ndarray:
    options = CompileOptions(backend_options={"passes": passes} if passes else {})
    executable = xlapy.local_client(backend).compile(_module(name), options)
    return np.asarray(executable(*_args(name)))


def _bits(x: np.ndarray) -> np.ndarray:
    return x.view(f"u{x.dtype.itemsize}")


@pytest.mark.parametrize("name", list(CASES))
def test_cpu_matches_jax_bit_for_bit(name: str):
    case = CASES[name]
    got = _run(name, "cpu", with_excess_precision)
    want = np.array(case.want, np.float32).astype(DTYPES[case.want_dtype])
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(_bits(got), _bits(want), err_msg=f"{got} != {want}")


@pytest.mark.parametrize("name", list(CASES))
def test_interpreter_with_the_passes_matches_jax(name: str):
    module = _module(name)
    run_passes(module, [FloatNormalization(), FpContraction()], verify=True)
    got = np.asarray(xlapy.local_client("interpreter").compile(module)(*_args(name)))
    want = np.array(CASES[name].want, np.float32).astype(got.dtype)
    np.testing.assert_array_equal(_bits(got), _bits(want))


@pytest.mark.parametrize("name", list(CASES))
def test_option_off_rounds_per_op_like_the_interpreter(name: str):
    got = _run(name, "cpu", per_op)
    oracle = _run(name, "interpreter")
    np.testing.assert_array_equal(_bits(got), _bits(oracle))


def test_cases_show_the_difference():
    """Most stored answers differ from per-op rounding: the tests above would notice."""
    differing = [n for n in CASES if not np.array_equal(
        _bits(_run(n, "interpreter")),
        _bits(np.array(CASES[n].want, np.float32).astype(DTYPES[CASES[n].want_dtype])))]
    assert differing == ["f16_mul_add", "f16_sub_mul", "f16_two_products",
                         "bf16_square_plus_one_to_f32", "bf16_divide_to_f32",
                         "bf16_dot_to_f32"]


# -- the rewrites ------------------------------------------------------------------------


def _rewritten(text: str, hlo_pass) -> str:
    module = hlo.parse_module(text)
    changed = run_passes(module, [hlo_pass], verify=True)
    return changed, module


def _ops(module) -> list[str]:
    return [f"{i.shape.element_type.name.lower()} {i.opcode.value}"
            for i in module.entry.post_order() if i.opcode.value != "parameter"]


BF16_CHAIN = """HloModule m
ENTRY e {
  a = bf16[4] parameter(0)
  b = bf16[4] parameter(1)
  m = bf16[4] multiply(a, b)
  s = bf16[4] add(m, b)
  w = f32[4] convert(s)
  d = f64[4] convert(m)
  ROOT t = (f32[4], f64[4], bf16[4]) tuple(w, d, s)
}
"""


def test_float_normalization_unrounds_only_converts_to_f32():
    changed, module = _rewritten(BF16_CHAIN, FloatNormalization())
    assert changed
    w, d, s = module.entry.root.operands

    def spelled(i):  # "op<type>(operands...)", parameters by name
        if i.opcode.value == "parameter":
            return i.name
        args = ", ".join(spelled(o) for o in i.operands)
        return f"{i.opcode.value}<{i.shape.element_type.name.lower()}>({args})"

    m = "convert<bf16>(multiply<f32>(convert<f32>(a), convert<f32>(b)))"  # m, rounded
    # w reads the sum unrounded, computed from the rounded m, as XLA:CPU
    assert spelled(w) == f"add<f32>(convert<f32>({m}), convert<f32>(b))"
    # a convert to f64 reads the rounded m (f32 is FloatNormalization's only high type)
    assert spelled(d) == f"convert<f64>({m})"
    # s, an output itself, is rounded
    assert spelled(s) == "convert<bf16>(" + spelled(w) + ")"


def test_float_normalization_leaves_data_carrying_ops_and_f16():
    text = """HloModule m
ENTRY e {
  a = bf16[4] parameter(0)
  h = f16[4] parameter(1)
  c = f32[4] convert(a)
  g = f16[4] negate(h)
  k = f32[4] convert(g)
  ROOT t = (f32[4], f32[4]) tuple(c, k)
}
"""
    changed, module = _rewritten(text, FloatNormalization())
    assert not changed


F16_FMA = """HloModule m
ENTRY e {
  a = f16[4] parameter(0)
  b = f16[4] parameter(1)
  c = f16[4] parameter(2)
  m = f16[4] multiply(a, b)
  n = f16[4] negate(m)
  ROOT r = f16[4] add(n, c)
}
"""


def test_fp_contraction_rounds_a_multiply_add_once():
    changed, module = _rewritten(F16_FMA, FpContraction())
    assert changed
    assert _ops(module) == ["f32 convert", "f32 convert", "f32 multiply", "f32 negate",
                            "f32 convert", "f32 add", "f16 convert"]


@pytest.mark.parametrize("body", [
    # the product has two uses: LLVM keeps the multiply, rounded
    "m = f16[4] multiply(a, b)\n  s = f16[4] add(m, c)\n  ROOT r = f16[4] subtract(s, m)",
    # an add of the product with itself uses it twice
    "m = f16[4] multiply(a, b)\n  ROOT r = f16[4] add(m, m)",
    # through a convert, or in another type
    "m = f16[4] multiply(a, b)\n  w = f32[4] convert(m)\n  x = f32[4] convert(c)\n"
    "  ROOT r = f32[4] add(w, x)",
])
def test_fp_contraction_leaves_what_llvm_does_not_contract(body: str):
    text = ("HloModule m\nENTRY e {\n  a = f16[4] parameter(0)\n  b = f16[4] parameter(1)\n"
            f"  c = f16[4] parameter(2)\n  {body}\n}}\n")
    changed, _ = _rewritten(text, FpContraction())
    assert not changed


def test_passes_are_idempotent():
    for text, hlo_pass in ((BF16_CHAIN, FloatNormalization()), (F16_FMA, FpContraction())):
        _, module = _rewritten(text, hlo_pass)
        assert not run_passes(module, [hlo_pass], verify=True)
