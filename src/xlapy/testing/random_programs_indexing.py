"""Random instances of the indexing, windowed and sorting ops, for ``random_programs``.

Each ``kind`` below adds one instruction (plus the parameters it needs, such as
indices or updates) with random attributes that are valid by construction:
general gathers and scatters (batch dimensions, collapsed and inserted
dimensions, any start index map, out-of-bounds indices), sorts along any
dimension (two operands, so that stability shows), dynamic slices and updates,
reduce-window and select-and-scatter with padding and strides, convolutions of
any dimension labels with strides, padding, dilations and feature groups, and
bitcast-convert between widths. Each returns False when the drawn operand does
not suit it, and the caller draws another kind.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from ..types import PrimitiveType

P = PrimitiveType
Dims = tuple[int, ...]


def _ints(values: Any) -> str:
    return "{" + ",".join(str(int(v)) for v in values) + "}"


def _index_params(b: Any, count: int, components: int) -> str:
    return b.parameter(P.S32, (count, components))


def _subset(draw: Any, items: list[int], min_size: int = 0) -> list[int]:
    chosen = draw(st.lists(st.sampled_from(items), min_size=min_size, unique=True)) if items else []
    return sorted(chosen)


def gather(b: Any, name: str, et: PrimitiveType, dims: Dims) -> bool:
    draw, rank = b.draw, len(dims)
    if rank == 0:
        return False
    components = draw(st.integers(1, rank))
    start_map = list(draw(st.permutations(range(rank))))[:components]
    collapsed = _subset(draw, [d for d in start_map if dims[d] >= 1])
    sizes = [1 if d in collapsed else draw(st.integers(0, dims[d])) for d in range(rank)]
    count = draw(st.integers(0, 4))
    indices = _index_params(b, count, components)
    window = [sizes[d] for d in range(rank) if d not in collapsed]
    out_rank = 1 + len(window)
    offset_dims = sorted(draw(st.lists(st.sampled_from(range(out_rank)), min_size=len(window),
                                       max_size=len(window), unique=True)))  # fmt: skip
    out, it = [], iter(window)
    for k in range(out_rank):
        out.append(next(it) if k in offset_dims else count)
    b.add(
        f"gather({name}, {indices}), offset_dims={_ints(offset_dims)}, "
        f"collapsed_slice_dims={_ints(collapsed)}, start_index_map={_ints(start_map)}, "
        f"index_vector_dim=1, slice_sizes={_ints(sizes)}",
        et,
        tuple(out),
        "gather",
    )
    return True


def scatter(b: Any, name: str, et: PrimitiveType, dims: Dims) -> bool:
    draw, rank = b.draw, len(dims)
    if rank == 0 or et is P.PRED:
        return False
    components = draw(st.integers(1, rank))
    to_operand = list(draw(st.permutations(range(rank))))[:components]
    inserted = _subset(draw, [d for d in to_operand if dims[d] >= 1])
    window = [draw(st.integers(0, dims[d])) for d in range(rank) if d not in inserted]
    count = draw(st.integers(0, 4))
    indices = _index_params(b, count, components)
    update_rank = 1 + len(window)
    window_dims = sorted(draw(st.lists(st.sampled_from(range(update_rank)), min_size=len(window),
                                       max_size=len(window), unique=True)))  # fmt: skip
    update_dims, it = [], iter(window)
    for k in range(update_rank):
        update_dims.append(next(it) if k in window_dims else count)
    updates = b.parameter(et, tuple(update_dims))
    op = draw(st.sampled_from(["add", "maximum", "minimum", "assign"]))
    reducer = b.reducer(et, op) if op != "assign" else b.assigner(et)
    b.add(
        f"scatter({name}, {indices}, {updates}), update_window_dims={_ints(window_dims)}, "
        f"inserted_window_dims={_ints(inserted)}, scatter_dims_to_operand_dims="
        f"{_ints(to_operand)}, index_vector_dim=1, to_apply={reducer}",
        et,
        dims,
        "scatter",
    )
    return True


def sort(b: Any, name: str, et: PrimitiveType, dims: Dims) -> bool:
    """Two operands (the values and their positions), keyed on the values in total order,
    stable: equal keys must keep their positions' order."""
    draw, rank = b.draw, len(dims)
    if rank == 0 or et is P.PRED:
        return False
    dim = draw(st.integers(0, rank - 1))
    positions = b.add(f"iota(), iota_dimension={dim}", P.S32, dims, "iota")
    comparator = b.name("cmp")
    t = et.hlo_name
    kind = ", type=TOTALORDER" if et.is_float else ""
    direction = draw(st.sampled_from(["LT", "GT"]))
    b.computations.append(
        f"{comparator} {{\n  a = {t}[] parameter(0)\n  c = {t}[] parameter(1)\n"
        f"  i = s32[] parameter(2)\n  j = s32[] parameter(3)\n"
        f"  ROOT r = pred[] compare(a, c), direction={direction}{kind}\n}}"
    )
    shape = f"({et.hlo_name}[{','.join(map(str, dims))}], s32[{','.join(map(str, dims))}])"
    sorted_ = b.name("sorted")
    b.lines.append(
        f"  {sorted_} = {shape} sort({name}, {positions}), dimensions={{{dim}}}, "
        f"is_stable=true, to_apply={comparator}"
    )
    b.opcodes.add("sort")
    b.add(f"get-tuple-element({sorted_}), index=0", et, dims, "get-tuple-element")
    b.add(f"get-tuple-element({sorted_}), index=1", P.S32, dims, "get-tuple-element")
    return True


def dynamic_slice(b: Any, name: str, et: PrimitiveType, dims: Dims) -> bool:
    if not dims:
        return False
    sizes = [b.draw(st.integers(0, d)) for d in dims]
    starts = ", ".join(b.parameter(P.S32, ()) for _ in dims)
    b.add(
        f"dynamic-slice({name}, {starts}), dynamic_slice_sizes={_ints(sizes)}",
        et,
        tuple(sizes),
        "dynamic-slice",
    )
    return True


def dynamic_update_slice(b: Any, name: str, et: PrimitiveType, dims: Dims) -> bool:
    if not dims:
        return False
    update = b.parameter(et, tuple(b.draw(st.integers(0, d)) for d in dims))
    starts = ", ".join(b.parameter(P.S32, ()) for _ in dims)
    b.add(f"dynamic-update-slice({name}, {update}, {starts})", et, dims, "dynamic-update-slice")
    return True


def _window(draw: Any, dims: Dims) -> tuple[str, Dims] | None:
    parts = {"size": [], "stride": [], "pad": [], "lhs_dilate": []}
    out = []
    for d in dims:
        size, stride = draw(st.integers(1, 3)), draw(st.integers(1, 2))
        low, high, dilate = draw(st.integers(0, 1)), draw(st.integers(0, 1)), draw(st.integers(1, 2))
        span = (d - 1) * dilate + 1 if d else 0
        padded = span + low + high
        if padded < size:
            return None
        parts["size"].append(str(size))
        parts["stride"].append(str(stride))
        parts["pad"].append(f"{low}_{high}")
        parts["lhs_dilate"].append(str(dilate))
        out.append((padded - size) // stride + 1)
    text = " ".join(f"{k}={'x'.join(v)}" for k, v in parts.items())
    return text, tuple(out)


def reduce_window(b: Any, name: str, et: PrimitiveType, dims: Dims) -> bool:
    if not dims or et is P.PRED or et in (P.F16, P.BF16):
        return False
    window = _window(b.draw, dims)
    if window is None:
        return False
    text, out = window
    op = b.draw(st.sampled_from(["add", "maximum", "minimum"]))
    init = b.constant(et, 0)
    reducer = b.reducer(et, op)
    b.add(f"reduce-window({name}, {init}), window={{{text}}}, to_apply={reducer}", et, out,
          "reduce-window")  # fmt: skip
    return True


def select_and_scatter(b: Any, name: str, et: PrimitiveType, dims: Dims) -> bool:
    if not dims or not (et.is_float or et.is_integral) or et in (P.F16, P.BF16):
        return False
    draw = b.draw
    sizes = [draw(st.integers(1, 3)) for _ in dims]
    strides = [draw(st.integers(1, 2)) for _ in dims]
    pads = [(draw(st.integers(0, 1)), draw(st.integers(0, 1))) for _ in dims]
    out = []
    for d, s, t, (lo, hi) in zip(dims, sizes, strides, pads, strict=True):
        if d + lo + hi < s:
            return False
        out.append((d + lo + hi - s) // t + 1)
    source = b.parameter(et, tuple(out))
    init = b.constant(et, 0)
    direction = draw(st.sampled_from(["GE", "GT", "LE"]))
    select = b.name("select")
    t = et.hlo_name
    b.computations.append(
        f"{select} {{\n  a = {t}[] parameter(0)\n  c = {t}[] parameter(1)\n"
        f"  ROOT r = pred[] compare(a, c), direction={direction}\n}}"
    )
    reducer = b.reducer(et, "add")
    window = (
        f"size={'x'.join(map(str, sizes))} stride={'x'.join(map(str, strides))} "
        f"pad={'x'.join(f'{lo}_{hi}' for lo, hi in pads)}"
    )
    b.add(
        f"select-and-scatter({name}, {source}, {init}), window={{{window}}}, select={select}, "
        f"scatter={reducer}",
        et,
        dims,
        "select-and-scatter",
    )
    return True


def convolution(b: Any, name: str, et: PrimitiveType, dims: Dims) -> bool:
    """A 1-D or 2-D convolution with random dimension labels, strides, padding, dilations
    and feature groups; the operands are new parameters (the pool rarely has their shapes)."""
    if et not in (P.F32, P.F64):
        return False
    draw = b.draw
    spatial = draw(st.integers(1, 2))
    groups = draw(st.integers(1, 2))
    batch, per_group_in, per_group_out = (draw(st.integers(1, 2)) for _ in range(3))
    features_in, features_out = per_group_in * groups, per_group_out * groups
    in_spatial = [draw(st.integers(1, 5)) for _ in range(spatial)]
    kernel = [draw(st.integers(1, 3)) for _ in range(spatial)]
    stride = [draw(st.integers(1, 2)) for _ in range(spatial)]
    lhs_dilation = [draw(st.integers(1, 2)) for _ in range(spatial)]
    rhs_dilation = [draw(st.integers(1, 2)) for _ in range(spatial)]
    pads = [(draw(st.integers(-1, 2)), draw(st.integers(-1, 2))) for _ in range(spatial)]
    out_spatial = []
    for n, k, s, ld, rd, (lo, hi) in zip(in_spatial, kernel, stride, lhs_dilation, rhs_dilation,
                                         pads, strict=True):  # fmt: skip
        padded = (n - 1) * ld + 1 + lo + hi
        span = (k - 1) * rd + 1
        if padded < span:
            return False
        out_spatial.append((padded - span) // s + 1)
    digits = "0123"[:spatial]
    lhs_labels = list(draw(st.permutations(["b", "f", *digits])))
    rhs_labels = list(draw(st.permutations(["i", "o", *digits])))
    out_labels = list(draw(st.permutations(["b", "f", *digits])))

    def shape_of(labels: list[str], sizes: dict[str, int]) -> Dims:
        return tuple(sizes[c] for c in labels)

    spatial_sizes = {str(k): v for k, v in enumerate(in_spatial)}
    lhs = b.parameter(et, shape_of(lhs_labels, {"b": batch, "f": features_in, **spatial_sizes}))
    kernel_sizes = {str(k): v for k, v in enumerate(kernel)}
    rhs = b.parameter(
        et, shape_of(rhs_labels, {"i": per_group_in, "o": features_out, **kernel_sizes})
    )
    out_sizes = {str(k): v for k, v in enumerate(out_spatial)}
    out = shape_of(out_labels, {"b": batch, "f": features_out, **out_sizes})
    window = (
        f"size={'x'.join(map(str, kernel))} stride={'x'.join(map(str, stride))} "
        f"pad={'x'.join(f'{lo}_{hi}' for lo, hi in pads)} "
        f"lhs_dilate={'x'.join(map(str, lhs_dilation))} "
        f"rhs_dilate={'x'.join(map(str, rhs_dilation))}"
    )
    labels = f"{''.join(lhs_labels)}_{''.join(rhs_labels)}->{''.join(out_labels)}"
    b.add(
        f"convolution({lhs}, {rhs}), window={{{window}}}, dim_labels={labels}, "
        f"feature_group_count={groups}",
        et,
        out,
        "convolution",
    )
    del name, dims
    return True


def bitcast_convert(b: Any, name: str, et: PrimitiveType, dims: Dims) -> bool:
    """Floats only from parameters: the bits of a NaN an op produces (its sign and
    payload) are the implementation's choice, and bitcast-convert would expose them."""
    if et is P.PRED or (et.is_float and not name.startswith("p")):
        return False
    targets = [t for t in (P.S8, P.U8, P.S16, P.F16, P.BF16, P.S32, P.U32, P.F32, P.S64, P.F64)
               if t.bit_width <= et.bit_width or (dims and dims[-1] * et.bit_width == t.bit_width)]  # fmt: skip
    if not targets:
        return False
    target = b.draw(st.sampled_from(targets))
    if target.bit_width == et.bit_width:
        out = dims
    elif target.bit_width < et.bit_width:
        out = (*dims, et.bit_width // target.bit_width)
    else:
        out = dims[:-1]
    b.add(f"bitcast-convert({name})", target, out, "bitcast-convert")
    return True


def row_normalize(b: Any, name: str, et: PrimitiveType, dims: Dims) -> bool:
    """``x op broadcast(reduce(x) over the trailing dimensions)``, twice, as softmax and
    layer norm do: the chains the CPU backend runs row block by row block."""
    if len(dims) < 2 or et is P.PRED or et in (P.F16, P.BF16):
        return False
    value = name
    for _ in range(b.draw(st.integers(1, 2))):
        trailing = list(range(1, len(dims)))
        op = b.draw(st.sampled_from(["maximum", "add"] if et.is_float else ["maximum", "minimum"]))
        init = b.constant(et, 0)
        reduced = b.add(
            f"reduce({value}, {init}), dimensions={_ints(trailing)}, to_apply={b.reducer(et, op)}",
            et,
            dims[:1],
            "reduce",
        )
        spread = b.add(f"broadcast({reduced}), dimensions={{0}}", et, dims, "broadcast")
        combine = b.draw(st.sampled_from(["subtract", "maximum", "add"]))
        value = b.add(f"{combine}({value}, {spread})", et, dims, combine)
    return True


KINDS: dict[str, Callable[[Any, str, PrimitiveType, Dims], bool]] = {
    "gather": gather,
    "scatter": scatter,
    "sort": sort,
    "dynamic_slice": dynamic_slice,
    "dynamic_update_slice": dynamic_update_slice,
    "reduce_window": reduce_window,
    "select_and_scatter": select_and_scatter,
    "convolution": convolution,
    "bitcast_convert": bitcast_convert,
    "row_normalize": row_normalize,
}
