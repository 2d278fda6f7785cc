"""``SelectAndScatterExpander``: select-and-scatter as a variadic reduce-window that finds
each window's selected position, then a scatter of the source values onto them.

Why: select-and-scatter offers each window's elements in row-major order; the
first one inside the operand is selected, and a later one replaces it when
``select(selected, candidate)`` is false. That is a fold over the window of
(value, position) pairs, position -1 standing for padding, which a
reduce-window with init ``(0, -1)`` performs (the CPU backend's reduce-window
folds each window sequentially in row-major order). The source values are then
combined into a result filled with ``init`` at the selected positions by a
scatter with the scatter computation, in source order; windows that selected
nothing (all padding) carry position -1, which the scatter skips as out of
bounds. Both steps have native kernels.
"""

from __future__ import annotations

import math

from ..hlo.instruction import HloInstruction
from ..opcode import HloOpcode
from .expansion import ExpanderPass, hlo_shape, splice, zero_literal

Op = HloOpcode


def expansion_text(instruction: HloInstruction) -> str | None:
    operand, source, init = instruction.operands
    window = instruction.attribute("window")
    wds = list(window.dimensions) if window is not None else []
    if any(wd.window_dilation != 1 or wd.base_dilation != 1 for wd in wds):
        return None
    t = operand.shape.element_type.hlo_name
    dims = list(operand.shape.dimensions)
    out = list(source.shape.dimensions)
    n, m = math.prod(dims), math.prod(out)
    window_text = (
        f"size={'x'.join(str(wd.size) for wd in wds)} "
        f"stride={'x'.join(str(wd.stride) for wd in wds)} "
        f"pad={'x'.join(f'{wd.padding_low}_{wd.padding_high}' for wd in wds)}"
    )
    if not dims:
        window_text = ""
    reducer = [
        f"  sv = {t}[] parameter(0)",
        "  sp = s64[] parameter(1)",
        f"  v = {t}[] parameter(2)",
        "  p = s64[] parameter(3)",
        "  none = s64[] constant(-1)",
        "  inside = pred[] compare(p, none), direction=GT",
        "  have = pred[] compare(sp, none), direction=GT",
        "  keep = pred[] call(sv, v), to_apply=select",
        "  lacking = pred[] not(have)",
        "  replaced = pred[] not(keep)",
        "  wanted = pred[] or(lacking, replaced)",
        "  take = pred[] and(inside, wanted)",
        f"  rv = {t}[] select(take, v, sv)",
        "  rp = s64[] select(take, p, sp)",
        f"  ROOT r = ({t}[], s64[]) tuple(rv, rp)",
    ]
    select = [f"  a = {t}[] parameter(0)", f"  b = {t}[] parameter(1)",
              "  ROOT r = pred[] constant(true)"]  # fmt: skip
    combine = [f"  a = {t}[] parameter(0)", f"  b = {t}[] parameter(1)",
               f"  ROOT r = {t}[] copy(b)"]  # fmt: skip
    entry = [
        f"  operand = {hlo_shape(t, dims)} parameter(0)",
        f"  source = {hlo_shape(t, out)} parameter(1)",
        f"  init = {t}[] parameter(2)",
        f"  linear = s64[{n}] iota(), iota_dimension=0",
        f"  positions = {hlo_shape('s64', dims)} reshape(linear)",
        f"  no_value = {t}[] constant({zero_literal(t)})",
        "  no_position = s64[] constant(-1)",
        f"  chosen = ({hlo_shape(t, out)}, {hlo_shape('s64', out)}) reduce-window(operand, positions, "
        f"no_value, no_position), window={{{window_text}}}, to_apply=fold",
        f"  where = {hlo_shape('s64', out)} get-tuple-element(chosen), index=1",
        f"  indices = s64[{m},1] reshape(where)",
        f"  values = {t}[{m}] reshape(source)",
        f"  base = {t}[{n}] broadcast(init), dimensions={{}}",
        f"  scattered = {t}[{n}] scatter(base, indices, values), update_window_dims={{}}, "
        "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, "
        "to_apply=combine",
        f"  ROOT result = {hlo_shape(t, dims)} reshape(scattered)",
    ]
    parts = [("select", select), ("combine", combine), ("fold", reducer)]
    text = "HloModule select_and_scatter_expansion\n\n"
    for name, lines in parts:
        text += f"{name} {{\n" + "\n".join(lines) + "\n}\n\n"
    return text + "ENTRY expansion {\n" + "\n".join(entry) + "\n}\n"


def expand_select_and_scatter(instruction: HloInstruction) -> HloInstruction | None:
    if not instruction.shape.is_array:
        return None
    text = expansion_text(instruction)
    if text is None:
        return None
    bind = {"select": instruction.attribute("select"), "combine": instruction.attribute("scatter")}
    return splice(instruction, text, bind)


class SelectAndScatterExpander(ExpanderPass):
    name = "select-and-scatter-expander"
    opcodes = frozenset({Op.SELECT_AND_SCATTER})

    def expand(self, instruction: HloInstruction) -> HloInstruction | None:
        return expand_select_and_scatter(instruction)
