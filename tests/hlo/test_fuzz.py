"""Mutated HLO text never breaks the parser: it parses (and prints stably) or raises ParseError."""

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xlapy.errors import ParseError
from xlapy.hlo import parse_module

CORPUS = Path(__file__).parent.parent / "data" / "hlo_corpus"
# Small, varied modules: optimized ones (fusions, scheduling), verbose ones (metadata), short ones.
SEEDS = [
    (CORPUS / name).read_text()
    for name in (
        "reductions.hlo",
        "conditionals.opt.hlo",
        "dot_general.verbose.hlo",
        "sort_variants.hlo",
        "scatter_gather.hlo",
        "loops.hlo",
    )
    if (CORPUS / name).exists()
]
PIECES = ["{", "}", "(", ")", ",", "=", "%", "f32[", "]", "\n", " ", "0", "-1", "ROOT ", "ENTRY ",
          "add", "tuple", "parameter(0)", "constant(1)", "{1,0}", "dimensions={0}", '"', "/*"]  # fmt: skip


@st.composite
def mutants(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(["delete", "insert", "replace", "cut-line", "dup-line"]))
        if kind == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 8)) :]
        elif kind == "insert":
            text = text[:at] + draw(st.sampled_from(PIECES)) + text[at:]
        elif kind == "replace":
            text = text[:at] + draw(st.sampled_from(PIECES)) + text[at + 1 :]
        else:
            lines = text.split("\n")
            i = draw(st.integers(0, len(lines) - 1))
            if kind == "cut-line":
                del lines[i]
            else:
                lines.insert(i, lines[i])
            text = "\n".join(lines)
    return text


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutants())
def test_mutated_modules_parse_or_raise_parse_error(text):
    try:
        module = parse_module(text)
    except ParseError as e:
        assert e.line is None or e.line >= 1
        return
    printed = module.to_text()
    assert parse_module(printed).to_text() == printed
