"""HLO text output: XLA's formats, print stability, and real XLA text from JAX.

The JAX part generates HLO at test time from ~20 representative jitted
functions and checks that xlapy prints XLA's own text back (short form as
``as_hlo_text()`` writes it, long form as XLA's default printer writes it),
that printing is a fixed point, and that XLA's parser accepts what xlapy
prints.
"""

from __future__ import annotations

import numpy as np
import pytest

from xlapy import F32, Shape
from xlapy.hlo import (
    HloComputation,
    HloInstruction,
    HloOpcode,
    PrintOptions,
    RawAttribute,
    make_module,
    parse_module,
)
from xlapy.hlo.printer import shape_text
from xlapy.literal import Literal

V = Shape.array(F32, [3])


def build() -> HloComputation:
    comp = HloComputation("main")
    x = comp.add_instruction(HloInstruction.create_parameter(0, V, "x"))
    c = comp.add_instruction(
        HloInstruction.create_constant(Literal.from_numpy(np.array([1, 2.5, -3], np.float32)), "c")
    )
    s = comp.add_instruction(HloInstruction(HloOpcode.ADD, V, [x, c], name="s"))
    s.set_attribute("metadata", RawAttribute('{op_name="add"}'))
    comp.root = s
    return comp


def test_programmatic_module_short_and_long():
    module = make_module("built", [build()])
    assert module.to_text() == (
        "HloModule built\n\n"
        "ENTRY main {\n"
        "  x = f32[3]{0} parameter(0)\n"
        "  c = f32[3]{0} constant({1, 2.5, -3})\n"
        "  ROOT s = f32[3]{0} add(x, c)\n"
        "}\n\n"
    )
    assert module.to_text(verbose=True) == (
        "HloModule built\n\n"
        "ENTRY %main (x: f32[3]) -> f32[3] {\n"
        "  %x = f32[3]{0} parameter(0)\n"
        "  %c = f32[3]{0} constant({1, 2.5, -3})\n"
        '  ROOT %s = f32[3]{0} add(f32[3]{0} %x, f32[3]{0} %c), metadata={op_name="add"}\n'
        "}\n\n"
    )
    assert module.to_text(options=PrintOptions.xla_default()).count("f32[3]{0} %x") == 0
    for verbose in (False, True):
        text = module.to_text(verbose=verbose)
        assert parse_module(text).to_text(verbose=verbose) == text


def test_short_form_hides_metadata_but_keeps_backend_config():
    comp = build()
    comp.root.set_attribute("backend_config", RawAttribute('{"k":1}'))
    text = make_module("m", [comp]).to_text()
    assert "metadata" not in text and 'backend_config={"k":1}' in text


def test_tuple_shapes_and_operands_get_index_marks():
    shape = Shape.tuple([Shape.scalar(F32)] * 11)
    assert shape_text(shape) == (
        "(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[], f32[], f32[], f32[], f32[], "
        "/*index=10*/f32[])"
    )
    assert shape_text(Shape.parse("(f32[2]{0}, s32[])"), False) == "(f32[2], s32[])"
    comp = HloComputation("main")
    p = comp.add_instruction(HloInstruction.create_parameter(0, Shape.scalar(F32), "p"))
    comp.root = comp.add_instruction(
        HloInstruction(HloOpcode.TUPLE, Shape.tuple([p.shape] * 6), [p] * 6)
    )
    module = make_module("m", [comp])
    assert "tuple(p, p, p, p, p, p)" in module.to_text()
    assert "f32[] %p, /*index=5*/f32[] %p)" in module.to_text(verbose=True)
    assert parse_module(module.to_text(verbose=True)).to_text() == module.to_text()


def test_control_predecessors_printed_where_xla_puts_them():
    comp = build()
    x, c, s = comp.instructions
    s.add_control_predecessor(c)
    s.set_attribute("sharding", RawAttribute("{replicated}"))
    text = make_module("m", [comp]).to_text(verbose=True)
    assert "sharding={replicated}, control-predecessors={%c}, metadata=" in text
    assert "control-predecessors" not in make_module("m2", [build()]).to_text()


def test_written_attribute_order_is_kept():
    text = """\
HloModule m

ENTRY main {
  a = f32[2]{0} parameter(0)
  ROOT b = f32[2]{0} negate(a), control-predecessors={a}, sharding={replicated}, frontend_attributes={z="1"}
}

"""
    module = parse_module(text)
    assert module.to_text() == text
    module.entry.root.remove_control_predecessor(module.entry.parameter(0))
    assert "control-predecessors" not in module.to_text()


def test_callees_are_printed_before_callers():
    text = """\
HloModule m

ENTRY main {
  a = f32[] parameter(0)
  ROOT c = f32[] call(a), to_apply=f
}

f {
  p = f32[] parameter(0)
  ROOT n = f32[] negate(p)
}
"""
    printed = parse_module(text).to_text()
    assert printed.index("\nf {") < printed.index("ENTRY main")
    assert parse_module(printed).to_text() == printed


def test_instructions_are_printed_after_their_operands():
    module = make_module("m", [build()])
    entry = module.entry
    x, c, s = entry.instructions
    neg = entry.add_instruction(HloInstruction(HloOpcode.NEGATE, V, [x], name="neg"))
    s.replace_operand(1, neg)  # neg is last in the list but s uses it
    text = module.to_text()
    assert text.index("neg = ") < text.index("ROOT s")
    assert parse_module(text).to_text() == text


def test_header_fields_set_through_the_api():
    from xlapy.hlo import AliasEntry, BufferDonor, InputOutputAlias

    module = make_module("m", [build()])
    module.input_output_alias = InputOutputAlias((AliasEntry((), 0, (), "must-alias"),))
    module.buffer_donor = BufferDonor(((0, ()),))
    module.header_extras["alias_passthrough_params"] = "true"
    header = module.to_text().splitlines()[0]
    assert header == (
        "HloModule m, input_output_alias={ {}: (0, {}, must-alias) }, buffer_donor={ (0, {}) }, "
        "alias_passthrough_params=true"
    )


# -- real XLA text, generated by JAX at test time ---------------------------------------

jax = pytest.importorskip(
    "jax", reason="JAX (real XLA) is not installed; it generates these inputs"
)
jnp = pytest.importorskip("jax.numpy")
jax_hlo = pytest.importorskip("jaxlib._hlo", reason="jaxlib._hlo (XLA's printer) is missing")

f32 = np.float32


def _functions():
    lax = jax.lax
    x3 = np.arange(6, dtype=f32).reshape(2, 3)
    v8 = np.linspace(-1, 1, 8, dtype=f32)
    return {
        "elementwise": (lambda a, b: jnp.where(a > b, jnp.sin(a) * b, jnp.exp(-b)), (x3, x3)),
        "dot": (lambda a, b: a @ b.T + 1.0, (x3, x3)),
        "reductions": (lambda a: (a.sum(0), a.max(1), jnp.argmax(a, 1)), (x3,)),
        "while": (lambda a: lax.fori_loop(0, 5, lambda i, c: c * 2.0 + i, a), (v8,)),
        "cond_switch": (
            lambda i, a: lax.switch(i, [jnp.sin, jnp.cos, lambda t: -t], a),
            (np.int32(1), v8),
        ),
        "scan": (lambda a: lax.cumsum(a) + lax.associative_scan(jnp.add, a), (v8,)),
        "sort": (lambda a: (jnp.sort(a), jnp.argsort(a)), (v8,)),
        "scatter_gather": (
            lambda a, i: a.at[i].add(1.0)[i[::-1]],
            (v8, np.array([1, 5, 2], np.int32)),
        ),
        "conv": (
            lambda a, w: lax.conv_general_dilated(a, w, (1, 1), "SAME"),
            (np.ones((1, 2, 5, 5), f32), np.ones((3, 2, 3, 3), f32)),
        ),
        "pooling": (
            lambda a: lax.reduce_window(a, -jnp.inf, lax.max, (2, 2), (1, 1), "VALID"),
            (np.ones((4, 4), f32),),
        ),
        "random": (lambda k: jax.random.normal(jax.random.key_data(k), (3,)), None),
        "fft": (lambda a: jnp.fft.rfft(a), (v8,)),
        "cholesky": (
            lambda a: jnp.linalg.cholesky(a @ a.T + 3 * jnp.eye(3)),
            (np.eye(3, dtype=f32),),
        ),
        "dtypes": (
            lambda a, b, c: (
                a.astype(jnp.bfloat16) * jnp.bfloat16(1.5),
                b + jnp.int8(3),
                c ^ jnp.uint32(5),
                a.astype(jnp.complex64) * (1 + 2j),
                a.astype(jnp.float16) / jnp.float16(0),
            ),
            (v8, np.ones(8, np.int8), np.ones(8, np.uint32)),
        ),
        "slicing": (
            lambda a, u, i: (lax.dynamic_update_slice(a, u, (i,)), a[1:7:2], jnp.pad(a, (1, 2))),
            (v8, np.ones(2, f32), np.int32(3)),
        ),
        "reshape_concat": (
            lambda a: jnp.concatenate([a.reshape(2, 4), a[::-1].reshape(2, 4).T.reshape(2, 4)]),
            (v8,),
        ),
        "iota_clamp": (lambda a: jnp.clip(a * jnp.arange(8), -2, 2).astype(jnp.int32), (v8,)),
        "zero_size": (lambda a: (a.sum(0), jnp.zeros((0, 2)), a), (np.ones((0, 3), f32),)),
        "bitcast": (lambda a: lax.bitcast_convert_type(a, jnp.uint8), (v8,)),
        "many_outputs": (lambda *xs: tuple(x + i for i, x in enumerate(xs)), (v8,) * 7),
        "constants": (
            lambda a: a + jnp.array([np.nan, np.inf, -np.inf, 0.1, 1e-30, 3e38, -0.0, 7], f32),
            (v8,),
        ),
    }


@pytest.fixture(scope="module")
def jax_texts():
    """name -> {"short", "long", and for a few "optimized"} HLO text from XLA."""
    import warnings

    texts = {}
    optimized = {"while", "cond_switch", "sort", "scatter_gather", "cholesky", "random", "dtypes"}
    for name, (fn, args) in _functions().items():
        if args is None:
            args = (jax.random.PRNGKey(0),)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lowered = jax.jit(fn, donate_argnums=(0,) if name == "elementwise" else ()).lower(*args)
        computation = lowered.compiler_ir("hlo")
        entry = {
            "short": computation.as_hlo_text(),
            "long": computation.as_hlo_module().to_string(jax_hlo.HloPrintOptions()),
        }
        if name in optimized:
            entry["optimized"] = lowered.compile().as_text()
        texts[name] = entry
    return texts


NAMES = list(_functions())


@pytest.mark.parametrize("name", NAMES)
def test_jax_text_round_trips_stably(jax_texts, name):
    for form, text in jax_texts[name].items():
        module = parse_module(text)
        for options in (PrintOptions.short(), PrintOptions.long(), PrintOptions.xla_default()):
            printed = module.to_text(options=options)
            again = parse_module(printed)
            assert again.to_text(options=options) == printed, f"{form} form, {options}"
        # Both print forms describe the same module.
        assert parse_module(module.to_text(verbose=True)).to_text() == module.to_text()


@pytest.mark.parametrize("name", NAMES)
def test_jax_text_prints_back_exactly(jax_texts, name):
    forms = jax_texts[name]
    assert parse_module(forms["short"]).to_text() == forms["short"]
    assert parse_module(forms["long"]).to_text(options=PrintOptions.xla_default()) == forms["long"]
    if "optimized" in forms:
        module = parse_module(forms["optimized"])
        assert module.is_scheduled
        assert module.to_text(options=PrintOptions.xla_default()) == forms["optimized"]


@pytest.mark.parametrize("name", NAMES)
def test_xla_parses_what_xlapy_prints(jax_texts, name):
    for text in jax_texts[name].values():
        module = parse_module(text)
        for options in (PrintOptions.short(), PrintOptions.long()):
            jax_hlo.hlo_module_from_text(module.to_text(options=options))


def test_jax_structure_is_what_xla_wrote(jax_texts):
    module = parse_module(jax_texts["while"]["short"])
    loops = [i for i in module.instructions() if i.opcode is HloOpcode.WHILE]
    assert loops and all({"condition", "body"} <= set(loop.attributes) for loop in loops)
    assert all(c.parent is module for loop in loops for c in loop.called_computations())
    donated = parse_module(jax_texts["elementwise"]["short"])
    assert donated.input_output_alias.entries or donated.buffer_donor.entries
    optimized = parse_module(jax_texts["cholesky"]["optimized"])
    targets = [
        i.custom_call_target for i in optimized.instructions() if i.opcode is HloOpcode.CUSTOM_CALL
    ]
    assert any("potrf" in t for t in targets)
    fusions = [i for i in optimized.instructions() if i.opcode is HloOpcode.FUSION]
    assert fusions and all(f.fused_computation.is_fusion_computation for f in fusions)
    constants = parse_module(jax_texts["constants"]["short"])
    values = [
        np.asarray(i.literal.to_numpy())
        for i in constants.instructions()
        if i.opcode is HloOpcode.CONSTANT and i.shape.dimensions == (8,)
    ]
    assert values and np.isnan(values[0][0]) and values[0][1] == np.inf


def test_large_constants_can_print_as_digests_of_their_bytes():
    # What the compile cache's key prints (digest_constants_over): every byte counts,
    # NaN payloads and signed zeros included; small constants print as they are.
    def module(values: np.ndarray) -> str:
        x = ", ".join(repr(float(v)) if not np.isnan(v) else "nan" for v in values)
        return f"HloModule c\nENTRY e {{\n  ROOT c = f32[{len(values)}] constant({{{x}}})\n}}\n"

    options = PrintOptions(digest_constants_over=64)
    big = np.linspace(-1, 1, 100).astype(np.float32)
    text = parse_module(module(big)).to_text(options=options)
    assert "constant(digest=" in text and "0.5" not in text
    changed = big.copy()
    changed[57] = -0.0 if changed[57] == 0 else np.nextafter(changed[57], np.float32(2))
    assert parse_module(module(changed)).to_text(options=options) != text
    small = parse_module(module(big[:64]))
    assert small.to_text(options=options) == small.to_text()
