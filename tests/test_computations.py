"""xlapy.computations: the cached scalar reducers and sort comparators.

Signatures for every element type family, caching by (name, types) whatever
spelling of the type, XLA's special cases (pred sum is or, pred product is
and, float comparators in the total order), NaN propagation of max/min, and
results from the real XLA against numpy.
"""

import numpy as np
import pytest

import xlapy
from xlapy import computations as C
from xlapy import ops
from xlapy.builder import XlaBuilder, XlaComputation
from xlapy.errors import InvalidArgumentError
from xlapy.hlo import parse_module
from xlapy.ops import reductions as R

S = xlapy.Shape.parse
BINARY = [C.add, C.mul, C.max, C.min, C.and_, C.or_, C.xor]
BITWISE = {C.and_, C.or_, C.xor}


def run(computation: XlaComputation, *args: np.ndarray) -> list[np.ndarray]:
    pytest.importorskip("jax", reason="jax runs the real XLA, the oracle of these tests")
    from xlapy.testing.xla_oracle import run_computation

    return run_computation(computation, list(args))


def root_of(computation: XlaComputation):
    return computation.hlo_module.entry.root


TYPES = ["pred", "s8", "s32", "u64", "bf16", "f32", "f64"]


@pytest.mark.parametrize(
    ("make", "element_type"),
    # Bitwise ops take pred and integers only (floats: see test_invalid_element_types).
    [(f, t) for f in BINARY for t in TYPES if not (f in BITWISE and t[0] in "bf")],
    ids=lambda v: v if isinstance(v, str) else v.__name__,
)
def test_binary_signature_for_every_type(make, element_type):
    c = make(element_type)
    assert isinstance(c, XlaComputation)
    scalar = S(f"{element_type}[]")
    shape = c.program_shape
    assert [p.compatible(scalar) for p in shape.parameters] == [True, True]
    assert shape.result.compatible(scalar)
    text = c.to_hlo_text()
    assert parse_module(text).to_text() == text


def test_cached_once_per_name_and_type_whatever_the_spelling():
    assert C.add(xlapy.F32) is C.add(np.float32) is C.add("f32") is C.add(np.dtype("float32"))
    assert C.add(xlapy.F32) is not C.add(xlapy.F64)
    assert C.add(xlapy.F32) is not C.mul(xlapy.F32)
    assert C.lt(xlapy.F32) is C.lt([xlapy.F32]) is C.lt(("f32",))
    assert C.lt([xlapy.F32, xlapy.S32]) is not C.lt([xlapy.F32])


def test_xla_special_cases_for_pred_and_the_opcodes():
    opcode = {f.__name__: root_of(f(xlapy.PRED)).opcode.value for f in BINARY}
    assert opcode == {
        "add": "or",
        "mul": "and",
        "max": "maximum",
        "min": "minimum",
        "and_": "and",
        "or_": "or",
        "xor": "xor",
    }
    assert root_of(C.add(xlapy.S32)).opcode.value == "add"
    assert root_of(C.mul(xlapy.C64)).opcode.value == "multiply"


def test_comparators_signatures_and_total_order():
    lt = C.lt(xlapy.F32)
    assert str(lt.program_shape.result) == "pred[]"
    assert len(lt.program_shape.parameters) == 2
    root = root_of(lt)
    assert root.attributes["direction"].name == "LT"
    assert root.attributes["type"].name == "TOTALORDER"
    gt = root_of(C.gt(xlapy.S32))
    assert gt.attributes["direction"].name == "GT" and "type" not in gt.attributes
    multi = C.lt([xlapy.U8, xlapy.F32, xlapy.PRED])
    kinds = [str(p) for p in multi.program_shape.parameters]
    assert kinds == ["u8[]", "u8[]", "f32[]", "f32[]", "pred[]", "pred[]"]
    # Only the first operand is compared; the rest ride along.
    assert [o.parameter_number for o in root_of(multi).operands] == [0, 1]
    for c in (lt, multi):
        assert parse_module(c.to_hlo_text()).to_text() == c.to_hlo_text()


def test_invalid_element_types():
    with pytest.raises(InvalidArgumentError, match=r"computations\.and_: f32"):
        C.and_(xlapy.F32)
    with pytest.raises(InvalidArgumentError, match=r"computations\.xor: bf16"):
        C.xor("bf16")
    with pytest.raises(InvalidArgumentError, match=r"computations\.max: c64"):
        C.max(xlapy.C64)
    with pytest.raises(InvalidArgumentError, match=r"computations\.lt: c128"):
        C.lt(xlapy.C128)
    with pytest.raises(InvalidArgumentError, match=r"computations\.add: token"):
        C.add(xlapy.TOKEN)
    with pytest.raises(InvalidArgumentError, match=r"computations\.gt: needs at least one"):
        C.gt([])
    with pytest.raises(InvalidArgumentError):
        C.mul("float33")


def test_reductions_with_the_computations_on_xla():
    b = XlaBuilder("reductions")
    x = ops.Parameter(b, 0, S("f32[3,4]"), "x")
    n = ops.Parameter(b, 1, S("u32[3,4]"), "n")
    f32, u32 = xlapy.F32, xlapy.U32
    results = [
        R.Reduce(x, 0.0, C.add(f32), [1]),
        R.Reduce(x, 1.0, C.mul(f32), [1]),
        R.Reduce(x, -np.inf, C.max(f32), [1]),  # rows with a NaN give NaN
        R.Reduce(x, np.inf, C.min(f32), [1]),
        R.Reduce(n, 0xFFFFFFFF, C.and_(u32), [1]),
        R.Reduce(n, 0, C.or_(u32), [1]),
        R.Reduce(n, 0, C.xor(u32), [1]),
        R.Sort(x, C.gt(f32), dimension=1),  # NaN is the largest: first when descending
    ]
    c = b.build(ops.Tuple(b, results))
    assert parse_module(c.to_hlo_text()).to_text() == c.to_hlo_text()
    values = np.array([[1, -2, 3, 0.5], [np.nan, 1, 2, 3], [4, 5, np.nan, -np.inf]], np.float32)
    bits = np.random.default_rng(20).integers(0, 2**32, (3, 4), dtype=np.uint64).astype(np.uint32)
    outs = run(c, values, bits)
    np.testing.assert_allclose(outs[0], np.add.reduce(values, axis=1))
    np.testing.assert_allclose(outs[1], np.multiply.reduce(values, axis=1))
    np.testing.assert_array_equal(outs[2], np.maximum.reduce(values, axis=1))  # propagates NaN
    np.testing.assert_array_equal(outs[3], np.minimum.reduce(values, axis=1))
    assert np.isnan(outs[2][1:]).all() and np.isnan(outs[3][1:]).all()
    np.testing.assert_array_equal(outs[4], np.bitwise_and.reduce(bits, axis=1))
    np.testing.assert_array_equal(outs[5], np.bitwise_or.reduce(bits, axis=1))
    np.testing.assert_array_equal(outs[6], np.bitwise_xor.reduce(bits, axis=1))
    np.testing.assert_array_equal(outs[7], np.flip(np.sort(values, axis=1), axis=1))


def test_one_cached_computation_is_embedded_once_per_builder():
    b = XlaBuilder("twice")
    x = ops.Parameter(b, 0, S("f32[2,3]"), "x")
    first = R.Reduce(x, 0.0, C.add(xlapy.F32), [0])
    second = R.Reduce(x, 0.0, C.add(xlapy.F32), [1])
    c = b.build(ops.Tuple(b, [first, second]))
    names = [comp.name for comp in c.hlo_module.computations]
    assert len(names) == 2  # the adder and the entry
    assert first.instruction.attributes["to_apply"] is second.instruction.attributes["to_apply"]
