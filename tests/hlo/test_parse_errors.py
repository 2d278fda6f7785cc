"""Malformed HLO text: the right error class, at the right line and column.

Every error is a ``ParseError`` whose message shows ``line:column``, the
offending line and a caret under the column, so a user can find the mistake
without counting characters.
"""

from __future__ import annotations

import pytest

from xlapy.errors import ParseError, XlaError
from xlapy.hlo import parse_module

GOOD = """\
HloModule m

ENTRY main {
  a = f32[2] parameter(0)
  b = f32[2] parameter(1)
  t = (f32[2], f32[2]) tuple(a, b)
  ROOT c = f32[2] add(a, b)
}
"""


def edit(old: str, new: str) -> str:
    assert old in GOOD
    return GOOD.replace(old, new)


def error_of(text: str) -> ParseError:
    with pytest.raises(ParseError) as info:
        parse_module(text)
    return info.value


def check(text: str, line: int, column: int, *fragments: str) -> ParseError:
    """Assert the error position and that the message quotes the line with a caret."""
    e = error_of(text)
    assert isinstance(e, XlaError) and isinstance(e, ValueError)
    assert (e.line, e.column) == (line, column), str(e)
    source = text.splitlines()[line - 1] if line <= len(text.splitlines()) else ""
    rendered = str(e)
    assert rendered.startswith(f"{line}:{column}: ")
    if source:
        lines = rendered.splitlines()
        assert lines[1] == "  " + source
        assert lines[2] == "  " + " " * (column - 1) + "^"
    for fragment in fragments:
        assert fragment in e.message, e.message
    return e


def test_the_good_text_parses():
    parse_module(GOOD)


def test_truncated_inside_an_instruction():
    check(GOOD[: GOOD.index("add(a, b)") + 7], 7, 26, "operand name", "the end of the text")


def test_truncated_inside_a_shape():
    text = GOOD[: GOOD.index("f32[2] parameter(1)") + 5]
    check(text, 5, 12, "expected ']'", "the end of the text")


def test_truncated_before_the_closing_brace():
    check(GOOD.rstrip("}\n"), 7, 28, "not closed", "'}'")


def test_truncated_after_the_header():
    check("HloModule m, replica_count=", 1, 28, "integer")


def test_unknown_opcode_suggests_near_matches():
    e = check(edit("add(a, b)", "ad(a, b)"), 7, 19, "unknown HLO opcode 'ad'")
    assert "'add'" in e.message


def test_unknown_opcode_with_a_typo():
    check(edit("add(a, b)", "multiplyy(a, b)"), 7, 19, "'multiply'")


def test_unknown_attribute_value():
    text = edit("ROOT c = f32[2] add(a, b)", "ROOT c = pred[2] compare(a, b), direction=SIDEWAYS")
    check(text, 7, 45, "SIDEWAYS")


def test_bad_attribute_value_type():
    text = edit("t = (f32[2], f32[2]) tuple(a, b)", "t = f32[2] get-tuple-element(a), index=one")
    error_of(text)  # the registry rejects a non-integer index


def test_bad_shape():
    check(edit("f32[2] parameter(1)", "f32[2,] parameter(1)"), 5, 13, "dimension size")


def test_unknown_element_type():
    check(edit("f32[2] parameter(1)", "f31[2] parameter(1)"), 5, 7, "unknown element type 'f31'")


def test_bad_layout():
    check(edit("f32[2] parameter(1)", "f32[2]{1} parameter(1)"), 5, 13, "minor_to_major")


def test_undefined_operand():
    check(edit("add(a, b)", "add(a, q)"), 7, 26, "operand q", "not defined")


def test_undefined_called_computation_suggests_names():
    text = GOOD + "\nsum {\n  x = f32[] parameter(0)\n  ROOT y = f32[] negate(x)\n}\n"
    text = text.replace("add(a, b)", "map(a), dimensions={0}, to_apply=sun")
    check(text, 7, 52, "computation sun", "not defined", "did you mean sum")


def test_duplicate_instruction_name():
    check(edit("b = f32[2] parameter(1)", "a = f32[2] parameter(1)"), 5, 3, "a is defined twice")


def test_duplicate_computation_name():
    check(GOOD + "\nmain {\n  ROOT k = f32[] constant(1)\n}\n", 10, 1, "main is defined twice")


def test_duplicate_attribute():
    check(
        edit("tuple(a, b)", "tuple(a, b), sharding={replicated}, sharding={replicated}"),
        6,
        60,
        "sharding is given twice",
    )


def test_wrong_operand_count():
    check(edit("add(a, b)", "add(a)"), 7, 22, "add takes 2 operands", "has 1")


def test_wrong_operand_count_for_a_unary_op():
    check(edit("add(a, b)", "negate(a, b)"), 7, 25, "negate takes 1 operand,")


def test_elementwise_shape_contradicts_operands():
    check(edit("ROOT c = f32[2]", "ROOT c = f32[3]"), 7, 12, "elementwise", "f32[3]", "f32[2]")


def test_get_tuple_element_index_out_of_range():
    text = edit("ROOT c = f32[2] add(a, b)", "ROOT c = f32[2] get-tuple-element(t), index=2")
    check(text, 7, 47, "index 2 is out of range", "2 elements")


def test_get_tuple_element_shape_contradicts_the_tuple():
    text = edit("ROOT c = f32[2] add(a, b)", "ROOT c = s32[2] get-tuple-element(t), index=1")
    check(text, 7, 12, "element 1")


def test_get_tuple_element_of_a_non_tuple():
    text = edit("ROOT c = f32[2] add(a, b)", "ROOT c = f32[2] get-tuple-element(a), index=0")
    check(text, 7, 12, "not a tuple")


def test_tuple_shape_contradicts_operands():
    check(edit("t = (f32[2], f32[2])", "t = (f32[2], f32[3])"), 6, 7, "tuple t")


def test_shape_inference_hook_catches_other_contradictions():
    pytest.importorskip("xlapy.shape_inference", reason="shape inference is not there yet")
    text = edit("ROOT c = f32[2] add(a, b)", "ROOT c = f32[3] reshape(a)")
    check(text, 7, 19)


def test_garbage_after_an_instruction():
    check(edit("add(a, b)", "add(a, b) oops"), 7, 29, "expected ','", "'oops'")


def test_second_root():
    check(edit("b = f32[2]", "ROOT b = f32[2]"), 7, 8, "second ROOT")


def test_second_entry():
    text = GOOD + "\nENTRY other {\n  ROOT k = f32[] constant(1)\n}\n"
    check(text, 10, 1, "second ENTRY")


def test_parameter_numbers_must_be_dense_and_unique():
    check(edit("parameter(1)", "parameter(0)"), 5, 14, "parameter number 0")
    check(edit("parameter(1)", "parameter(2)"), 3, 7, "no parameter(1)")


def test_signature_contradicting_the_body():
    text = GOOD.replace("ENTRY main {", "ENTRY main (a: f32[2], b: f32[3]) -> f32[2] {")
    check(text, 3, 24, "b has shape f32[3]")


def test_bad_header_attribute():
    text = GOOD.replace("HloModule m", "HloModule m, input_output_alias={ {0}: (0, {}, maybe) }")
    check(text, 1, 48, "may-alias or must-alias")


def test_unterminated_string():
    check(edit("add(a, b)", 'add(a, b), backend_config="abc'), 7, 45, "unterminated string")


def test_empty_text_and_empty_computation():
    check("", 1, 1, "expected a computation")
    check("HloModule m\nENTRY e {\n}\n", 2, 7, "no instructions")


def test_errors_are_parse_errors_not_python_errors():
    """A scan of truncations: whatever the cut, the error is a ParseError."""
    for end in range(0, len(GOOD), 3):
        try:
            parse_module(GOOD[:end])
        except ParseError:
            pass


def test_async_shorthand_done_needs_its_start():
    check(edit("add(a, b)", "negate-done(a)"), 7, 19, "negate-done takes one operand")
    text = edit(
        "ROOT c = f32[2] add(a, b)",
        "s = ((f32[2]), f32[2]) negate-start(a)\n  ROOT c = f32[2] sine-done(s)",
    )
    check(text, 8, 19, "continues a negate-start")
    check(
        edit("ROOT c = f32[2] add(a, b)", "ROOT c = f32[2] negate-start(a)"), 7, 12, "needs a shape"
    )
