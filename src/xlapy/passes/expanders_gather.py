"""``GatherExpander``: a gather the backend has no kernel for, as a loop over its
start indices (as XLA's GatherExpander does).

Why: a gather is, index after index, a dynamic slice of the operand: the start
index vector placed by ``start_index_map`` (other dimensions start at 0),
clamped so the slice fits (dynamic-slice clamps the same way), the collapsed
dimensions dropped. A while loop writes slice ``i`` into row ``i`` of a
``[N, window...]`` buffer; a reshape and a transpose then put the batch and
offset dimensions where the gather's result has them. Gathers with batching
dimensions are left to the backend's kernels.
"""

from __future__ import annotations

import math

from ..hlo.instruction import HloInstruction
from ..hlo.opcode import HloOpcode
from .expansion import ExpanderPass, splice

Op = HloOpcode


def _ints(value: object) -> list[int]:
    return [int(v) for v in (value or ())]  # type: ignore[union-attr]


def _shape(t: str, dims: list[int]) -> str:
    return f"{t}[{','.join(map(str, dims))}]"


def _zero(t: str) -> str:
    """The literal of zero in HLO text for element type ``t``."""
    return {"pred": "false", "c64": "(0, 0)", "c128": "(0, 0)"}.get(t, "0")


def expansion_text(gather: HloInstruction) -> str | None:
    operand, indices = gather.operands
    a = gather.attribute
    if _ints(a("operand_batching_dims")) or _ints(a("start_indices_batching_dims")):
        return None
    offset_dims = _ints(a("offset_dims"))
    collapsed = _ints(a("collapsed_slice_dims"))
    start_map = _ints(a("start_index_map"))
    sizes = _ints(a("slice_sizes"))
    ivd = int(a("index_vector_dim"))
    t = operand.shape.element_type.hlo_name
    it = indices.shape.element_type.hlo_name
    dims = list(operand.shape.dimensions)
    out = list(gather.shape.dimensions)
    idx_dims = list(indices.shape.dimensions)
    if ivd == len(idx_dims):
        idx_dims = [*idx_dims, 1]
    k = idx_dims[ivd]
    batch = [n for d, n in enumerate(idx_dims) if d != ivd]
    n_total = math.prod(batch)
    window = [sizes[d] for d in range(len(dims)) if d not in collapsed]
    head = [
        f"  operand = {_shape(t, dims)} parameter(0)",
        f"  indices = {_shape(it, list(indices.shape.dimensions))} parameter(1)",
    ]
    if math.prod(out) == 0:
        lines = [*head, f"  zero = {t}[] constant({_zero(t)})",
                 f"  ROOT result = {_shape(t, out)} broadcast(zero), dimensions={{}}"]  # fmt: skip
        return "HloModule gather_expansion\n\nENTRY gather {\n" + "\n".join(lines) + "\n}\n"
    lines = list(head)
    source = "indices"
    if ivd == len(indices.shape.dimensions):
        lines.append(f"  with_vector = {_shape(it, idx_dims)} reshape(indices)")
        source = "with_vector"
    perm = [d for d in range(len(idx_dims)) if d != ivd] + [ivd]
    acc = [n_total, *window]
    state = f"(s64[], {_shape(it, [n_total, k])}, {_shape(t, acc)}, {_shape(t, dims)})"
    lines += [
        f"  moved = {_shape(it, [idx_dims[d] for d in perm])} transpose({source}), "
        f"dimensions={{{','.join(map(str, perm))}}}",
        f"  rows = {_shape(it, [n_total, k])} reshape(moved)",
        "  zero = s64[] constant(0)",
        f"  nothing = {t}[] constant({_zero(t)})",
        f"  empty = {_shape(t, acc)} broadcast(nothing), dimensions={{}}",
        f"  init = {state} tuple(zero, rows, empty, operand)",
        f"  loop = {state} while(init), condition=cond, body=body",
        f"  gathered = {_shape(t, acc)} get-tuple-element(loop), index=2",
        f"  spread = {_shape(t, [*batch, *window])} reshape(gathered)",
    ]
    # Result dimension p: offset dims take the window in order, the others the batch.
    order, b_next, w_next = [], 0, len(batch)
    for p in range(len(out)):
        if p in offset_dims:
            order.append(w_next)
            w_next += 1
        else:
            order.append(b_next)
            b_next += 1
    lines.append(
        f"  ROOT result = {_shape(t, out)} transpose(spread), "
        f"dimensions={{{','.join(map(str, order))}}}"
    )
    starts = ["zero"] * len(dims)
    body = [
        f"  s = {state} parameter(0)",
        "  i = s64[] get-tuple-element(s), index=0",
        f"  rows = {_shape(it, [n_total, k])} get-tuple-element(s), index=1",
        f"  acc = {_shape(t, acc)} get-tuple-element(s), index=2",
        f"  operand = {_shape(t, dims)} get-tuple-element(s), index=3",
        "  zero = s64[] constant(0)",
        "  one = s64[] constant(1)",
        f"  row = {_shape(it, [1, k])} dynamic-slice(rows, i, zero), dynamic_slice_sizes={{1,{k}}}",
    ]
    unsigned = indices.shape.element_type.is_unsigned_integral
    for j, d in enumerate(start_map):
        body += [
            f"  c{j} = {_shape(it, [1, 1])} slice(row), slice={{[0:1], [{j}:{j + 1}]}}",
            f"  r{j} = {it}[] reshape(c{j})",
        ]
        value = f"r{j}"
        if unsigned:  # clamp while still unsigned: a huge index must not wrap negative
            body += [
                f"  most{j} = {it}[] constant({dims[d]})",
                f"  u{j} = {it}[] minimum(r{j}, most{j})",
            ]
            value = f"u{j}"
        body.append(f"  start{j} = s64[] convert({value})")
        starts[d] = f"start{j}"
    body += [
        f"  piece = {_shape(t, sizes)} dynamic-slice({', '.join(['operand', *starts])}), "
        f"dynamic_slice_sizes={{{','.join(map(str, sizes))}}}",
        f"  row_value = {_shape(t, [1, *window])} reshape(piece)",
        f"  written = {_shape(t, acc)} dynamic-update-slice({', '.join(['acc', 'row_value', 'i', *['zero'] * len(window)])})",
        "  next = s64[] add(i, one)",
        f"  ROOT out = {state} tuple(next, rows, written, operand)",
    ]
    cond = [
        f"  s = {state} parameter(0)",
        "  i = s64[] get-tuple-element(s), index=0",
        f"  n = s64[] constant({n_total})",
        "  ROOT more = pred[] compare(i, n), direction=LT",
    ]
    text = "HloModule gather_expansion\n\n"
    text += "cond {\n" + "\n".join(cond) + "\n}\n\n"
    text += "body {\n" + "\n".join(body) + "\n}\n\n"
    return text + "ENTRY gather {\n" + "\n".join(lines) + "\n}\n"


def expand_gather(gather: HloInstruction) -> HloInstruction | None:
    text = expansion_text(gather)
    return None if text is None else splice(gather, text)


class GatherExpander(ExpanderPass):
    """Expands the gathers ``keep`` does not keep (the backend's fast kernel's)."""

    name = "gather-expander"
    opcodes = frozenset({Op.GATHER})

    def expand(self, instruction: HloInstruction) -> HloInstruction | None:
        return expand_gather(instruction)
