"""Opcode names must match XLA's text spelling and the trait table must be complete."""

from __future__ import annotations

import pytest

from xlapy.errors import InvalidArgumentError
from xlapy.opcode import _TRAITS, AsyncRole, HloOpcode, OpcodeTraits, SideEffect

# Text names straight from XLA's hlo_opcode.h, the source of truth.
XLA_NAMES = """
abs acos acosh add add-dependency after-all all-gather all-gather-done all-gather-start
all-reduce all-reduce-done all-reduce-start all-to-all and asin asinh async-done async-start
async-update atan atan2 atanh batch-norm-grad batch-norm-inference batch-norm-training bitcast
bitcast-convert broadcast call cbrt ceil cholesky clamp count-leading-zeros
collective-broadcast collective-permute collective-permute-done collective-permute-start
collective-reduce compare complex concatenate conditional constant convert convolution copy
copy-done copy-start cosine cosh custom-call divide domain dot dynamic-reshape dynamic-slice
dynamic-update-slice erf exponential exponential-minus-one fft floor fusion gather
get-dimension-size get-tuple-element imag infeed iota is-finite log log-plus-one logistic map
maximum minimum mulhi multiply negate not opt-barrier or outfeed pad parameter partition-id
popcnt power ragged-all-to-all ragged-dot real recv recv-done reduce reduce-precision
reduce-scatter reduce-window remainder replica-id reshape reverse rng rng-bit-generator
rng-get-and-update-state round-nearest-afz round-nearest-even rsqrt scaled-dot scan scatter
select select-and-scatter send send-done set-dimension-size shift-left shift-right-arithmetic
shift-right-logical shuffle sign sine sinh slice sort sqrt stochastic-convert subtract tan
tanh topk transpose triangular-solve tuple while xor
""".split()


def test_exactly_xlas_opcodes() -> None:
    assert sorted(op.value for op in HloOpcode) == sorted(XLA_NAMES)


@pytest.mark.parametrize("name", XLA_NAMES)
def test_every_name_round_trips(name: str) -> None:
    op = HloOpcode.from_text(name)
    assert op.value == name
    assert str(op) == name
    assert op.name == name.upper().replace("-", "_")


def test_trait_table_covers_every_opcode() -> None:
    assert set(_TRAITS) == set(HloOpcode)
    assert all(isinstance(t, OpcodeTraits) for t in _TRAITS.values())


def test_aliases_are_the_same_member() -> None:
    assert HloOpcode.CLZ is HloOpcode.COUNT_LEADING_ZEROS
    assert HloOpcode.COS is HloOpcode.COSINE
    assert HloOpcode.EXP is HloOpcode.EXPONENTIAL
    assert HloOpcode.OPTIMIZATION_BARRIER is HloOpcode.OPT_BARRIER


def test_unknown_name_suggests_near_matches() -> None:
    with pytest.raises(InvalidArgumentError, match="reduce-window"):
        HloOpcode.from_text("reduce_window")
    with pytest.raises(InvalidArgumentError, match="cosine"):
        HloOpcode.from_text("cos")
    with pytest.raises(InvalidArgumentError, match="unknown HLO opcode 'zzzz'"):
        HloOpcode.from_text("zzzz")


def test_arity() -> None:
    H = HloOpcode
    assert H.ADD.arity == 2
    assert H.ABS.arity == 1
    assert H.CONSTANT.arity == 0
    assert H.CLAMP.arity == 3
    assert H.BATCH_NORM_GRAD.arity == 5
    assert H.RAGGED_ALL_TO_ALL.arity == 6
    assert H.TUPLE.arity is None and H.TUPLE.is_variadic
    assert H.WHILE.arity == 1
    assert H.OUTFEED.arity == 2


def test_elementwise() -> None:
    H = HloOpcode
    assert H.ADD.is_elementwise_binary and not H.ADD.is_elementwise_unary
    assert H.NEGATE.is_elementwise_unary
    assert H.SELECT.is_elementwise_ternary
    assert H.COMPARE.is_elementwise
    assert not H.DOT.is_elementwise
    assert not H.BROADCAST.is_elementwise
    for op in HloOpcode:
        if op.is_elementwise and op.arity is not None:
            assert op.arity in (1, 2, 3)


def test_side_effects() -> None:
    H = HloOpcode
    for op in (H.RNG, H.INFEED, H.OUTFEED, H.SEND, H.RECV_DONE, H.ALL_REDUCE_START):
        assert op.has_side_effect
    assert H.CUSTOM_CALL.side_effect is SideEffect.CONDITIONAL
    assert H.CUSTOM_CALL.may_have_side_effect and not H.CUSTOM_CALL.has_side_effect
    assert not H.ADD.may_have_side_effect
    assert not H.RNG_BIT_GENERATOR.has_side_effect


def test_called_computations() -> None:
    H = HloOpcode
    assert H.REDUCE.called_computation_attributes == ("to_apply",)
    assert H.WHILE.called_computation_attributes == ("condition", "body")
    assert H.SELECT_AND_SCATTER.called_computation_attributes == ("select", "scatter")
    assert H.FUSION.called_computation_attributes == ("calls",)
    assert "branch_computations" in H.CONDITIONAL.called_computation_attributes
    assert H.ASYNC_START.called_computation_attributes == ("calls",)
    assert not H.ADD.calls_computations
    assert H.REDUCE.call_context == "embedded" and H.WHILE.call_context == "control_flow"


def test_collectives_and_async() -> None:
    H = HloOpcode
    assert H.ALL_REDUCE.is_collective and H.REDUCE_SCATTER.is_collective
    assert not H.REDUCE.is_collective
    assert H.COPY_START.is_async_start and H.COPY_DONE.is_async_done
    assert H.COPY_START.async_done_opcode is H.COPY_DONE
    assert H.RECV_DONE.async_start_opcode is H.RECV
    assert H.ASYNC_UPDATE.async_role is AsyncRole.UPDATE
    assert H.ASYNC_DONE.is_generic_async and not H.COPY_DONE.is_generic_async
    for op in HloOpcode:
        done = op.async_done_opcode
        if done is not None:
            assert op.is_async_start and done.is_async_done
            assert done.async_start_opcode is op


def test_commutative() -> None:
    assert HloOpcode.ADD.is_commutative and HloOpcode.MAXIMUM.is_commutative
    assert not HloOpcode.SUBTRACT.is_commutative


def test_async_shorthand() -> None:
    H = HloOpcode
    assert H.from_async_text("all-to-all-start") == (H.ASYNC_START, H.ALL_TO_ALL)
    assert H.from_async_text("negate-update") == (H.ASYNC_UPDATE, H.NEGATE)
    assert H.from_async_text("custom-call-done") == (H.ASYNC_DONE, H.CUSTOM_CALL)
    assert H.from_async_text("copy-start") == (H.COPY_START, None)
    assert H.from_async_text("add") == (H.ADD, None)
    assert H.ASYNC_START.async_text(H.ALL_TO_ALL) == "all-to-all-start"
    with pytest.raises(InvalidArgumentError, match="unknown HLO opcode"):
        H.from_async_text("bogus-start")
    with pytest.raises(InvalidArgumentError):
        H.ADD.async_text(H.NEGATE)
