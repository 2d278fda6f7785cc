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
from ..opcode import HloOpcode
from .expansion import ExpanderPass, hlo_shape, index_rows, ints, splice, zero_literal

Op = HloOpcode


def expansion_text(gather: HloInstruction) -> str | None:
    operand, indices = gather.operands
    a = gather.attribute
    if ints(a("operand_batching_dims")) or ints(a("start_indices_batching_dims")):
        return None
    offset_dims = ints(a("offset_dims"))
    collapsed = ints(a("collapsed_slice_dims"))
    start_map = ints(a("start_index_map"))
    sizes = ints(a("slice_sizes"))
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
        f"  operand = {hlo_shape(t, dims)} parameter(0)",
        f"  indices = {hlo_shape(it, list(indices.shape.dimensions))} parameter(1)",
    ]
    if math.prod(out) == 0:
        lines = [*head, f"  zero = {t}[] constant({zero_literal(t)})",
                 f"  ROOT result = {hlo_shape(t, out)} broadcast(zero), dimensions={{}}"]  # fmt: skip
        return "HloModule gather_expansion\n\nENTRY gather {\n" + "\n".join(lines) + "\n}\n"
    lines = [*head, *index_rows(indices, ivd)[0]]
    acc = [n_total, *window]
    state = f"(s64[], {hlo_shape(it, [n_total, k])}, {hlo_shape(t, acc)}, {hlo_shape(t, dims)})"
    lines += [
        "  zero = s64[] constant(0)",
        f"  nothing = {t}[] constant({zero_literal(t)})",
        f"  empty = {hlo_shape(t, acc)} broadcast(nothing), dimensions={{}}",
        f"  init = {state} tuple(zero, rows, empty, operand)",
        f"  loop = {state} while(init), condition=cond, body=body",
        f"  gathered = {hlo_shape(t, acc)} get-tuple-element(loop), index=2",
        f"  spread = {hlo_shape(t, [*batch, *window])} reshape(gathered)",
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
        f"  ROOT result = {hlo_shape(t, out)} transpose(spread), "
        f"dimensions={{{','.join(map(str, order))}}}"
    )
    starts = ["zero"] * len(dims)
    body = [
        f"  s = {state} parameter(0)",
        "  i = s64[] get-tuple-element(s), index=0",
        f"  rows = {hlo_shape(it, [n_total, k])} get-tuple-element(s), index=1",
        f"  acc = {hlo_shape(t, acc)} get-tuple-element(s), index=2",
        f"  operand = {hlo_shape(t, dims)} get-tuple-element(s), index=3",
        "  zero = s64[] constant(0)",
        "  one = s64[] constant(1)",
        f"  row = {hlo_shape(it, [1, k])} dynamic-slice(rows, i, zero), dynamic_slice_sizes={{1,{k}}}",
    ]
    unsigned = indices.shape.element_type.is_unsigned_integral
    for j, d in enumerate(start_map):
        body += [
            f"  c{j} = {hlo_shape(it, [1, 1])} slice(row), slice={{[0:1], [{j}:{j + 1}]}}",
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
        f"  piece = {hlo_shape(t, sizes)} dynamic-slice({', '.join(['operand', *starts])}), "
        f"dynamic_slice_sizes={{{','.join(map(str, sizes))}}}",
        f"  row_value = {hlo_shape(t, [1, *window])} reshape(piece)",
        f"  written = {hlo_shape(t, acc)} dynamic-update-slice({', '.join(['acc', 'row_value', 'i', *['zero'] * len(window)])})",
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
