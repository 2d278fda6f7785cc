"""HLO text syntax of the structured attribute values (windows, shardings, ...).

Each ``parse_*`` reads one value at a :class:`Cursor` and each ``format_*``
writes the canonical text XLA prints, so that text printed by XLA reads back
and prints identically. The registry in :mod:`xlapy.hlo.attributes` ties these
to attribute names.
"""

from __future__ import annotations

from ..errors import InvalidArgumentError
from ..shape import Shape, parse_shape_at
from ..xla_data import (
    AxisRef,
    CollectiveDeviceList,
    ConvolutionDimensionNumbers,
    FrontendAttributes,
    IotaReplicaGroupList,
    Mesh,
    MeshAxesReplicaGroupList,
    OpMetadata,
    OutputOperandAliasing,
    PaddingConfig,
    PaddingConfigDimension,
    ReplicaGroup,
    ResultAccuracy,
    ResultAccuracyMode,
    SourceTarget,
    Statistic,
    StatisticsViz,
    Window,
    WindowDimension,
)
from .attributes_text import (
    Cursor,
    c_escape,
    format_float,
    format_int_list,
    parse_int_list,
    parse_string_or_dict,
    parse_sub_attributes,
    parse_x_separated,
    quote,
    string_or_dict,
)


def checked(cur: Cursor, start: int, build):
    """Run a constructor, turning its InvalidArgumentError into a ParseError at ``start``."""
    try:
        return build()
    except InvalidArgumentError as e:
        raise cur.error(str(e), offset=start) from None


# -- window ------------------------------------------------------------------------

_WINDOW_FIELDS = ("size", "stride", "pad", "lhs_dilate", "rhs_dilate", "rhs_reversal")


def _parse_pad_pair(cur: Cursor) -> tuple[int, int]:
    low = cur.integer("a padding amount")
    cur.expect("_", "'_' between low and high padding (e.g. 1_1)")
    return low, cur.integer("a padding amount")


def parse_window(cur: Cursor) -> Window:
    start = cur.pos
    cur.expect("{", "'{' to start the window (e.g. {size=3x3 stride=2x2})")
    fields: dict[str, list] = {}
    while not cur.eat("}"):
        at = cur.pos
        name = cur.keyword(_WINDOW_FIELDS, f"a window field ({', '.join(_WINDOW_FIELDS)}) or '}}'")
        if name in fields:
            raise cur.error(f"window field {name!r} given twice", offset=at)
        cur.expect("=", f"'=' after {name}")
        item = (
            _parse_pad_pair if name == "pad" else (lambda c: c.nonneg_integer("a positive integer"))
        )
        fields[name] = parse_x_separated(cur, item)
        cur.eat(",")
    if not fields:
        return Window()
    if "size" not in fields:
        raise cur.error("a window needs size=, e.g. {size=3x3}", offset=start)
    n = len(fields["size"])
    for name, values in fields.items():
        if len(values) != n:
            raise cur.error(
                f"window {name} has {len(values)} entries but size has {n}", offset=start
            )
    pads = fields.get("pad", [(0, 0)] * n)
    return checked(
        cur,
        start,
        lambda: Window(
            tuple(
                WindowDimension(
                    size=fields["size"][i],
                    stride=fields.get("stride", [1] * n)[i],
                    padding_low=pads[i][0],
                    padding_high=pads[i][1],
                    base_dilation=fields.get("lhs_dilate", [1] * n)[i],
                    window_dilation=fields.get("rhs_dilate", [1] * n)[i],
                    window_reversal=bool(fields.get("rhs_reversal", [0] * n)[i]),
                )
                for i in range(n)
            )
        ),
    )


def format_window(window: Window) -> str:
    dims = window.dimensions
    if not dims:
        return "{}"
    parts = ["size=" + "x".join(str(d.size) for d in dims)]
    if any(d.stride != 1 for d in dims):
        parts.append("stride=" + "x".join(str(d.stride) for d in dims))
    if any(d.padding_low or d.padding_high for d in dims):
        parts.append("pad=" + "x".join(f"{d.padding_low}_{d.padding_high}" for d in dims))
    if any(d.base_dilation != 1 for d in dims):
        parts.append("lhs_dilate=" + "x".join(str(d.base_dilation) for d in dims))
    if any(d.window_dilation != 1 for d in dims):
        parts.append("rhs_dilate=" + "x".join(str(d.window_dilation) for d in dims))
    if any(d.window_reversal for d in dims):
        parts.append("rhs_reversal=" + "x".join(str(int(d.window_reversal)) for d in dims))
    return "{" + " ".join(parts) + "}"


# -- padding config ---------------------------------------------------------------


def _parse_padding_dimension(cur: Cursor) -> tuple[int, ...]:
    values = [cur.integer("a padding amount (low_high or low_high_interior)")]
    while cur.text.startswith("_", cur.pos) and len(values) < 3:
        cur.pos += 1
        values.append(cur.integer("a padding amount"))
    if len(values) < 2:
        raise cur.fail("'_' and the high padding (e.g. 1_2 or 1_2_0)")
    return tuple(values)


def parse_padding_config(cur: Cursor) -> PaddingConfig:
    start = cur.pos
    if cur.at_end():
        return PaddingConfig()
    triples = parse_x_separated(cur, _parse_padding_dimension)
    return checked(
        cur, start, lambda: PaddingConfig(tuple(PaddingConfigDimension(*t) for t in triples))
    )


def format_padding_config(config: PaddingConfig) -> str:
    """``lo_hi`` per dimension, or ``lo_hi_interior`` everywhere when any interior is not 0.

    XLA's PaddingConfigToString drops the interior padding only when all of it is 0.
    """
    triples = config.as_triples()
    if any(interior for _, _, interior in triples):
        return "x".join(f"{lo}_{hi}_{interior}" for lo, hi, interior in triples)
    return "x".join(f"{lo}_{hi}" for lo, hi, _ in triples)


# -- slices ------------------------------------------------------------------------


def _parse_slice_range(cur: Cursor) -> tuple[int, int, int]:
    cur.expect("[", "'[' to start a slice range such as [0:4:1]")
    start = cur.integer("the slice start")
    cur.expect(":", "':' after the slice start")
    limit = cur.integer("the slice limit")
    stride = 1
    if cur.eat(":"):
        at = cur.pos
        stride = cur.integer("the slice stride")
        if stride < 1:
            raise cur.error(f"slice stride {stride} must be >= 1", offset=at)
    cur.expect("]", "']' to close the slice range")
    return start, limit, stride


def parse_slice(cur: Cursor) -> tuple[tuple[int, int, int], ...]:
    return tuple(cur.delimited(_parse_slice_range, what="slice ranges"))


def format_slice(ranges: tuple[tuple[int, int, int], ...]) -> str:
    """``{[start:limit], ...}``, with ``:stride`` on every range unless all strides are 1.

    XLA's slice printer drops the strides only when every one of them is 1.
    """
    if any(stride != 1 for _, _, stride in ranges):
        return "{" + ", ".join(f"[{a}:{b}:{c}]" for a, b, c in ranges) + "}"
    return "{" + ", ".join(f"[{a}:{b}]" for a, b, _ in ranges) + "}"


# -- convolution dimension labels -------------------------------------------------

_LABEL_CHARS = frozenset("0123456789bfio")


def _read_labels(cur: Cursor) -> tuple[str, int]:
    cur.skip()
    start = cur.pos
    while cur.pos < len(cur.text) and cur.text[cur.pos] in _LABEL_CHARS:
        cur.pos += 1
    if cur.pos == start:
        raise cur.fail("dimension labels such as b01f_01io->b01f")
    return cur.text[start : cur.pos], start


def _decode_labels(cur: Cursor, labels: str, at: int, outer: str, part: str):
    """Positions of the two named dimensions and of spatial dimensions 0, 1, ..."""
    a, b = outer
    spatial = [c for c in labels if c.isdigit()]
    problems = [c for c in (a, b) if labels.count(c) != 1]
    stray = [c for c in labels if not c.isdigit() and c not in outer]
    if problems or stray or sorted(spatial) != [str(i) for i in range(len(spatial))]:
        raise cur.error(
            f"{part} labels {labels!r} must contain '{a}' and '{b}' once each and "
            f"the spatial digits 0..n-1 once each",
            offset=at,
        )
    return (
        labels.index(a),
        labels.index(b),
        tuple(labels.index(str(i)) for i in range(len(spatial))),
    )


def parse_dim_labels(cur: Cursor) -> ConvolutionDimensionNumbers:
    lhs, lhs_at = _read_labels(cur)
    cur.expect("_", "'_' between the input and kernel labels")
    rhs, rhs_at = _read_labels(cur)
    cur.expect("->", "'->' before the output labels")
    out, out_at = _read_labels(cur)
    ib, if_, ispatial = _decode_labels(cur, lhs, lhs_at, "bf", "input")
    ki, ko, kspatial = _decode_labels(cur, rhs, rhs_at, "io", "kernel")
    ob, of, ospatial = _decode_labels(cur, out, out_at, "bf", "output")
    if not len(ispatial) == len(kspatial) == len(ospatial):
        raise cur.error(
            f"input, kernel and output labels name {len(ispatial)}, "
            f"{len(kspatial)} and {len(ospatial)} spatial dimensions; they must "
            "agree",
            offset=lhs_at,
        )
    return ConvolutionDimensionNumbers(ib, if_, ispatial, ki, ko, kspatial, ob, of, ospatial)


def _encode_labels(named: dict[int, str], spatial: tuple[int, ...], part: str) -> str:
    rank = len(named) + len(spatial)
    if len(spatial) > 10:
        raise InvalidArgumentError(
            f"dim_labels: {part} has {len(spatial)} spatial dimensions; "
            "the text form has digits for at most 10"
        )
    chars = ["?"] * rank
    for pos, label in list(named.items()) + [(d, str(i)) for i, d in enumerate(spatial)]:
        if not 0 <= pos < rank or chars[pos] != "?":
            raise InvalidArgumentError(
                f"dim_labels: {part} dimension numbers are not a permutation of 0..{rank - 1}"
            )
        chars[pos] = label
    return "".join(chars)


def format_dim_labels(d: ConvolutionDimensionNumbers) -> str:
    lhs = _encode_labels(
        {d.input_batch_dimension: "b", d.input_feature_dimension: "f"},
        tuple(d.input_spatial_dimensions),
        "input",
    )
    rhs = _encode_labels(
        {d.kernel_input_feature_dimension: "i", d.kernel_output_feature_dimension: "o"},
        tuple(d.kernel_spatial_dimensions),
        "kernel",
    )
    out = _encode_labels(
        {d.output_batch_dimension: "b", d.output_feature_dimension: "f"},
        tuple(d.output_spatial_dimensions),
        "output",
    )
    return f"{lhs}_{rhs}->{out}"


# -- collectives -------------------------------------------------------------------


def parse_iota(cur: Cursor) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """``[dims]<=[reshape]T(perm)`` as shardings and replica groups write iota lists."""
    dims = tuple(cur.delimited(lambda c: c.nonneg_integer(), "[", "]", "iota dimensions"))
    cur.expect("<=", "'<=' after the iota dimensions")
    reshape = tuple(cur.delimited(lambda c: c.nonneg_integer(), "[", "]", "iota reshape"))
    perm: tuple[int, ...] = tuple(range(len(reshape)))
    if cur.peek("T"):
        cur.expect("T")
        perm = tuple(cur.delimited(lambda c: c.nonneg_integer(), "(", ")", "transpose"))
    return dims, reshape, perm


def format_iota(dims, reshape, perm) -> str:
    text = "[" + ",".join(map(str, dims)) + "]<=[" + ",".join(map(str, reshape)) + "]"
    if len(reshape) > 1:
        text += "T(" + ",".join(map(str, perm)) + ")"
    return text


def parse_replica_groups(cur: Cursor) -> CollectiveDeviceList:
    start = cur.skip()
    if cur.peek("maximal_mesh"):
        raise cur.error(
            "replica groups over a maximal_mesh (a single device) are not "
            "supported; use mesh[...] {axes}"
        )
    if cur.peek("mesh"):
        return checked(
            cur,
            start,
            lambda: CollectiveDeviceList(mesh_axes_replica_group_list=_parse_mesh_axes(cur)),
        )
    if cur.peek("["):
        dims, reshape, perm = parse_iota(cur)
        if len(dims) != 2:
            raise cur.error(
                f"iota replica groups need [groups,group_size], got {list(dims)}", offset=start
            )
        return checked(
            cur,
            start,
            lambda: CollectiveDeviceList(
                iota_replica_group_list=IotaReplicaGroupList(dims[0], dims[1], reshape, perm)
            ),
        )
    groups = cur.delimited(
        lambda c: tuple(
            c.delimited(lambda d: d.nonneg_integer("a replica id"), what="replica group")
        ),
        what="replica groups, e.g. {{0,1},{2,3}} or [2,2]<=[4]",
    )
    return checked(
        cur, start, lambda: CollectiveDeviceList(tuple(ReplicaGroup(g) for g in groups))
    )


def format_replica_groups(devices: CollectiveDeviceList) -> str:
    iota = devices.iota_replica_group_list
    if iota is not None:
        return format_iota(
            (iota.num_replica_groups, iota.num_devices_per_group),
            iota.iota_reshape_dims,
            iota.iota_transpose_perm,
        )
    if devices.mesh_axes_replica_group_list is not None:
        return _format_mesh_axes(devices.mesh_axes_replica_group_list)
    return "{" + ",".join(format_int_list(g.replica_ids) for g in devices.replica_groups) + "}"


# mesh['x'=2,'y'=4] {'y','x':(1)2}: XLA's MeshAxesReplicaGroupList. Axis names are quoted
# (or bare identifiers); an axis may also be referred to by its number.


def _parse_axis_name(cur: Cursor) -> str:
    if cur.peek("'") or cur.peek('"'):
        return cur.quoted()[0]
    return cur.identifier("a mesh axis name such as 'x'")


def _parse_mesh(cur: Cursor) -> Mesh:
    start = cur.skip()
    cur.expect("mesh")

    def axis(c: Cursor) -> tuple[str, int]:
        name = _parse_axis_name(c)
        c.expect("=", f"'=' and the size of mesh axis {name!r}")
        return name, c.nonneg_integer("a mesh axis size")

    axes = cur.delimited(axis, "[", "]", "mesh axes, e.g. mesh['x'=2,'y'=4]")
    if cur.peek(",") or cur.at_end():
        # XLA writes an explicit device order as mesh[...], device_ids=(...) {axes}.
        raise cur.error(
            "expected '{' and the grouped mesh axes after the mesh; a mesh with "
            "an explicit device order (device_ids=...) is not supported"
        )
    return checked(cur, start, lambda: Mesh([n for n, _ in axes], [s for _, s in axes]))


def _parse_axis_ref(cur: Cursor, mesh: Mesh) -> AxisRef:
    start = cur.skip()
    if cur.text[start : start + 1].isdigit():
        index = cur.nonneg_integer("a mesh axis")
    else:
        name = _parse_axis_name(cur)
        if name in mesh.axis_names:
            index = mesh.axis_index(name)
        elif name.isdigit():
            index = int(name)
        else:
            raise cur.error(
                f"mesh has no axis {name!r}; its axes are "
                f"{', '.join(repr(n) for n in mesh.axis_names)}",
                offset=start,
            )
    if index >= len(mesh.axis_names):
        raise cur.error(
            f"mesh axis {index} is out of range for a mesh of {len(mesh.axis_names)} axes",
            offset=start,
        )
    if not cur.eat(":"):
        return AxisRef(index)
    cur.expect("(", "'(' to start a sub-axis such as 'x':(2)4")
    pre_size = cur.nonneg_integer("the sub-axis pre-size")
    cur.expect(")", "')' after the sub-axis pre-size")
    size = cur.nonneg_integer("the sub-axis size")
    return checked(cur, start, lambda: AxisRef(index, pre_size, size))


def _parse_mesh_axes(cur: Cursor) -> MeshAxesReplicaGroupList:
    mesh = _parse_mesh(cur)
    axes = cur.delimited(lambda c: _parse_axis_ref(c, mesh), what="grouped mesh axes")
    return MeshAxesReplicaGroupList(mesh, axes)


def _format_mesh_axes(groups: MeshAxesReplicaGroupList) -> str:
    mesh = groups.mesh
    names = [f"'{c_escape(n)}'" for n in mesh.axis_names]
    axes = ",".join(f"{n}={size}" for n, size in zip(names, mesh.axis_sizes, strict=True))
    refs = ",".join(
        names[r.axis] + (f":({r.pre_size}){r.size}" if r.is_sub_axis else "") for r in groups.axes
    )
    return f"mesh[{axes}] {{{refs}}}"


def parse_source_target_pairs(cur: Cursor) -> tuple[SourceTarget, ...]:
    def pair(c: Cursor) -> SourceTarget:
        at = c.pos
        ids = c.delimited(lambda d: d.nonneg_integer("a device id"), what="source-target pair")
        if len(ids) != 2:
            raise c.error(f"a source-target pair has two ids, got {len(ids)}", offset=at)
        return SourceTarget(*ids)

    return tuple(cur.delimited(pair, what="source-target pairs, e.g. {{0,1},{1,0}}"))


def format_source_target_pairs(pairs: tuple[SourceTarget, ...]) -> str:
    return "{" + ",".join(f"{{{p.source},{p.target}}}" for p in pairs) + "}"


# -- shapes and aliasing -----------------------------------------------------------


def parse_shape(cur: Cursor) -> Shape:
    shape, cur.pos = parse_shape_at(cur.text, cur.pos)
    return shape


def parse_shape_list(cur: Cursor) -> tuple[Shape, ...]:
    return tuple(cur.delimited(parse_shape, what="shape list"))


def format_shape_list(shapes: tuple[Shape, ...]) -> str:
    return "{" + ", ".join(s.to_string(print_layout=True) for s in shapes) + "}"


def parse_index_alias(cur: Cursor, what: str) -> tuple[tuple[int, ...], int, tuple[int, ...]]:
    """``{output index}: (number, {index}``, the head every aliasing entry of XLA shares.

    ``what`` names the aliased thing (operand, parameter); the caller reads
    whatever follows the index (a kind) and the closing ')'.
    """
    output_index = parse_int_list(cur)
    cur.expect(":", "':' after the output shape index")
    cur.expect("(", f"'(' to start ({what}, {{shape index}})")
    article = "an" if what[:1] in "aeiou" else "a"
    number = cur.nonneg_integer(f"{article} {what} number")
    cur.expect(",", f"',' after the {what} number")
    return output_index, number, parse_int_list(cur)


def format_index_alias(
    output_index: tuple[int, ...], number: int, index: tuple[int, ...], kind: str | None = None
) -> str:
    extra = f", {kind}" if kind else ""
    return f"{format_int_list(output_index)}: ({number}, {format_int_list(index)}{extra})"


def _parse_alias(cur: Cursor) -> OutputOperandAliasing:
    output_index, operand, operand_index = parse_index_alias(cur, "operand")
    cur.expect(")", "')' to close the aliased operand")
    return OutputOperandAliasing(output_index, operand, operand_index)


def parse_output_to_operand_aliasing(cur: Cursor) -> tuple[OutputOperandAliasing, ...]:
    return tuple(cur.delimited(_parse_alias, what="aliasing list, e.g. {{0}: (0, {})}"))


def format_output_to_operand_aliasing(aliases: tuple[OutputOperandAliasing, ...]) -> str:
    return (
        "{"
        + ", ".join(
            format_index_alias(a.output_shape_index, a.operand_index, a.operand_shape_index)
            for a in aliases
        )
        + "}"
    )


# -- metadata ------------------------------------------------------------------------

_METADATA_STRINGS = ("op_type", "op_name", "source_file", "deduplicated_name", "scheduling_name")
_METADATA_INTS = (
    "source_line",
    "source_end_line",
    "source_column",
    "source_end_column",
    "stack_frame_id",
)
_METADATA_FIELDS = {
    **{n: Cursor.string for n in _METADATA_STRINGS},
    **{n: Cursor.nonneg_integer for n in _METADATA_INTS},
    "profile_type": parse_int_list,
}
_METADATA_ORDER = (
    "op_type",
    "op_name",
    "source_file",
    "source_line",
    "source_end_line",
    "source_column",
    "source_end_column",
    "profile_type",
    "deduplicated_name",
    "scheduling_name",
    "stack_frame_id",
)


def parse_metadata(cur: Cursor) -> OpMetadata:
    start = cur.pos
    fields = parse_sub_attributes(cur, _METADATA_FIELDS, "metadata")
    return checked(cur, start, lambda: OpMetadata(**fields))


def format_metadata(m: OpMetadata) -> str:
    parts = []
    for name in _METADATA_ORDER:
        value = getattr(m, name)
        if not value:
            continue
        if name in _METADATA_STRINGS:
            parts.append(f"{name}={quote(value)}")
        elif name == "profile_type":
            parts.append(f"{name}={format_int_list(int(p) for p in value)}")
        else:
            parts.append(f"{name}={value}")
    return "{" + " ".join(parts) + "}"


# -- frontend attributes, statistics, result accuracy ------------------------------


def parse_frontend_attributes(cur: Cursor) -> FrontendAttributes:
    def entry(c: Cursor) -> tuple[str, str]:
        key = c.identifier("an attribute name")
        c.expect("=", f"'=' after {key}")
        return key, parse_string_or_dict(c)

    return FrontendAttributes(cur.delimited(entry, what="frontend attributes"))


def format_frontend_attributes(attrs: FrontendAttributes) -> str:
    return "{" + ",".join(f"{k}={string_or_dict(v)}" for k, v in attrs.items()) + "}"


def parse_statistics(cur: Cursor) -> StatisticsViz:
    cur.expect("{", "'{' to start the statistics")
    if cur.eat("}"):
        return StatisticsViz()
    cur.skip()
    at = cur.pos
    if cur.identifier("visualizing_index=") != "visualizing_index":
        cur.pos = at
        raise cur.fail("visualizing_index= first")
    cur.expect("=")
    index = cur.nonneg_integer("the statistic index to visualize")
    stats = []
    while cur.eat(","):
        stat = cur.identifier("a statistic name")
        cur.expect("=", f"'=' after {stat}")
        stats.append(Statistic(stat, cur.number("the statistic value")))
    cur.expect("}", "',' or '}' in the statistics")
    return StatisticsViz(index, tuple(stats))


def format_statistics(s: StatisticsViz) -> str:
    if not s.statistics and not s.stat_index_to_visualize:
        return "{}"
    parts = [f"visualizing_index={s.stat_index_to_visualize}"]
    parts += [f"{st.stat_name}={format_float(st.stat_val)}" for st in s.statistics]
    return "{" + ",".join(parts) + "}"


_ACCURACY_MODES = {"default": ResultAccuracyMode.DEFAULT, "highest": ResultAccuracyMode.HIGHEST}


def parse_result_accuracy(cur: Cursor) -> ResultAccuracy:
    start = cur.pos
    fields = parse_sub_attributes(
        cur,
        {
            "mode": lambda c: _ACCURACY_MODES[c.keyword(_ACCURACY_MODES, "default or highest")],
            "tolerance": lambda c: parse_sub_attributes(
                c,
                {
                    "atol": Cursor.number,
                    "rtol": Cursor.number,
                    "ulps": Cursor.nonneg_integer,
                },
                "tolerance",
            ),
        },
        "result_accuracy",
    )
    if len(fields) != 1:
        raise cur.error("result_accuracy takes exactly one of mode= or tolerance=", offset=start)
    if "mode" in fields:
        return ResultAccuracy(fields["mode"])
    return checked(cur, start, lambda: ResultAccuracy.tolerance(**fields["tolerance"]))


def format_result_accuracy(r: ResultAccuracy) -> str:
    if r.mode is not None:
        return f"{{mode={r.mode.name.lower()}}}"
    return (
        f"{{tolerance={{atol={format_float(r.atol)},rtol={format_float(r.rtol)},ulps={r.ulps}}}}}"
    )


def parse_bool_list(cur: Cursor) -> tuple[bool, ...]:
    return tuple(cur.delimited(Cursor.boolean, what="list of true/false"))


def format_bool_list(values: tuple[bool, ...]) -> str:
    return "{" + ",".join("true" if v else "false" for v in values) + "}"


__all__ = [name for name in dir() if name.startswith(("parse_", "format_"))]
