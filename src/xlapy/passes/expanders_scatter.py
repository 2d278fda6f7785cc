"""``ScatterExpander``: a scatter the backend has no kernel for, as a loop over its
scatter indices (as XLA's ScatterExpander does).

Why: a scatter applies, index after index in the spec's order, the update
computation to a window of the operand and that index's window of updates.
Written as a while loop whose body dynamic-slices the window, combines it with
the updates through ``map`` of the update computation (inlined into elementwise
ops later) and dynamic-update-slices it back, it runs natively and in the same
order as the interpreter, so repeated indices give its result. A window that
does not fit the operand is skipped whole: the body writes back what it read
(dynamic slices clamp the same way on both sides), so such an index changes
nothing, as the spec says.

The indices are first arranged as ``[N, K]`` (index vector last) and the updates
as ``[N, window...]`` (scatter dimensions first, flattened). Scatters with
several operands or batching dimensions are left to the backend's kernels.
"""

from __future__ import annotations

import math

from ..hlo.instruction import HloInstruction
from ..opcode import HloOpcode
from .expansion import ExpanderPass, hlo_shape, index_rows, ints, splice

Op = HloOpcode


def expansion_text(scatter: HloInstruction) -> str | None:
    if scatter.operand_count != 3 or not scatter.shape.is_array:
        return None
    operand, indices, updates = scatter.operands
    a = scatter.attribute
    if ints(a("input_batching_dims")) or ints(a("scatter_indices_batching_dims")):
        return None
    window_dims = ints(a("update_window_dims"))
    inserted = ints(a("inserted_window_dims"))
    to_operand = ints(a("scatter_dims_to_operand_dims"))
    ivd = int(a("index_vector_dim"))
    t = operand.shape.element_type.hlo_name
    it = indices.shape.element_type.hlo_name
    dims = list(operand.shape.dimensions)
    rank = len(dims)
    idx_dims = list(indices.shape.dimensions)
    if ivd == len(idx_dims):
        idx_dims = [*idx_dims, 1]
    k = idx_dims[ivd]
    batch = [n for d, n in enumerate(idx_dims) if d != ivd]
    n_total = math.prod(batch)
    upd_dims = list(updates.shape.dimensions)
    scatter_dims = [d for d in range(len(upd_dims)) if d not in window_dims]
    window = [upd_dims[d] for d in window_dims]
    mapped = [d for d in range(rank) if d not in inserted]
    if len(mapped) != len(window) or k != len(to_operand):
        return None
    full_window = [1] * rank
    for j, d in enumerate(mapped):
        full_window[d] = window[j]
    head = [
        f"  operand = {hlo_shape(t, dims)} parameter(0)",
        f"  indices = {hlo_shape(it, list(indices.shape.dimensions))} parameter(1)",
        f"  updates = {hlo_shape(t, upd_dims)} parameter(2)",
    ]
    if n_total == 0 or any(w > n for w, n in zip(full_window, dims, strict=True)):
        # No index, or no window fits the operand (every index skipped): the operand.
        identity = [*head, f"  ROOT result = {hlo_shape(t, dims)} copy(operand)"]
        return "HloModule scatter_expansion\n\nENTRY scatter {\n" + "\n".join(identity) + "\n}\n"
    lines = [*head, *index_rows(indices, ivd)[0]]
    uperm = scatter_dims + window_dims
    lines += [
        f"  uorder = {hlo_shape(t, [upd_dims[d] for d in uperm])} transpose(updates), "
        f"dimensions={{{','.join(map(str, uperm))}}}",
        f"  ups = {hlo_shape(t, [n_total, *window])} reshape(uorder)",
        "  zero = s64[] constant(0)",
        f"  init = (s64[], {hlo_shape(t, dims)}, {hlo_shape(it, [n_total, k])}, "
        f"{hlo_shape(t, [n_total, *window])}) tuple(zero, operand, rows, ups)",
        f"  loop = (s64[], {hlo_shape(t, dims)}, {hlo_shape(it, [n_total, k])}, "
        f"{hlo_shape(t, [n_total, *window])}) while(init), condition=cond, body=body",
        f"  ROOT result = {hlo_shape(t, dims)} get-tuple-element(loop), index=1",
    ]
    state = f"(s64[], {hlo_shape(t, dims)}, {hlo_shape(it, [n_total, k])}, {hlo_shape(t, [n_total, *window])})"
    cond = [
        f"  s = {state} parameter(0)",
        "  i = s64[] get-tuple-element(s), index=0",
        f"  n = s64[] constant({n_total})",
        "  ROOT more = pred[] compare(i, n), direction=LT",
    ]
    body = [
        f"  s = {state} parameter(0)",
        "  i = s64[] get-tuple-element(s), index=0",
        f"  x = {hlo_shape(t, dims)} get-tuple-element(s), index=1",
        f"  rows = {hlo_shape(it, [n_total, k])} get-tuple-element(s), index=2",
        f"  ups = {hlo_shape(t, [n_total, *window])} get-tuple-element(s), index=3",
        "  zero = s64[] constant(0)",
        "  one = s64[] constant(1)",
        f"  row = {hlo_shape(it, [1, k])} dynamic-slice(rows, i, zero), dynamic_slice_sizes={{1,{k}}}",
    ]
    starts = ["zero"] * rank
    checks = []
    for j, d in enumerate(to_operand):
        body += [
            f"  c{j} = {hlo_shape(it, [1, 1])} slice(row), slice={{[0:1], [{j}:{j + 1}]}}",
            f"  r{j} = {it}[] reshape(c{j})",
            f"  start{j} = s64[] convert(r{j})",
            f"  limit{j} = s64[] constant({dims[d] - full_window[d]})",
            f"  low{j} = pred[] compare(start{j}, zero), direction=GE",
            f"  high{j} = pred[] compare(start{j}, limit{j}), direction=LE",
            f"  ok{j} = pred[] and(low{j}, high{j})",
        ]
        starts[d] = f"start{j}"
        checks.append(f"ok{j}")
    fits = checks[0]
    for j, check in enumerate(checks[1:]):
        body.append(f"  fits{j} = pred[] and({fits}, {check})")
        fits = f"fits{j}"
    body += [
        f"  current = {hlo_shape(t, full_window)} dynamic-slice({', '.join(['x', *starts])}), "
        f"dynamic_slice_sizes={{{','.join(map(str, full_window))}}}",
        f"  piece = {hlo_shape(t, [1, *window])} dynamic-slice({', '.join(['ups', 'i', *['zero'] * len(window)])}), "
        f"dynamic_slice_sizes={{1{''.join(',' + str(w) for w in window)}}}",
        f"  update = {hlo_shape(t, full_window)} reshape(piece)",
        f"  combined = {hlo_shape(t, full_window)} map(current, update), dimensions={{{','.join(map(str, range(rank)))}}}, to_apply=combine",
        f"  keep = pred[{','.join(map(str, full_window))}] broadcast({fits}), dimensions={{}}",
        f"  chosen = {hlo_shape(t, full_window)} select(keep, combined, current)",
        f"  written = {hlo_shape(t, dims)} dynamic-update-slice({', '.join(['x', 'chosen', *starts])})",
        "  next = s64[] add(i, one)",
        f"  ROOT out = {state} tuple(next, written, rows, ups)",
    ]
    combine = [
        f"  a = {t}[] parameter(0)",
        f"  b = {t}[] parameter(1)",
        f"  ROOT r = {t}[] add(a, b)",
    ]
    computations = [("combine", combine), ("cond", cond), ("body", body)]
    text = "HloModule scatter_expansion\n\n"
    for name, body_lines in computations:
        text += f"{name} {{\n" + "\n".join(body_lines) + "\n}\n\n"
    return text + "ENTRY scatter {\n" + "\n".join(lines) + "\n}\n"


def expand_scatter(scatter: HloInstruction) -> HloInstruction | None:
    text = expansion_text(scatter)
    if text is None:
        return None
    if scatter.operand(0).shape.element_type.is_pred:
        text = text.replace("ROOT r = pred[] add(a, b)", "ROOT r = pred[] or(a, b)")
    return splice(scatter, text, {"combine": scatter.to_apply})


class ScatterExpander(ExpanderPass):
    """Expands the scatters ``keep`` does not keep (the backend's fast kernel's)."""

    name = "scatter-expander"
    opcodes = frozenset({Op.SCATTER})

    def expand(self, instruction: HloInstruction) -> HloInstruction | None:
        return expand_scatter(instruction)
