"""Interpreter kernels of while, conditional, call, fusion, the async and copy wrappers, infeed and outfeed."""

import importlib
import pkgutil
import time

import numpy as np
import pytest

import xlapy
from xlapy.backends.interpreter import InterpreterBackend, InterpreterOptions, run
from xlapy.custom_call import register_custom_call, unregister_custom_call
from xlapy.errors import DeadlineExceededError, InvalidArgumentError
from xlapy.evaluator import KERNELS, kernels
from xlapy.evaluator.kernels import transfers
from xlapy.hlo import parse_module
from xlapy.opcode import HloOpcode

# Every kernel module (the loops below use tuples, constants and, when present, arithmetic).
for _module in pkgutil.iter_modules(kernels.__path__):
    importlib.import_module(f"{kernels.__name__}.{_module.name}")

needs_arithmetic = pytest.mark.skipif(
    not {HloOpcode.ADD, HloOpcode.COMPARE} <= KERNELS.keys(),
    reason="the elementwise kernels (add, compare) are not in the interpreter yet",
)


def executable(text, **options):
    return InterpreterBackend().compile(parse_module(text), InterpreterOptions(**options))


# -- while ----------------------------------------------------------------------------------

SEED_WHILE = """HloModule while_example

condition {
  state = (s32[], f32[10]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  limit = s32[] constant(1000)
  ROOT less = pred[] compare(i, limit), direction=LT
}

body {
  state = (s32[], f32[10]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  v = f32[10] get-tuple-element(state), index=1
  c = f32[10] constant({1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
  sum = f32[10] add(v, c)
  ROOT result = (s32[], f32[10]) tuple(next, sum)
}

ENTRY main {
  zero = s32[] constant(0)
  zeros = f32[10] constant({0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
  init = (s32[], f32[10]) tuple(zero, zeros)
  ROOT loop = (s32[], f32[10]) while(init), condition=condition, body=body
}
"""


@needs_arithmetic
def test_seed_while_adds_a_constant_vector_1000_times_quickly():
    start = time.perf_counter()
    count, vector = run(SEED_WHILE)
    elapsed = time.perf_counter() - start
    assert count == 1000
    np.testing.assert_array_equal(vector, 1000 * np.arange(1, 11, dtype=np.float32))
    assert elapsed < 3.0, f"1000 iterations took {elapsed:.2f} s"


@pytest.fixture
def counting_targets():
    """Python custom calls standing in for compare/add, so the loop runs with any kernel set."""
    register_custom_call("test.below", lambda i, n: np.asarray(i < n))
    register_custom_call("test.step", lambda i, v: (np.int32(i + 1), v * 2))
    yield
    unregister_custom_call("test.below")
    unregister_custom_call("test.step")


def test_while_runs_body_until_condition_fails(counting_targets):
    text = """HloModule m
cond {
  s = (s32[], f32[3], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] get-tuple-element(s), index=2
  ROOT b = pred[] custom-call(i, n), custom_call_target="test.below"
}
body {
  s = (s32[], f32[3], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[3] get-tuple-element(s), index=1
  n = s32[] get-tuple-element(s), index=2
  r = (s32[], f32[3]) custom-call(i, v), custom_call_target="test.step"
  i1 = s32[] get-tuple-element(r), index=0
  v1 = f32[3] get-tuple-element(r), index=1
  ROOT t = (s32[], f32[3], s32[]) tuple(i1, v1, n)
}
ENTRY e {
  i = s32[] parameter(0)
  v = f32[3] parameter(1)
  n = s32[] parameter(2)
  init = (s32[], f32[3], s32[]) tuple(i, v, n)
  ROOT w = (s32[], f32[3], s32[]) while(init), condition=cond, body=body
}"""
    v = np.array([1, 2, 3], np.float32)
    i, out, _ = run(text, np.int32(0), v, np.int32(5))
    assert i == 5
    np.testing.assert_array_equal(out, v * 32)
    i, out, _ = run(text, np.int32(7), v, np.int32(5))  # condition false at once: init comes back
    assert i == 7
    np.testing.assert_array_equal(out, v)


# -- conditional ----------------------------------------------------------------------------

BRANCHES = """
reverse_it {
  p = f32[4] parameter(0)
  ROOT r = f32[4] reverse(p), dimensions={0}
}
keep_it {
  p = f32[4] parameter(0)
  ROOT r = f32[4] copy(p)
}
fill_it {
  p = f32[4] parameter(0)
  ROOT r = f32[4] constant({7, 7, 7, 7})
}
"""


def test_conditional_with_a_predicate():
    text = f"""HloModule m
{BRANCHES}
ENTRY e {{
  c = pred[] parameter(0)
  x = f32[4] parameter(1)
  y = f32[4] parameter(2)
  ROOT r = f32[4] conditional(c, x, y), true_computation=reverse_it, false_computation=fill_it
}}"""
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(run(text, np.bool_(True), x, x), x[::-1])
    np.testing.assert_array_equal(run(text, np.bool_(False), x, x), np.full(4, 7, np.float32))


@pytest.mark.parametrize(
    "index, expected",
    [(0, "reverse"), (1, "keep"), (2, "fill"), (3, "fill"), (-1, "fill"), (2**31 - 1, "fill")],
)
def test_conditional_with_a_branch_index(index, expected):
    """An index outside [0, n) runs the last branch, as XLA specifies."""
    text = f"""HloModule m
{BRANCHES}
ENTRY e {{
  i = s32[] parameter(0)
  x = f32[4] parameter(1)
  ROOT r = f32[4] conditional(i, x, x, x), branch_computations={{reverse_it, keep_it, fill_it}}
}}"""
    x = np.arange(4, dtype=np.float32)
    want = {"reverse": x[::-1], "keep": x, "fill": np.full(4, 7, np.float32)}[expected]
    np.testing.assert_array_equal(run(text, np.int32(index), x), want)


def test_conditional_branches_take_their_own_operands():
    text = """HloModule m
first {
  p = (f32[2], s32[]) parameter(0)
  ROOT g = f32[2] get-tuple-element(p), index=0
}
second {
  p = f32[2] parameter(0)
  ROOT r = f32[2] reverse(p), dimensions={0}
}
ENTRY e {
  i = s32[] parameter(0)
  t = (f32[2], s32[]) parameter(1)
  y = f32[2] parameter(2)
  ROOT r = f32[2] conditional(i, t, y), branch_computations={first, second}
}"""
    t = (np.array([1, 2], np.float32), np.int32(3))
    y = np.array([5, 6], np.float32)
    np.testing.assert_array_equal(run(text, np.int32(0), t, y), [1, 2])
    np.testing.assert_array_equal(run(text, np.int32(1), t, y), [6, 5])


# -- call and fusion ------------------------------------------------------------------------


def test_call_and_fusion_evaluate_their_computations():
    text = """HloModule m
swap {
  a = f32[2] parameter(0)
  b = s32[3] parameter(1)
  ROOT t = (s32[3], f32[2]) tuple(b, a)
}
fused {
  p = f32[2,3] parameter(0)
  t = f32[3,2] transpose(p), dimensions={1,0}
  ROOT r = f32[3,2] reverse(t), dimensions={0}
}
ENTRY e {
  a = f32[2] parameter(0)
  b = s32[3] parameter(1)
  m = f32[2,3] parameter(2)
  c = (s32[3], f32[2]) call(a, b), to_apply=swap
  f = f32[3,2] fusion(m), kind=kLoop, calls=fused
  ROOT r = ((s32[3], f32[2]), f32[3,2]) tuple(c, f)
}"""
    a, b = np.array([1, 2], np.float32), np.array([3, 4, 5], np.int32)
    m = np.arange(6, dtype=np.float32).reshape(2, 3)
    (cb, ca), f = run(text, a, b, m)
    np.testing.assert_array_equal(cb, b)
    np.testing.assert_array_equal(ca, a)
    np.testing.assert_array_equal(f, m.T[::-1])


# -- async and copy wrappers ----------------------------------------------------------------


def test_async_start_update_done_run_the_wrapped_computation():
    text = """HloModule m
comp {
  p = f32[4] parameter(0)
  ROOT r = f32[4] reverse(p), dimensions={0}
}
ENTRY e {
  x = f32[4] parameter(0)
  s = ((f32[4]), f32[4], s32[]) async-start(x), calls=comp
  u = ((f32[4]), f32[4], s32[]) async-update(s), calls=comp
  ROOT d = f32[4] async-done(u), calls=comp
}"""
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(run(text, x), x[::-1])


def test_async_sugar_and_tuple_results():
    text = """HloModule m
ENTRY e {
  x = f32[2,3] parameter(0)
  s = ((f32[2,3]), f32[3,2]) transpose-start(x), dimensions={1,0}
  ROOT d = f32[3,2] transpose-done(s)
}"""
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(run(text, x), x.T)


def test_copy_start_done():
    text = """HloModule m
ENTRY e {
  x = s32[3] parameter(0)
  c = (s32[3], s32[3], u32[]) copy-start(x)
  ROOT d = s32[3] copy-done(c)
}"""
    x = np.array([1, 2, 3], np.int32)
    np.testing.assert_array_equal(run(text, x), x)


# -- infeed and outfeed ---------------------------------------------------------------------

FEEDS = """HloModule m
ENTRY e {
  t = token[] after-all()
  i = ((f32[2], s32[]), token[]) infeed(t)
  data = (f32[2], s32[]) get-tuple-element(i), index=0
  t2 = token[] get-tuple-element(i), index=1
  v = f32[2] get-tuple-element(data), index=0
  o = token[] outfeed(v, t2), outfeed_shape=f32[2]
  ROOT r = (f32[2], s32[]) copy(data)
}"""


def test_infeed_dequeues_and_outfeed_enqueues():
    exe = executable(FEEDS)
    feeds = exe.feeds[0]
    feeds.infeed.put((np.array([1.5, 2.5], np.float32), np.int32(7)))
    feeds.infeed.put(xlapy.Literal.from_value((np.array([3.0, 4.0], np.float32), np.int32(8))))
    first = exe.execute([]).to_numpy()
    second = exe.execute([]).to_numpy()
    np.testing.assert_array_equal(first[0], [1.5, 2.5])
    assert first[1] == 7 and second[1] == 8
    np.testing.assert_array_equal(feeds.outfeed.get_nowait(), [1.5, 2.5])
    np.testing.assert_array_equal(feeds.outfeed.get_nowait(), [3.0, 4.0])
    assert feeds.outfeed.empty()


def test_infeed_of_the_wrong_shape_or_none_at_all(monkeypatch):
    exe = executable(FEEDS)
    exe.feeds[0].infeed.put((np.zeros(3, np.float32), np.int32(0)))
    with pytest.raises(InvalidArgumentError, match="f32\\[2\\]"):
        exe.execute([])
    monkeypatch.setattr(transfers, "INFEED_TIMEOUT_SECONDS", 0.05)
    with pytest.raises(DeadlineExceededError, match="infeed"):
        exe.execute([])


def test_async_late_binding_runs_once_every_operand_is_bound():
    text = """HloModule m
comp {
  a = f32[2] parameter(0)
  b = f32[2] parameter(1)
  ROOT t = (f32[2], f32[2]) tuple(b, a)
}
ENTRY e {
  x = f32[2] parameter(0)
  y = f32[2] parameter(1)
  s = ((f32[2]), (), s32[]) async-start(x), calls=comp
  u = ((f32[2], f32[2]), (), s32[]) async-update(s, y), calls=comp
  ROOT d = (f32[2], f32[2]) async-done(u), calls=comp
}"""
    x, y = np.array([1, 2], np.float32), np.array([3, 4], np.float32)
    first, second = run(text, x, y)
    np.testing.assert_array_equal(first, y)
    np.testing.assert_array_equal(second, x)
