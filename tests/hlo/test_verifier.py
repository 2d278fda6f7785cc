"""The verifier: structure and shapes of whole modules."""

from pathlib import Path

import pytest

from xlapy import Shape
from xlapy.errors import InvalidArgumentError
from xlapy.hlo import HloComputation, HloInstruction, HloModule, HloOpcode, parse_module

DATA = Path(__file__).parent.parent / "data"
S = Shape.parse


def module_text() -> str:
    return (DATA / "hlo" / "fusion_while_reduce.hlo").read_text()


def test_valid_module_verifies():
    parse_module(module_text()).verify()


@pytest.mark.parametrize("name", sorted(p.name for p in (DATA / "hlo_corpus").glob("*.hlo"))[::7])
def test_corpus_modules_verify(name):
    parse_module((DATA / "hlo_corpus" / name).read_text()).verify()


def simple_module() -> tuple[HloModule, HloInstruction, HloInstruction]:
    module = HloModule("m")
    comp = HloComputation("main")
    x = comp.add_instruction(
        HloInstruction(HloOpcode.PARAMETER, S("f32[4]"), name="x", parameter_number=0)
    )
    y = comp.add_instruction(HloInstruction(HloOpcode.NEGATE, S("f32[4]"), [x], name="y"))
    comp.root = y
    module.add_computation(comp, entry=True)
    return module, x, y


def test_shape_contradicting_inference_is_reported():
    module, _, y = simple_module()
    module.verify()
    y.shape = S("f32[5]")
    with pytest.raises(
        InvalidArgumentError, match=r"instruction y: the shape f32\[5\] contradicts"
    ):
        module.verify()


def test_wrong_operand_count():
    module, x, y = simple_module()
    y.append_operand(x)
    with pytest.raises(InvalidArgumentError, match="negate takes 1 operands, has 2"):
        module.verify()


def test_parameter_numbering_gaps():
    module, x, _ = simple_module()
    x.parameter_number = 1
    with pytest.raises(InvalidArgumentError, match=r"parameters are numbered \[1\]"):
        module.verify()


def test_operands_from_other_computations():
    module, x, y = simple_module()
    other = HloComputation("other")
    z = other.add_instruction(
        HloInstruction(HloOpcode.PARAMETER, S("f32[4]"), name="z", parameter_number=0)
    )
    module.add_computation(other)
    y.replace_operand(0, z)
    with pytest.raises(InvalidArgumentError, match="operand z is not in this computation"):
        module.verify(check_shapes=False)


def test_called_computation_signature_mismatch():
    module = parse_module(module_text())
    loop = module.entry.instruction("loop")
    loop.set_attribute("condition", module.computation("add"))  # (f32[], f32[]) -> f32[]
    with pytest.raises(InvalidArgumentError, match="instruction loop: while"):
        module.verify()


def test_problems_are_all_listed():
    module, x, y = simple_module()
    y.shape = S("f32[5]")
    x.parameter_number = 3
    with pytest.raises(InvalidArgumentError) as info:
        module.verify()
    assert "contradicts" in str(info.value) and "numbered [3]" in str(info.value)
