"""Sorts whose comparator is not a strict weak order still permute their operands.

NaN keys under a FLOAT ``LT`` compare neither less nor greater than anything,
so "equivalent" is not transitive and a binary-search merge places elements
inconsistently (values duplicated, NaNs lost, an IndexError from positions
never written). Both backends define the result as the same stable bottom-up
merge sort, so they must also agree element for element.
"""

from __future__ import annotations

import functools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import xlapy
from xlapy.backends.interpreter import run
from xlapy.hlo import parse_module


def _sort_module(n: int, direction: str = "LT") -> str:
    return f"""
HloModule sort_{n}

less {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction={direction}
}}

ENTRY main {{
  keys = f32[{n}] parameter(0)
  index = s32[{n}] iota(), iota_dimension=0
  ROOT s = (f32[{n}], s32[{n}]) sort(keys, index), dimensions={{0}}, to_apply=less
}}
"""


@functools.cache
def _cpu_sort(n: int):  # noqa: ANN202
    return xlapy.local_client("cpu").compile(parse_module(_sort_module(n)))


def _check_permutation(keys: np.ndarray, sorted_keys: np.ndarray, order: np.ndarray) -> None:
    assert sorted(order.tolist()) == list(range(keys.size)), "not a permutation"
    # The same permutation moved every operand.
    np.testing.assert_array_equal(sorted_keys.view(np.uint32), keys[order].view(np.uint32))


keys_with_nans = st.integers(0, 1200).flatmap(
    lambda n: st.lists(
        st.one_of(
            st.just(float("nan")),
            st.floats(-4, 4, width=32),
            st.sampled_from([0.0, -0.0, 1.0, float("inf"), float("-inf")]),
        ),
        min_size=n,
        max_size=n,
    )
)


@settings(max_examples=40, deadline=None)
@given(keys_with_nans)
def test_nan_keys_under_lt_give_a_permutation_the_cpu_agrees_with(values: list[float]) -> None:
    keys = np.array(values, dtype=np.float32)
    n = keys.size
    sorted_keys, order = run(_sort_module(n), keys)
    _check_permutation(keys, sorted_keys, order)
    cpu_keys, cpu_order = _cpu_sort(n)(keys)
    np.testing.assert_array_equal(order, cpu_order)
    np.testing.assert_array_equal(sorted_keys.view(np.uint32), cpu_keys.view(np.uint32))


def test_thousand_keys_with_many_nans_do_not_raise() -> None:
    """The reported case: n = 1000 with NaNs raised an IndexError."""
    rng = np.random.default_rng(7)
    keys = rng.standard_normal(1000).astype(np.float32)
    keys[rng.random(1000) < 0.3] = np.nan
    sorted_keys, order = run(_sort_module(1000), keys)
    _check_permutation(keys, sorted_keys, order)
    assert np.isnan(sorted_keys).sum() == np.isnan(keys).sum()
    cpu_keys, cpu_order = _cpu_sort(1000)(keys)
    np.testing.assert_array_equal(order, cpu_order)


def test_strict_weak_order_stays_the_stable_sort() -> None:
    """Without NaNs LT is a strict weak order: the result is numpy's stable argsort."""
    rng = np.random.default_rng(3)
    keys = rng.integers(-5, 5, 777).astype(np.float32)  # many ties
    sorted_keys, order = run(_sort_module(777), keys)
    np.testing.assert_array_equal(order, np.argsort(keys, kind="stable"))
    np.testing.assert_array_equal(sorted_keys, np.sort(keys))


def test_a_comparator_that_is_always_true_still_permutes() -> None:
    """``LE`` is not irreflexive: every merge takes the right run first while it can."""
    rng = np.random.default_rng(5)
    keys = rng.integers(0, 3, 300).astype(np.float32)
    sorted_keys, order = run(_sort_module(300, "LE"), keys)
    _check_permutation(keys, sorted_keys, order)
    cpu = xlapy.local_client("cpu").compile(parse_module(_sort_module(300, "LE")))
    cpu_keys, cpu_order = cpu(keys)
    np.testing.assert_array_equal(order, cpu_order)
