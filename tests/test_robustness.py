"""Bad or extreme input gets a clear XlaError, never a raw Python exception.

Regression tests for a fault-testing run that found RecursionError, MemoryError,
OverflowError/ValueError, IndexError, AttributeError and TypeError escaping the
public entry points, and for donation and re-entrancy behaving the same on
every backend.
"""

from __future__ import annotations

import numpy as np
import pytest

import xlapy
from xlapy import stablehlo
from xlapy.backends.cpu.emit.generators import MAX_GENERATOR_DEPTH, ElementEmitter
from xlapy.backends.cpu.llvm_types import NotEmittable
from xlapy.client import CompileOptions
from xlapy.custom_call import register_custom_call, unregister_custom_call
from xlapy.errors import (
    InvalidArgumentError,
    ParseError,
    ResourceExhaustedError,
    UnimplementedError,
    XlaError,
)
from xlapy.hlo import parse_module
from xlapy.literal import Literal
from xlapy.literal_text import parse_literal
from xlapy.memory import allocation_limit, check_allocation
from xlapy.shape import MAX_TUPLE_DEPTH, Shape

PLATFORMS = ["interpreter", "cpu"]


def _compile(platform: str, text: str, **options: int) -> xlapy.client.Executable:
    return xlapy.local_client(platform).compile(parse_module(text), CompileOptions(**options))


# -- deep graphs: fused chains, call chains -------------------------------------------------


def _elementwise_chain(n: int) -> str:
    lines = ["HloModule chain", "ENTRY e {", "  p0 = f32[16] parameter(0)"]
    previous = "p0"
    for i in range(n):
        op = f"add({previous}, p0)" if i % 2 else f"negate({previous})"
        lines.append(f"  v{i} = f32[16] {op}")
        previous = f"v{i}"
    lines += [f"  ROOT r = f32[16] sine({previous})", "}"]
    return "\n".join(lines)


def test_a_350_op_elementwise_chain_compiles_natively_and_agrees():
    text = _elementwise_chain(350)
    x = np.linspace(-1, 1, 16, dtype=np.float32)
    cpu = _compile("cpu", text)
    assert cpu.fallback_ops == []  # one fused loop, no fallback to the interpreter
    np.testing.assert_allclose(cpu(x), _compile("interpreter", text)(x), rtol=1e-5, atol=1e-6)


def test_a_generator_nesting_too_many_index_changes_is_not_emittable():
    # Reverses change the index at every step, so their generators nest: past the limit
    # the fusion is NotEmittable (it then runs through the interpreter's kernel).
    n = MAX_GENERATOR_DEPTH + 10
    lines = ["HloModule rev", "ENTRY e {", "  v0 = f32[8] parameter(0)"]
    lines += [f"  v{i + 1} = f32[8] reverse(v{i}), dimensions={{0}}" for i in range(n)]
    lines += [f"  ROOT r = f32[8] negate(v{n})", "}"]
    root = parse_module("\n".join(lines)).entry.root
    emitter = ElementEmitter([lambda b, index: None], constant_pointer=lambda array: None)
    with pytest.raises(NotEmittable, match="index-changing"):
        emitter.generator(root)


def _call_chain(n: int, callees_first: bool = True) -> str:
    computations = ["c0 {\n  p = f32[] parameter(0)\n  ROOT r = f32[] negate(p)\n}"]
    computations += [
        f"c{i} {{\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c{i - 1}\n}}"
        for i in range(1, n)
    ]
    if not callees_first:
        computations.reverse()
    entry = f"ENTRY e {{\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c{n - 1}\n}}"
    return "\n".join(["HloModule calls", *computations, entry])


@pytest.mark.parametrize(
    "platform", [pytest.param(p, marks=pytest.mark.slow) if p == "cpu" else p for p in PLATFORMS]
)
@pytest.mark.parametrize("callees_first", [True, False])
def test_a_1500_deep_call_chain_runs(platform, callees_first):
    executable = _compile(platform, _call_chain(1500, callees_first))
    assert executable(np.float32(2)) == np.float32(-2)


def test_computation_post_order_of_a_long_chain_written_callers_first():
    module = parse_module(_call_chain(1500, callees_first=False))
    order = [c.name for c in module.computation_post_order()]
    assert order[:3] == ["c0", "c1", "c2"] and order[-1] == module.entry.name


def _nested_conditionals(depth: int) -> str:
    computations = ["b0 {\n  p = f32[] parameter(0)\n  ROOT r = f32[] negate(p)\n}"]
    for i in range(1, depth):
        computations.append(
            f"b{i} {{\n  p = f32[] parameter(0)\n  t = pred[] constant(true)\n"
            f"  ROOT r = f32[] conditional(t, p, p), true_computation=b{i - 1}, "
            f"false_computation=b{i - 1}\n}}"
        )
    entry = f"ENTRY e {{\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=b{depth - 1}\n}}"
    return "\n".join(["HloModule q", *computations, entry])


def test_deeply_nested_conditionals_on_the_interpreter_are_a_clear_error():
    executable = _compile("interpreter", _nested_conditionals(400))
    with pytest.raises(ResourceExhaustedError, match="nest more than"):
        executable(np.float32(1))


@pytest.mark.slow
def test_1500_nested_conditionals_compile_and_run_on_cpu():
    # The passes' side-effect analysis and the code generator walk the call graph on
    # explicit stacks: nesting depth is not bounded by Python's recursion limit.
    executable = _compile("cpu", _nested_conditionals(1500))
    assert float(executable(np.float32(2))) == -2.0


# -- deep nesting in text and values ---------------------------------------------------------


def _tuple_shape(depth: int) -> str:
    return "(" * depth + "f32[]" + ")" * depth


def test_a_1000_deep_tuple_shape_is_a_parse_error_at_the_tuple():
    with pytest.raises(ParseError, match=f"more than {MAX_TUPLE_DEPTH} deep") as info:
        Shape.parse(_tuple_shape(1000))
    assert info.value.column == MAX_TUPLE_DEPTH + 1  # the first '(' past the limit


def test_tuples_within_the_limit_round_trip():
    text = _tuple_shape(MAX_TUPLE_DEPTH)
    shape = Shape.parse(text)
    assert shape.tuple_depth == MAX_TUPLE_DEPTH
    assert str(shape) == text and Shape.parse(str(shape)) == shape


def test_building_a_tuple_shape_too_deep_is_unimplemented():
    shape = Shape.scalar(xlapy.F32)
    for _ in range(MAX_TUPLE_DEPTH):
        shape = Shape.tuple([shape])
    with pytest.raises(UnimplementedError, match="flatten"):
        Shape.tuple([shape])


def test_a_1000_deep_tuple_in_hlo_text_is_a_parse_error():
    text = f"HloModule t\nENTRY e {{\n  ROOT p = {_tuple_shape(1000)} parameter(0)\n}}"
    with pytest.raises(ParseError, match="nest more than"):
        parse_module(text)


def test_a_1000_deep_tuple_literal_is_a_parse_error():
    with pytest.raises(ParseError, match="nest more than"):
        parse_literal("(" * 1000 + "f32[] 1" + ")" * 1000)


def test_a_1000_deep_python_tuple_is_a_clear_error():
    value: object = 1.0
    for _ in range(1000):
        value = (value,)
    with pytest.raises(UnimplementedError, match="flatten"):
        Literal.from_value(value)


def test_a_1000_deep_python_list_is_a_clear_error():
    value: object = 1.0
    for _ in range(1000):
        value = [value]
    with pytest.raises(InvalidArgumentError, match="dimensions"):
        Literal.from_value(value)


def test_a_literal_of_rank_1000_is_a_parse_error():
    text = "f32[" + ",".join(["1"] * 1000) + "] " + "{" * 1000 + "1" + "}" * 1000
    with pytest.raises(ParseError, match="rank 1000"):
        parse_literal(text)


@pytest.mark.parametrize(
    "text",
    [
        "func.func @main(%a: " + "tuple<" * 1000 + "tensor<f32>" + ">" * 1000 + ") -> ()",
        "func.func @main() attributes {x = " + "[" * 1000 + "]" * 1000 + "} {\n  return\n}",
        "func.func @main() -> tensor<1xf32> {\n  %c = stablehlo.constant dense<"
        + "[" * 1000
        + "1.0"
        + "]" * 1000
        + "> : tensor<1xf32>\n  return %c : tensor<1xf32>\n}",
    ],
    ids=["tuple-type", "attribute", "dense"],
)
def test_deep_nesting_in_stablehlo_is_a_parse_error(text):
    with pytest.raises(ParseError, match="deep"):
        stablehlo.parse_module(text)


def test_deeply_nested_stablehlo_regions_are_a_parse_error():
    n = 300
    body = "".join(f'  %r{i} = "stablehlo.optimization_barrier"(%a) ({{\n' for i in range(n))
    body += "}) : (tensor<f32>) -> tensor<f32>\n" * n
    text = (
        f"func.func @main(%a: tensor<f32>) -> tensor<f32> {{\n{body}  return %a : tensor<f32>\n}}"
    )
    with pytest.raises(ParseError, match="regions nest"):
        stablehlo.parse_module(text)


# -- sizes: int64 dimensions, huge allocations ---------------------------------------------


BIG = "99999999999999999999"  # > 2**63 - 1


def test_a_dimension_past_int64_is_a_parse_error_at_the_dimension():
    with pytest.raises(ParseError, match="does not fit in int64") as info:
        Shape.parse(f"f32[2,{BIG}]")
    assert info.value.column == len("f32[2,") + 1
    with pytest.raises(ParseError, match="does not fit in int64") as info:
        parse_module(f"HloModule t\nENTRY e {{\n  ROOT p = f32[{BIG}] parameter(0)\n}}")
    assert (info.value.line, info.value.column) == (3, len("  ROOT p = f32[") + 1)


@pytest.mark.parametrize("tensor", [f"tensor<{BIG}xf32>", f"tensor<4x{'9' * 5000}xf32>"])
def test_a_stablehlo_dimension_past_int64_is_a_parse_error(tensor):
    text = f"func.func @main(%a: {tensor}) -> tensor<4xf32> {{\n  return %a : tensor<4xf32>\n}}"
    with pytest.raises(ParseError, match="does not fit in int64"):
        stablehlo.parse_module(text)


def test_a_shape_with_dimensions_past_int64_is_invalid():
    with pytest.raises(InvalidArgumentError, match="does not fit in int64"):
        Shape.array(xlapy.F32, [2**70])
    with pytest.raises(InvalidArgumentError, match="element count must fit in int64"):
        Shape.array(xlapy.F32, [2**62, 4])
    with pytest.raises(InvalidArgumentError, match="sequence of integers"):
        Shape.array(xlapy.F32, [float("inf")])


@pytest.mark.parametrize(
    "body",
    [
        "  ROOT r = f32[4] reverse(p), dimensions={" + "9" * 5000 + "}",
        f"  ROOT r = f32[4] slice(p), slice={{[0:{BIG}]}}",
        "  ROOT r = s32[] constant(" + "9" * 5000 + ")",
    ],
    ids=["5000-digit attribute", "int64 overflow", "5000-digit constant"],
)
def test_huge_integers_in_hlo_text_are_parse_errors(body):
    with pytest.raises(ParseError):
        parse_module(f"HloModule t\nENTRY e {{\n  p = f32[4] parameter(0)\n{body}\n}}")


def test_check_allocation_refuses_what_no_machine_has():
    check_allocation(1024, "a small buffer")  # fits: no error
    with pytest.raises(ResourceExhaustedError, match="the result f32") as info:
        check_allocation(allocation_limit() + 1, "the result f32[...]")
    assert isinstance(info.value, MemoryError)


def test_a_huge_result_on_the_interpreter_is_resource_exhausted():
    text = """HloModule t
ENTRY e {
  z = f32[] constant(1)
  ROOT c = f32[100000000000000] broadcast(z), dimensions={}
}"""
    with pytest.raises(ResourceExhaustedError, match=r"f32\[100000000000000\].*broadcast c"):
        _compile("interpreter", text)()


def test_a_huge_literal_is_resource_exhausted():
    with pytest.raises(ResourceExhaustedError, match="a literal of f32"):
        Literal(Shape.array(xlapy.F32, [100000000000000]))


# -- collectives naming devices that do not exist ----------------------------------------------


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_permute_pair_naming_a_missing_replica_fails_at_compile_time(platform):
    text = """HloModule p
ENTRY e {
  x = f32[4] parameter(0)
  ROOT r = f32[4] collective-permute(x), source_target_pairs={{0,1},{1,5}}
}"""
    with pytest.raises(InvalidArgumentError, match=r"collective-permute r.*\{1,5\}.*2 replica"):
        _compile(platform, text, num_replicas=2)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_replica_groups_naming_a_missing_device_fail_at_compile_time(platform):
    text = """HloModule a
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY e {
  x = f32[4] parameter(0)
  ROOT r = f32[4] all-reduce(x), replica_groups={{0,7}}, to_apply=add
}"""
    with pytest.raises(InvalidArgumentError, match="name device 7"):
        _compile(platform, text, num_replicas=2)


# -- the client's argument checks ------------------------------------------------------------

NEGATE = """HloModule n
ENTRY e {
  x = f32[3] parameter(0)
  ROOT r = f32[3] negate(x)
}"""


@pytest.mark.parametrize("platform", PLATFORMS)
def test_execute_literals_takes_literals_or_arrays_in_a_list(platform):
    executable = _compile(platform, NEGATE)
    x = np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(executable.execute_literals([x]).to_numpy(), -x)
    literal = executable.execute_literals([Literal.from_numpy(x)])
    np.testing.assert_array_equal(literal.to_numpy(), -x)
    with pytest.raises(InvalidArgumentError, match="list or tuple of arguments, got ndarray"):
        executable.execute_literals(x)
    with pytest.raises(InvalidArgumentError, match="argument 0"):
        executable.execute_literals([object()])


@pytest.mark.parametrize("platform", PLATFORMS)
def test_execute_replicated_checks_its_argument_lists(platform):
    executable = _compile(platform, NEGATE)
    with pytest.raises(InvalidArgumentError, match="got int"):
        executable.execute_replicated(5)
    with pytest.raises(InvalidArgumentError, match="device 0"):
        executable.execute_replicated([np.zeros(3, np.float32)])
    (result,) = executable.execute_replicated([[np.ones(3, np.float32)]])
    np.testing.assert_array_equal(result, -1)


# -- donation: one behaviour on every backend ---------------------------------------------------

ALIASED = """HloModule step, input_output_alias={ {0}: (0, {}, may-alias) }
ENTRY e {
  state = f32[64] parameter(0)
  delta = f32[64] parameter(1)
  next = f32[64] add(state, delta)
  ROOT t = (f32[64], f32[64]) tuple(next, delta)
}"""


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_donated_array_receives_the_result_and_is_returned(platform):
    executable = _compile(platform, ALIASED)
    state = np.arange(64, dtype=np.float32)
    delta = np.full(64, 2.0, np.float32)
    result, passed = executable(state, delta)
    assert result is state
    np.testing.assert_array_equal(state, np.arange(64) + 2)
    assert passed is not delta
    np.testing.assert_array_equal(delta, 2.0)


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize(
    "make",
    [
        lambda: [float(i) for i in range(64)],
        lambda: Literal.from_numpy(np.arange(64, dtype=np.float32)),
        lambda: _read_only(np.arange(64, dtype=np.float32)),
        lambda: np.arange(128, dtype=np.float32)[::2],
    ],
    ids=["list", "literal", "read-only", "strided"],
)
def test_other_argument_forms_are_never_modified(platform, make):
    executable = _compile(platform, ALIASED)
    state = make()
    before = np.array(state.to_numpy() if isinstance(state, Literal) else state)
    result, _ = executable(state, np.ones(64, np.float32))
    assert result is not state
    after = np.array(state.to_numpy() if isinstance(state, Literal) else state)
    np.testing.assert_array_equal(after, before)
    np.testing.assert_array_equal(result, before.astype(np.float32) + 1)


def test_both_backends_donate_alike():
    outcomes = {}
    for platform in PLATFORMS:
        executable = _compile(platform, ALIASED)
        donor, kept = np.zeros(64, np.float32), np.zeros(64, np.float32)
        kept.flags.writeable = False
        first, _ = executable(donor, np.ones(64, np.float32))
        second, _ = executable(kept, np.ones(64, np.float32))
        outcomes[platform] = (first is donor, donor.sum(), second is kept, kept.sum())
    assert outcomes["interpreter"] == outcomes["cpu"] == (True, 64.0, False, 0.0)


# -- re-entrancy -----------------------------------------------------------------------------


def test_a_custom_call_may_run_its_own_executable_on_the_interpreter():
    name = "xlapy_test_reentrant_double"
    holder: dict[str, object] = {}

    def target(x: np.ndarray) -> np.ndarray:
        if holder.get("inside"):
            return x * 2  # the inner run: no further recursion
        holder["inside"] = True
        try:
            return holder["executable"](x) + 1  # type: ignore[operator]
        finally:
            holder["inside"] = False

    register_custom_call(name, target)
    try:
        text = f"""HloModule r
ENTRY e {{
  x = f32[4] parameter(0)
  ROOT c = f32[4] custom-call(x), custom_call_target="{name}"
}}"""
        executable = _compile("interpreter", text)
        holder["executable"] = executable
        np.testing.assert_array_equal(executable(np.ones(4, np.float32)), 3.0)
    finally:
        unregister_custom_call(name)


def test_every_error_here_is_an_xla_error():
    # The classes the tests above expect all derive from XlaError (no raw exceptions).
    for cls in (InvalidArgumentError, ParseError, ResourceExhaustedError, UnimplementedError):
        assert issubclass(cls, XlaError)


def test_a_walk_that_still_recurses_is_a_clear_error(monkeypatch):
    # The net under compile: whatever pass or emitter might still recurse too deep.
    client = xlapy.local_client("cpu")

    def recurse(module, options):  # noqa: ANN001, ANN202
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(client._backend, "compile", recurse)
    with pytest.raises(ResourceExhaustedError, match="nests deeper than this compiler"):
        client.compile(parse_module(_nested_conditionals(3)))
