"""``ConvolutionCanonicalizer``: any float convolution with one or two spatial
dimensions as the form a GEMM-per-tap emitter takes (NHWC x HWIO -> NHWC, unit
strides, no dilation, padding >= 0, one feature group), with movement ops around.

Why: every other form is that one on rearranged data:

* dimension labels: transposes to ``[N, S..., C]`` and ``[K..., I, O]`` and back;
* one spatial dimension: a unit second one;
* window reversal: the kernel reversed;
* window (rhs) dilation: zeros between kernel taps (interior padding of the
  kernel), base (lhs) dilation: zeros between input elements;
* negative padding: a slice of the input; positive padding stays in the window;
* strides: the unit-stride result sliced with the stride (the skipped positions
  are computed and dropped: simple, and cheap for the usual strides of 2);
* feature groups: one convolution per group on its block of input channels and
  output features, concatenated; batch groups likewise on blocks of the batch;
* f16/bf16 (and mixed float types): the interpreter accumulates in f32 (f64 when
  any type is f64) and rounds once, so the operands are converted up and the
  result down around the f32/f64 convolution.

Integer convolutions become, after the same rearrangements, a sum over kernel
taps of integer dots ``[N*H*W, C] x [C, O]`` in the result's width (products
and sums wrap modulo 2^width, so the interpreter's 64-bit accumulation gives the
same bits). Complex convolutions and three spatial dimensions are left alone. The expansion is HLO text, parsed (so every shape is checked) and
copied in place of the instruction.
"""

from __future__ import annotations

import math

from ..hlo.instruction import HloInstruction
from ..opcode import HloOpcode
from ..types import PrimitiveType
from .expansion import ExpanderPass, splice

Op = HloOpcode
P = PrimitiveType
_FLOATS = (P.F16, P.BF16, P.F32, P.F64)
_INTS = (P.S8, P.S16, P.S32, P.S64, P.U8, P.U16, P.U32, P.U64)


class _Text:
    """HLO lines with their shapes, for building the expansion."""

    def __init__(self, et: PrimitiveType) -> None:
        self.et = et
        self.lines: list[str] = []
        self.count = 0

    def add(self, dims: list[int], text: str, et: PrimitiveType | None = None) -> tuple:
        self.count += 1
        name = f"v{self.count}"
        t = (et or self.et).hlo_name
        self.lines.append(f"  {name} = {t}[{','.join(map(str, dims))}] {text}")
        return name, list(dims)


def _native_form(instruction: HloInstruction) -> bool:
    d = instruction.attribute("dim_labels")
    window = instruction.attribute("window")
    dims = list(window.dimensions) if window is not None else []
    x, w = instruction.operands
    et = instruction.shape.element_type
    return (
        et in (P.F32, P.F64)
        and x.shape.element_type == w.shape.element_type == et
        and int(instruction.attribute("feature_group_count", 1) or 1) == 1
        and len(dims) == 2
        and (d.input_batch_dimension, d.input_feature_dimension) == (0, 3)
        and tuple(d.input_spatial_dimensions) == (1, 2)
        and (d.kernel_input_feature_dimension, d.kernel_output_feature_dimension) == (2, 3)
        and tuple(d.kernel_spatial_dimensions) == (0, 1)
        and (d.output_batch_dimension, d.output_feature_dimension) == (0, 3)
        and tuple(d.output_spatial_dimensions) == (1, 2)
        and all(
            wd.stride == 1
            and wd.window_dilation == 1
            and wd.base_dilation == 1
            and not wd.window_reversal
            and wd.padding_low >= 0
            and wd.padding_high >= 0
            for wd in dims
        )
    )


def expansion_text(instruction: HloInstruction) -> str | None:
    x, w = instruction.operands
    out = instruction.shape
    types = (x.shape.element_type, w.shape.element_type, out.element_type)
    floats = all(t in _FLOATS for t in types)
    if not (floats or all(t in _INTS for t in types)) or _native_form(instruction):
        return None
    batch_groups = int(instruction.attribute("batch_group_count", 1) or 1)
    d = instruction.attribute("dim_labels")
    window = instruction.attribute("window")
    wds = list(window.dimensions) if window is not None else []
    spatial = len(d.input_spatial_dimensions)
    if spatial not in (1, 2) or len(wds) != spatial:
        return None
    feature_groups = int(instruction.attribute("feature_group_count", 1) or 1)
    if feature_groups > 1 and batch_groups > 1:
        return None
    groups = max(feature_groups, batch_groups)
    # Integers: products and sums wrap modulo 2^width, so the result's width will do.
    compute = (P.F64 if P.F64 in types else P.F32) if floats else out.element_type
    t = _Text(compute)
    head = [
        f"  x = {x.shape.element_type.hlo_name}[{','.join(map(str, x.shape.dimensions))}] parameter(0)",
        f"  w = {w.shape.element_type.hlo_name}[{','.join(map(str, w.shape.dimensions))}] parameter(1)",
    ]
    if (
        math.prod(out.dimensions) == 0
        or math.prod(x.shape.dimensions) == 0
        or math.prod(w.shape.dimensions) == 0
    ):
        zero = t.add([], "constant(0)", out.element_type)
        root = t.add(
            list(out.dimensions), f"broadcast({zero[0]}), dimensions={{}}", out.element_type
        )
        return _module(head, t, root[0])

    def converted(name: str, dims: list[int], et: PrimitiveType) -> tuple:
        return (name, dims) if et == compute else t.add(dims, f"convert({name})")

    xv = converted("x", list(x.shape.dimensions), x.shape.element_type)
    wv = converted("w", list(w.shape.dimensions), w.shape.element_type)
    x_order = [d.input_batch_dimension, *d.input_spatial_dimensions, d.input_feature_dimension]
    w_order = [*d.kernel_spatial_dimensions, d.kernel_input_feature_dimension,
               d.kernel_output_feature_dimension]  # fmt: skip
    xv = t.add(
        [xv[1][i] for i in x_order],
        f"transpose({xv[0]}), dimensions={{{','.join(map(str, x_order))}}}",
    )
    wv = t.add(
        [wv[1][i] for i in w_order],
        f"transpose({wv[0]}), dimensions={{{','.join(map(str, w_order))}}}",
    )
    if spatial == 1:  # a unit first spatial dimension
        n, s, c = xv[1]
        xv = t.add([n, 1, s, c], f"reshape({xv[0]})")
        k, i, o = wv[1]
        wv = t.add([1, k, i, o], f"reshape({wv[0]})")
        from ..xla_data import WindowDimension

        wds = [WindowDimension(), *wds]
    zero = t.add([], "constant(0)")[0]
    sizes, strides, low_high = [], [], []
    for i, wd in enumerate(wds):
        if wd.window_reversal:
            wv = t.add(wv[1], f"reverse({wv[0]}), dimensions={{{i}}}")
        k = wv[1][i]
        if wd.window_dilation > 1 and k > 1:
            config = ["0_0"] * 4
            config[i] = f"0_0_{wd.window_dilation - 1}"
            dims = list(wv[1])
            dims[i] = (k - 1) * wd.window_dilation + 1
            wv = t.add(dims, f"pad({wv[0]}, {zero}), padding={'x'.join(config)}")
        n = xv[1][1 + i]
        if wd.base_dilation > 1 and n > 1:
            config = ["0_0"] * 4
            config[1 + i] = f"0_0_{wd.base_dilation - 1}"
            dims = list(xv[1])
            dims[1 + i] = (n - 1) * wd.base_dilation + 1
            xv = t.add(dims, f"pad({xv[0]}, {zero}), padding={'x'.join(config)}")
        lo, hi = wd.padding_low, wd.padding_high
        if lo < 0 or hi < 0:
            n = xv[1][1 + i]
            start, stop = max(-lo, 0), n - max(-hi, 0)
            if stop < start:
                return None
            bounds = [f"[0:{m}]" for m in xv[1]]
            bounds[1 + i] = f"[{start}:{stop}]"
            dims = list(xv[1])
            dims[1 + i] = stop - start
            xv = t.add(dims, f"slice({xv[0]}), slice={{{', '.join(bounds)}}}")
        low_high.append((max(lo, 0), max(hi, 0)))
        strides.append(wd.stride)
        sizes.append(wv[1][i])
    n_all = xv[1][0]
    n_b = n_all // batch_groups  # each batch group is a contiguous block of the batch
    c_in, c_g = xv[1][3], wv[1][2]
    o_all = wv[1][3]
    o_g = o_all // groups
    full = [xv[1][1 + i] + low_high[i][0] + low_high[i][1] - sizes[i] + 1 for i in range(2)]
    if any(f <= 0 for f in full) or c_in != c_g * feature_groups or n_all != n_b * batch_groups:
        return None
    window_text = (
        f"size={sizes[0]}x{sizes[1]} pad={low_high[0][0]}_{low_high[0][1]}x"
        f"{low_high[1][0]}_{low_high[1][1]}"
    )
    parts = []
    for g in range(groups):
        xg, wg = xv, wv
        if feature_groups > 1:  # a block of input channels
            xg = t.add([*xv[1][:3], c_g], f"slice({xv[0]}), slice={{[0:{n_all}], [0:{xv[1][1]}], "
                       f"[0:{xv[1][2]}], [{g * c_g}:{(g + 1) * c_g}]}}")  # fmt: skip
        if batch_groups > 1:  # a block of the batch
            xg = t.add([n_b, *xv[1][1:]], f"slice({xv[0]}), slice={{[{g * n_b}:{(g + 1) * n_b}], "
                       f"[0:{xv[1][1]}], [0:{xv[1][2]}], [0:{c_in}]}}")  # fmt: skip
        if groups > 1:  # its block of output features
            wg = t.add([*wv[1][:3], o_g], f"slice({wv[0]}), slice={{[0:{wv[1][0]}], [0:{wv[1][1]}], "
                       f"[0:{c_g}], [{g * o_g}:{(g + 1) * o_g}]}}")  # fmt: skip
        if floats:
            parts.append(t.add([n_b, *full, o_g], f"convolution({xg[0]}, {wg[0]}), "
                               f"window={{{window_text}}}, dim_labels=b01f_01io->b01f"))  # fmt: skip
        else:
            parts.append(_tap_sum(t, xg, wg, low_high, full, zero))
    y = (
        parts[0]
        if groups == 1
        else t.add(
            [n_b, *full, o_all], f"concatenate({', '.join(p[0] for p in parts)}), dimensions={{3}}"
        )
    )
    if any(s > 1 for s in strides):
        dims = [n_b, *(-(-full[i] // strides[i]) for i in range(2)), o_all]
        bounds = f"[0:{n_b}], [0:{full[0]}:{strides[0]}], [0:{full[1]}:{strides[1]}], [0:{o_all}]"
        y = t.add(dims, f"slice({y[0]}), slice={{{bounds}}}")
    if spatial == 1:
        y = t.add([y[1][0], y[1][2], y[1][3]], f"reshape({y[0]})")
    order = [d.output_batch_dimension, *d.output_spatial_dimensions, d.output_feature_dimension]
    perm = [order.index(p) for p in range(len(order))]
    y = t.add(
        [y[1][p] for p in perm], f"transpose({y[0]}), dimensions={{{','.join(map(str, perm))}}}"
    )
    if list(y[1]) != list(out.dimensions):
        return None
    if out.element_type != compute:
        y = t.add(list(out.dimensions), f"convert({y[0]})", out.element_type)
    return _module(head, t, y[0])


def _tap_sum(t: _Text, x: tuple, w: tuple, low_high: list, full: list[int], zero: str) -> tuple:
    """The unit-stride NHWC x HWIO convolution as a sum over kernel taps of dots
    ``[N*H*W, C] x [C, O]`` (integer dots run as native loops)."""
    n, _, _, c = x[1]
    kh, kw, _, o = w[1]
    config = f"0_0x{low_high[0][0]}_{low_high[0][1]}x{low_high[1][0]}_{low_high[1][1]}x0_0"
    padded = t.add(
        [n, x[1][1] + sum(low_high[0]), x[1][2] + sum(low_high[1]), c],
        f"pad({x[0]}, {zero}), padding={config}",
    )
    rows = n * full[0] * full[1]
    total = None
    for i in range(kh):
        for j in range(kw):
            window = t.add(
                [n, full[0], full[1], c],
                f"slice({padded[0]}), slice={{[0:{n}], [{i}:{i + full[0]}], "
                f"[{j}:{j + full[1]}], [0:{c}]}}",
            )
            flat = t.add([rows, c], f"reshape({window[0]})")
            tap = t.add([1, 1, c, o], f"slice({w[0]}), slice={{[{i}:{i + 1}], [{j}:{j + 1}], "
                        f"[0:{c}], [0:{o}]}}")  # fmt: skip
            matrix = t.add([c, o], f"reshape({tap[0]})")
            product = t.add(
                [rows, o],
                f"dot({flat[0]}, {matrix[0]}), lhs_contracting_dims={{1}}, "
                "rhs_contracting_dims={0}",
            )
            total = product if total is None else t.add([rows, o], f"add({total[0]}, {product[0]})")
    return t.add([n, full[0], full[1], o], f"reshape({total[0]})")


def _module(head: list[str], t: _Text, root: str) -> str:
    lines = head + t.lines
    last = lines[-1]
    if not last.startswith(f"  {root} "):
        raise AssertionError("the root is the last instruction")
    lines[-1] = "  ROOT " + last[2:]
    return "HloModule convolution\n\nENTRY conv {\n" + "\n".join(lines) + "\n}\n"


def canonicalize_convolution(instruction: HloInstruction) -> HloInstruction | None:
    text = expansion_text(instruction)
    return None if text is None else splice(instruction, text)


class ConvolutionCanonicalizer(ExpanderPass):
    name = "convolution-canonicalizer"
    opcodes = frozenset({Op.CONVOLUTION})

    def expand(self, instruction: HloInstruction) -> HloInstruction | None:
        return canonicalize_convolution(instruction)
