"""HLO attribute value syntax: round trips on XLA-printed text, typed values, errors.

CORPUS holds (opcode, attribute, value) triples copied from HLO text that XLA
itself printed (jax 0.10.2: ``compiler_ir("hlo").as_hlo_text()``, optimized
``compile().as_text()``, and hand-written modules re-printed by XLA's own
parser and printer), so ``format(parse(value)) == value`` checks canonical text.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from xlapy.errors import InvalidArgumentError, ParseError
from xlapy.hlo.attributes import (
    ATTRIBUTE_SYNTAX,
    OPCODE_ATTRIBUTE_SYNTAX,
    REFERENCE_ATTRIBUTES,
    ConvolutionKind,
    default_value,
    format_attribute,
    is_omitted_default,
    parse_attribute,
    syntax_for,
)
from xlapy.hlo.attributes_module import (
    COMPUTATION_ATTRIBUTE_SYNTAX,
    module_syntax_for,
    parse_module_attribute,
)
from xlapy.hlo.attributes_text import c_escape, c_unescape
from xlapy.hlo.module import AliasEntry, AliasKind, BufferDonor, InputOutputAlias
from xlapy.opcode import HloOpcode
from xlapy.shape import ProgramShape, Shape
from xlapy.types import PrimitiveType
from xlapy.xla_data import (
    CollectiveDeviceList,
    CollectiveOpGroupMode,
    ComparisonType,
    ConvolutionDimensionNumbers,
    CustomCallApiVersion,
    FrontendAttributes,
    FusionKind,
    IotaReplicaGroupList,
    OpMetadata,
    OpSharding,
    OpShardingType,
    OutputOperandAliasing,
    PaddingConfig,
    Precision,
    PrecisionAlgorithm,
    RandomAlgorithm,
    ResultAccuracy,
    ShardGroupType,
    SourceTarget,
    Transpose,
    Window,
    WindowDimension,
)

CORPUS: list[tuple[str, str, str]] = [
    ("dot", "algorithm", "dot_bf16_bf16_f32"),
    ("rng-bit-generator", "algorithm", "rng_default"),
    ("rng-bit-generator", "algorithm", "rng_philox"),
    ("rng-bit-generator", "algorithm", "rng_three_fry"),
    ("custom-call", "api_version", "API_VERSION_STATUS_RETURNING"),
    ("custom-call", "api_version", "API_VERSION_TYPED_FFI"),
    ("async-start", "async_execution_thread", '"t1"'),
    ("add", "backend_config", '"abc\\"def"'),
    ("custom-call", "backend_config", '"bc"'),
    ("add", "backend_config", '{"a":{"b":[1,2]}}'),
    ("while", "backend_config", '{"known_trip_count":{"n":"3"}}'),
    ("convolution", "batch_group_count", "2"),
    ("send", "channel_id", "5"),
    ("recv", "channel_id", "6"),
    ("gather", "collapsed_slice_dims", "{0}"),
    ("gather", "collapsed_slice_dims", "{1}"),
    ("all-reduce", "constrain_layout", "true"),
    ("convolution", "convolution_kind", "dgrad"),
    ("copy-start", "cross_program_prefetch_index", "0"),
    ("custom-call", "custom_call_has_side_effect", "true"),
    ("custom-call", "custom_call_target", '"foo"'),
    ("custom-call", "custom_call_target", '"x"'),
    ("rng-get-and-update-state", "delta", "4"),
    ("convolution", "dim_labels", "b012f_012io->b012f"),
    ("convolution", "dim_labels", "b01f_01io->b01f"),
    ("convolution", "dim_labels", "b0f_0io->b0f"),
    ("convolution", "dim_labels", "bf_io->bf"),
    ("map", "dimensions", "{0,1}"),
    ("sort", "dimensions", "{0}"),
    ("get-dimension-size", "dimensions", "{1}"),
    ("compare", "direction", "EQ"),
    ("compare", "direction", "GE"),
    ("compare", "direction", "GT"),
    ("compare", "direction", "LT"),
    ("compare", "direction", "NE"),
    ("rng", "distribution", "rng_normal"),
    ("rng", "distribution", "rng_uniform"),
    ("domain", "domain", '{kind="sharding", entry={maximal device=0}, exit={replicated}}'),
    ("dynamic-slice", "dynamic_slice_sizes", "{2,2}"),
    ("batch-norm-inference", "epsilon", "0.001"),
    ("batch-norm-training", "epsilon", "1"),
    ("reduce-precision", "exponent_bits", "5"),
    ("convolution", "feature_group_count", "3"),
    ("batch-norm-inference", "feature_index", "1"),
    ("fft", "fft_length", "{4,8}"),
    ("fft", "fft_type", "RFFT"),
    ("add", "frontend_attributes", '{_xla_a="b",k2="",x-y.z="z"}'),
    ("send", "frontend_attributes", "{_xla_send_recv_source_target_pairs={{0,1}}}"),
    (
        "call",
        "frontend_attributes",
        '{composite.attributes={n = 1 : i32},composite.name="foo.bar",composite.version="1"}',
    ),  # noqa: E501
    ("get-tuple-element", "index", "0"),
    ("get-tuple-element", "index", "1"),
    ("gather", "index_vector_dim", "1"),
    ("gather", "index_vector_dim", "2"),
    ("gather", "indices_are_sorted", "true"),
    ("infeed", "infeed_config", '"cfg\\tx"'),
    ("reshape", "inferred_dimension", "0"),
    ("scatter", "input_batching_dims", "{0}"),
    ("scatter", "inserted_window_dims", "{0}"),
    ("scatter", "inserted_window_dims", "{1}"),
    ("iota", "iota_dimension", "0"),
    ("iota", "iota_dimension", "1"),
    ("scan", "is_associative", "false"),
    ("scan", "is_associative", "true"),
    ("call", "is_composite", "true"),
    ("send", "is_host_transfer", "true"),
    ("scan", "is_reverse", "true"),
    ("sort", "is_stable", "true"),
    ("topk", "k", "2"),
    ("topk", "k", "3"),
    ("fusion", "kind", "kCustom"),
    ("fusion", "kind", "kInput"),
    ("fusion", "kind", "kLoop"),
    ("fusion", "kind", "kOutput"),
    ("topk", "largest", "false"),
    ("topk", "largest", "true"),
    ("triangular-solve", "left_side", "true"),
    ("dot", "lhs_batch_dims", "{0}"),
    ("dot", "lhs_contracting_dims", "{1}"),
    ("dot", "lhs_contracting_dims", "{2}"),
    ("ragged-dot", "lhs_ragged_dims", "{1}"),
    ("triangular-solve", "lower", "true"),
    ("reduce-precision", "mantissa_bits", "10"),
    ("negate", "metadata", '{op_name="it\\\'s \\303\\251 \\001 A ? tab\\t"}'),
    (
        "all-reduce",
        "metadata",
        '{op_type="Add" op_name="jit(f)/add" source_file="a.py" source_line=3 source_end_line=4 source_column=2 source_end_column=9 deduplicated_name="x" scheduling_name="y"}',
    ),  # noqa: E501
    (
        "parameter",
        "metadata",
        '{op_type="Add" op_name="x" source_file="a\\"b\\n.py" source_line=3 source_end_line=7 source_column=1 source_end_column=5 deduplicated_name="d" scheduling_name="s"}',
    ),  # noqa: E501
    ("scan", "num_carries", "1"),
    ("gather", "offset_dims", "{1}"),
    ("gather", "offset_dims", "{2}"),
    ("gather", "operand_batching_dims", "{0}"),
    ("custom-call", "operand_layout_constraints", "{f32[4,4]{0,1}, f32[4,4]{1,0}}"),
    ("custom-call", "operand_layout_constraints", "{f64[3,3]{0,1}, f64[3,3]{0,1}}"),
    ("custom-call", "operand_layout_constraints", "{f64[3,3]{0,1}, f64[3]{0}}"),
    ("custom-call", "operand_layout_constraints", "{f64[3,3]{0,1}}"),
    ("ragged-dot", "operand_precision", "{highest,default}"),
    ("dot", "operand_precision", "{highest,highest}"),
    ("add", "origin", '{{"q"}}'),
    ("outfeed", "outfeed_config", '"oc"'),
    ("outfeed", "outfeed_shape", "f32[4,4]{0,1}"),
    ("custom-call", "output_to_operand_aliasing", "{{0}: (0, {}), {1}: (1, {})}"),
    ("custom-call", "output_to_operand_aliasing", "{{0}: (0, {})}"),
    ("fusion", "output_to_operand_aliasing", "{{}: (0, {})}"),
    ("custom-call", "output_to_operand_aliasing", "{{}: (1, {})}"),
    ("pad", "padding", "1_2_1x0_-1_0"),
    ("custom-call", "padding_type", "PADDING_SAME"),
    ("parameter", "parameter_replication", "{false,true}"),
    ("parameter", "parameter_replication", "{true}"),
    ("all-reduce", "replica_groups", "[2,2]<=[2,2]T(1,0)"),
    ("all-reduce", "replica_groups", "[2,2]<=[4]"),
    ("all-reduce", "replica_groups", "{{0,1},{2,3}}"),
    ("all-gather-start", "replica_groups", "{{0,1}}"),
    ("all-reduce-start", "replica_groups", "{{0},{1}}"),
    ("all-gather", "replica_groups", "{}"),
    ("exponential", "result_accuracy", "{mode=highest}"),
    ("exponential", "result_accuracy", "{tolerance={atol=0.001,rtol=0.5,ulps=2}}"),
    ("dot", "rhs_batch_dims", "{0}"),
    ("dot", "rhs_contracting_dims", "{0}"),
    ("dot", "rhs_contracting_dims", "{1}"),
    ("ragged-dot", "rhs_group_dims", "{0}"),
    ("scatter", "scatter_dims_to_operand_dims", "{0}"),
    ("scatter", "scatter_dims_to_operand_dims", "{1}"),
    ("scatter", "scatter_indices_batching_dims", "{0}"),
    ("custom-call", "schedule", "SCHEDULE_LATEST"),
    ("all-reduce", "sharding", "{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}"),
    ("negate", "sharding", "{devices=[2,2,2]<=[2,4]T(1,0) last_tile_dims={unreduced}}"),
    ("all-reduce", "sharding", "{devices=[2,2,2]<=[8] last_tile_dims={manual, replicated}}"),
    ("all-reduce", "sharding", "{devices=[2,2]<=[2,2]T(1,0)}"),
    (
        "negate",
        "sharding",
        '{devices=[2,2]<=[4] shard_as 1 metadata={{op_name="a"}, {op_name="b"}}}',
    ),  # noqa: E501
    ("all-reduce", "sharding", "{devices=[2,2]<=[4]}"),
    ("negate", "sharding", "{devices=[4,1]3,2,1,0 shard_like 2}"),
    ("negate", "sharding", "{manual}"),
    ("negate", "sharding", "{maximal device=1}"),
    ("negate", "sharding", '{replicated metadata={op_name="r" source_file="f.py" source_line=2}}'),
    ("parameter", "sharding", "{replicated}"),
    ("negate", "sharding", "{unknown}"),
    ("negate", "sharding", "{unreduced}"),
    ("tuple", "sharding", '{{replicated}, {maximal device=0 metadata={op_name="m"}}}'),
    ("slice", "slice", "{[1:3:1], [0:8:2]}"),
    ("gather", "slice_sizes", "{1,1,4}"),
    ("gather", "slice_sizes", "{1,4}"),
    ("gather", "slice_sizes", "{1,8}"),
    ("collective-permute", "slice_sizes", "{{2,2},{2,2}}"),
    ("collective-permute", "source_target_pairs", "{{0,1},{1,0}}"),
    ("collective-permute-start", "source_target_pairs", "{{0,1},{1,2},{2,0}}"),
    ("gather", "start_index_map", "{0}"),
    ("gather", "start_index_map", "{1}"),
    ("gather", "start_indices_batching_dims", "{0}"),
    ("add", "statistics", "{visualizing_index=1,stat-0=40,stat-1=20}"),
    ("triangular-solve", "transpose_a", "ADJOINT"),
    ("triangular-solve", "transpose_a", "NO_TRANSPOSE"),
    ("triangular-solve", "transpose_a", "TRANSPOSE"),
    ("compare", "type", "TOTALORDER"),
    ("scatter", "unique_indices", "true"),
    ("triangular-solve", "unit_diagonal", "true"),
    ("scatter", "update_window_dims", "{1}"),
    ("scatter", "update_window_dims", "{2}"),
    ("all-gather-start", "use_global_device_ids", "true"),
    ("reduce-window", "window", "{size=2x3 stride=1x2 pad=0_1x1_1 lhs_dilate=2x1 rhs_dilate=1x2}"),
    ("convolution", "window", "{size=3x3 stride=2x2 pad=1_1x1_1 rhs_dilate=2x1}"),
    ("convolution", "window", "{size=3x3x3}"),
    ("convolution", "window", "{size=3}"),
]

# Also printed by XLA, in modules outside the generated corpus above.
CORPUS += [
    ("convolution", "window", "{size=3x3 rhs_reversal=1x0}"),
    ("convolution", "window", "{size=3x3 pad=-1_2x0_0}"),
    ("convolution", "operand_precision", "{high,default}"),
    ("dot", "algorithm", "dot_any_f8_any_f8_f32_fast_accum"),
    ("dot", "algorithm", "dot_tf32_tf32_f32_x3"),
    ("convolution", "dim_labels", "f01b_i01o->f01b"),
    ("pad", "padding", "1_1_0x2_1_1"),
    ("slice", "slice", "{[0:2:1], [1:4:2]}"),
    # jax 0.10.2: lax.slice with unit strides, lax.pad / jnp.pad without interior padding.
    ("slice", "slice", "{[0:2], [1:5]}"),
    ("slice", "slice", "{[0:6:2], [1:5:1]}"),
    ("pad", "padding", "1_2x0_3"),
    ("pad", "padding", "-1_2x0_-3"),
    ("add", "frontend_attributes", '{a={x},b="[1,2]",c={y}}'),
    ("custom-call", "backend_config", "{diag = 78 : ui8, side = 76 : ui8}"),
    ("reduce-scatter", "replica_groups", "{{0,1}}"),
    # Newer XLA's MeshAxesReplicaGroupList (tests/data/hlo_corpus/sharded_jit.opt.hlo).
    ("all-gather", "replica_groups", "mesh['axis_0'=4,'axis_1'=1] {'axis_0'}"),
    ("all-reduce", "replica_groups", "mesh['x'=8] {'x'}"),
    ("all-reduce", "replica_groups", "mesh['a'=2,'b'=4] {'b','a'}"),
    ("all-reduce", "replica_groups", "mesh['a'=8] {'a':(2)2}"),
    ("all-reduce", "replica_groups", "mesh['a'=8,'b'=2] {'a':(4)2,'b','a':(1)2}"),
]


def _opcode(name: str) -> HloOpcode:
    return HloOpcode.from_text(name)


@pytest.mark.parametrize(("opcode", "name", "text"), CORPUS)
def test_round_trip_of_xla_printed_values(opcode: str, name: str, text: str) -> None:
    syntax = syntax_for(_opcode(opcode), name)
    value = syntax.parse(text)
    assert syntax.format(value) == text
    assert format_attribute(opcode, name, value) == f"{name}={text}"


def test_every_registered_attribute_has_a_sample() -> None:
    sampled = {name for _, name, _ in CORPUS} | {"mode"}
    assert set(ATTRIBUTE_SYNTAX) - sampled == set()
    for (opcode, name), _ in OPCODE_ATTRIBUTE_SYNTAX.items():
        assert name in ATTRIBUTE_SYNTAX, (opcode, name)


# -- typed values ----------------------------------------------------------------


def test_window_values() -> None:
    w = parse_attribute(
        "reduce-window",
        "window",
        "{size=2x3 stride=1x2 pad=0_1x-1_1 lhs_dilate=2x1 rhs_dilate=1x2}",
    )
    assert w.dimensions == (WindowDimension(2, 1, 0, 1, 1, 2), WindowDimension(3, 2, -1, 1, 2, 1))
    assert parse_attribute("reduce-window", "window", "{}") == Window()
    made = Window.make([3, 3], strides=[2, 2], padding=[(1, 1), (1, 1)], reversal=[True, False])
    assert format_attribute("convolution", "window", made) == (
        "window={size=3x3 stride=2x2 pad=1_1x1_1 rhs_reversal=1x0}"
    )


def test_dim_labels_values() -> None:
    d = parse_attribute("convolution", "dim_labels", "b01f_01io->b01f")
    assert d == ConvolutionDimensionNumbers(0, 3, (1, 2), 2, 3, (0, 1), 0, 3, (1, 2))
    default = ConvolutionDimensionNumbers.default(2)
    assert syntax_for("convolution", "dim_labels").format(default) == "bf01_oi01->bf01"
    assert parse_attribute(None, "dim_labels", "bf10_oi01->bf01").input_spatial_dimensions == (3, 2)


def test_padding_and_slice_accept_short_forms() -> None:
    config = parse_attribute("pad", "padding", "1_2x0_-1")
    assert config == PaddingConfig.from_triples([(1, 2, 0), (0, -1, 0)])
    # XLA leaves the interior padding out when all of it is 0 (PaddingConfigToString).
    assert syntax_for("pad", "padding").format(config) == "1_2x0_-1"
    s = syntax_for("slice", "slice")
    assert s.format(s.parse("{[0:2], [1:4:2]}")) == "{[0:2:1], [1:4:2]}"
    # ... and print them as XLA does: strides only when one is not 1, interiors when one is not 0.
    assert s.format(s.parse("{[0:2:1], [1:4:1]}")) == "{[0:2], [1:4]}"
    assert syntax_for("pad", "padding").format(PaddingConfig.from_triples([(1, 2, 0)])) == "1_2"
    mixed = PaddingConfig.from_triples([(1, 2, 1), (0, 3, 0)])
    assert syntax_for("pad", "padding").format(mixed) == "1_2_1x0_3_0"


@pytest.mark.parametrize(
    ("text", "groups"),
    [
        ("mesh['axis_0'=4,'axis_1'=1] {'axis_0'}", ((0, 1, 2, 3),)),
        ("mesh['stage'=2,'local'=4] {'local'}", ((0, 1, 2, 3), (4, 5, 6, 7))),
        ("mesh['stage'=2,'local'=4] {'stage'}", ((0, 4), (1, 5), (2, 6), (3, 7))),
        ("mesh['a'=2,'b'=2] {'b','a'}", ((0, 2, 1, 3),)),
        ("mesh['a'=2,'b'=2] {}", ((0,), (1,), (2,), (3,))),
        # Sub-axes: 'a':(pre)size is the middle part of a split into [pre, size, rest].
        ("mesh['a'=8] {'a':(1)2}", ((0, 4), (1, 5), (2, 6), (3, 7))),
        ("mesh['a'=8] {'a':(2)2}", ((0, 2), (1, 3), (4, 6), (5, 7))),
        ("mesh['a'=8] {'a':(4)2,'a':(1)2}", ((0, 4, 1, 5), (2, 6, 3, 7))),
        # Bare names and axis numbers are read too (printed back quoted).
        ("mesh[x=2,y=2] {1}", ((0, 1), (2, 3))),
    ],
)
def test_mesh_axes_replica_groups(text: str, groups: tuple) -> None:
    value = parse_attribute("all-reduce", "replica_groups", text)
    mesh_groups = value.mesh_axes_replica_group_list
    assert mesh_groups is not None
    assert value.groups() == groups
    assert mesh_groups.num_replica_groups == len(groups)
    assert mesh_groups.num_devices_per_group == len(groups[0])
    again = parse_attribute(
        "all-reduce",
        "replica_groups",
        format_attribute("all-reduce", "replica_groups", value).removeprefix("replica_groups="),
    )
    assert again == value


def test_collective_values() -> None:
    groups = parse_attribute("all-reduce", "replica_groups", "[2,2]<=[2,2]T(1,0)")
    assert groups == CollectiveDeviceList(
        iota_replica_group_list=IotaReplicaGroupList(2, 2, (2, 2), (1, 0))
    )
    assert groups.groups() == ((0, 2), (1, 3))
    assert parse_attribute("all-reduce", "replica_groups", "{{0,1},{2,3}}").groups() == (
        (0, 1),
        (2, 3),
    )
    pairs = parse_attribute("collective-permute", "source_target_pairs", "{{0,1},{1,0}}")
    assert pairs == (SourceTarget(0, 1), SourceTarget(1, 0))
    assert (
        parse_attribute("all-reduce", "mode", "cross_replica_and_partition")
        is CollectiveOpGroupMode.CROSS_REPLICA_AND_PARTITION
    )


def test_sharding_values() -> None:
    s = parse_attribute("add", "sharding", "{devices=[2,2]<=[2,2]T(1,0)}")
    assert s.type is OpShardingType.OTHER and s.device_assignment().tolist() == [[0, 2], [1, 3]]
    t = parse_attribute("tuple", "sharding", "{{replicated}, {maximal device=3}}")
    assert t == OpSharding.tuple([OpSharding.replicated(), OpSharding.maximal(3)])
    assert parse_attribute("tuple", "sharding", "{}") == OpSharding.tuple([])
    g = parse_attribute("add", "sharding", '{devices=[2]0,1 shard_like 4 metadata={op_name="m"}}')
    assert g.shard_group_type is ShardGroupType.LIKE and g.shard_group_id == 4
    assert g.metadata == (OpMetadata(op_name="m"),)
    built = OpSharding.tiled([2, 1, 2], last_tile_dim_replicate=True)
    assert format_attribute("add", "sharding", built) == (
        "sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}"
    )


def test_metadata_and_string_escapes() -> None:
    m = parse_attribute(
        "add",
        "metadata",
        '{op_type="T" op_name="it\\\'s \\303\\251\\t" source_line=3, '
        "stack_frame_id=2 profile_type={1,2}}",
    )
    assert m.op_name == "it's \u00e9\t" and m.source_line == 3 and m.stack_frame_id == 2
    assert format_attribute("add", "metadata", m) == (
        'metadata={op_type="T" op_name="it\\\'s \\303\\251\\t" source_line=3 '
        "profile_type={1,2} stack_frame_id=2}"
    )
    assert format_attribute("add", "metadata", OpMetadata()) == "metadata={}"
    assert parse_attribute("custom-call", "custom_call_target", '"\\x41\\101\\?"') == "AA?"


def test_string_or_dict_attributes() -> None:
    assert parse_attribute("add", "backend_config", '"{\\"a\\":1}"') == '{"a":1}'
    assert format_attribute("add", "backend_config", '{"a":1}') == 'backend_config={"a":1}'
    assert format_attribute("add", "backend_config", "[1]") == 'backend_config="[1]"'
    attrs = parse_attribute("send", "frontend_attributes", '{b="1", a={x "}" y}}')
    assert attrs == FrontendAttributes({"a": '{x "}" y}', "b": "1"})


def test_other_typed_values() -> None:
    assert (
        parse_attribute("dot", "algorithm", "dot_f32_f32_f32")
        is PrecisionAlgorithm.ALG_DOT_F32_F32_F32
    )
    assert (
        parse_attribute("rng-bit-generator", "algorithm", "rng_three_fry")
        is RandomAlgorithm.RNG_THREE_FRY
    )
    assert parse_attribute("dot", "operand_precision", "{ default , highest }") == (
        Precision.DEFAULT,
        Precision.HIGHEST,
    )
    assert parse_attribute("fusion", "kind", "kLoop") is FusionKind.kLoop
    assert parse_attribute("convolution", "convolution_kind", "wgrad") is ConvolutionKind.WGRAD
    assert parse_attribute("outfeed", "outfeed_shape", "(f32[2]{0}, s32[])") == Shape.parse(
        "(f32[2]{0}, s32[])"
    )
    aliasing = parse_attribute("fusion", "output_to_operand_aliasing", "{{0,1}: (2, {3})}")
    assert aliasing == (OutputOperandAliasing((0, 1), 2, (3,)),)
    accuracy = parse_attribute("exponential", "result_accuracy", "{tolerance={ulps=2}}")
    assert accuracy == ResultAccuracy.tolerance(ulps=2)
    assert format_attribute("exponential", "result_accuracy", accuracy) == (
        "result_accuracy={tolerance={atol=0,rtol=0,ulps=2}}"
    )
    assert parse_attribute("batch-norm-training", "epsilon", "1e-05") == 1e-05
    assert format_attribute("batch-norm-training", "epsilon", 1e-05) == "epsilon=1e-05"
    assert parse_attribute("collective-permute", "slice_sizes", "{{1},{2,3}}") == ((1,), (2, 3))
    assert parse_attribute("gather", "slice_sizes", "{1,2}") == (1, 2)
    assert parse_attribute("sort", "is_stable", "false") is False
    assert parse_attribute("get-tuple-element", "index", " 3 ") == 3


# -- lookups -----------------------------------------------------------------------


def test_syntax_for_picks_by_opcode() -> None:
    assert syntax_for(HloOpcode.DOT, "algorithm") is ATTRIBUTE_SYNTAX["algorithm"]
    assert syntax_for(HloOpcode.RNG_BIT_GENERATOR, "algorithm") is not ATTRIBUTE_SYNTAX["algorithm"]
    assert (
        syntax_for("collective-permute-start", "slice_sizes") is not ATTRIBUTE_SYNTAX["slice_sizes"]
    )
    assert syntax_for(None, "dimensions") is ATTRIBUTE_SYNTAX["dimensions"]


def test_unknown_and_reference_attributes() -> None:
    with pytest.raises(InvalidArgumentError, match="did you mean 'dimensions'"):
        syntax_for("add", "dimension")
    with pytest.raises(InvalidArgumentError, match="resolves"):
        syntax_for("reduce", "to_apply")
    assert "control-predecessors" in REFERENCE_ATTRIBUTES
    assert not REFERENCE_ATTRIBUTES & set(ATTRIBUTE_SYNTAX)
    with pytest.raises(ParseError, match="unknown HLO attribute"):
        parse_attribute("add", "bogus", "1")


# -- defaults (what XLA assumes when absent, and leaves out when printing) ---------


def test_default_values() -> None:
    assert default_value("convolution", "feature_group_count") == 1
    assert default_value("convolution", "window") == Window()
    assert default_value("dot", "operand_precision", operand_count=2) == (
        Precision.DEFAULT,
        Precision.DEFAULT,
    )
    assert (
        default_value("compare", "type", operand_element_type=PrimitiveType.S32)
        is ComparisonType.SIGNED
    )
    assert default_value("topk", "largest") is True
    assert default_value("rng-bit-generator", "algorithm") is RandomAlgorithm.RNG_DEFAULT
    assert default_value("dot", "algorithm") is PrecisionAlgorithm.ALG_UNSET
    with pytest.raises(InvalidArgumentError, match="must be given"):
        default_value("gather", "offset_dims")


@pytest.mark.parametrize(
    ("opcode", "name", "value", "omitted"),
    [
        ("sort", "is_stable", False, True),
        ("sort", "is_stable", True, False),
        ("topk", "largest", True, False),
        ("scan", "is_associative", False, False),
        ("triangular-solve", "transpose_a", Transpose.NO_TRANSPOSE, False),
        ("dot", "operand_precision", (Precision.DEFAULT, Precision.DEFAULT), True),
        ("dot", "operand_precision", (Precision.DEFAULT, Precision.HIGH), False),
        ("dot", "lhs_batch_dims", (), True),
        ("dot", "lhs_contracting_dims", (), False),
        ("convolution", "window", Window(), True),
        ("custom-call", "api_version", CustomCallApiVersion.API_VERSION_ORIGINAL, True),
        ("custom-call", "api_version", CustomCallApiVersion.API_VERSION_TYPED_FFI, False),
        ("add", "metadata", OpMetadata(), True),
        ("exponential", "result_accuracy", ResultAccuracy(), True),
        ("broadcast", "dimensions", (), False),
        ("rng-bit-generator", "algorithm", RandomAlgorithm.RNG_DEFAULT, False),
    ],
)
def test_omitted_defaults_match_xla_printing(opcode, name, value, omitted: bool) -> None:
    assert is_omitted_default(opcode, name, value) is omitted


def test_compare_type_is_omitted_only_when_it_matches_the_operands() -> None:
    f32 = PrimitiveType.F32
    assert is_omitted_default("compare", "type", ComparisonType.FLOAT, operand_element_type=f32)
    assert not is_omitted_default(
        "compare", "type", ComparisonType.TOTALORDER, operand_element_type=f32
    )
    assert not is_omitted_default("compare", "type", ComparisonType.FLOAT)


# -- errors --------------------------------------------------------------------------

MALFORMED = [
    # (opcode, attribute, text, 1-based column of the error, message fragment)
    ("transpose", "dimensions", "{1,0", 5, "',' or '}'"),
    ("transpose", "dimensions", "{1;0}", 3, "',' or '}'"),
    ("transpose", "dimensions", "1,0", 1, "'{'"),
    ("get-tuple-element", "index", "1x", 2, "unexpected"),
    ("get-tuple-element", "index", "", 1, "integer"),
    ("slice", "slice", "{[0:2], [1:3:0]}", 14, "stride"),
    ("slice", "slice", "{[0 2]}", 5, "':'"),
    ("convolution", "window", "{size=3x3 stride=2}", 1, "stride has 1 entries"),
    ("convolution", "window", "{size=3x3 foo=1}", 11, "window field"),
    ("convolution", "window", "{stride=2}", 1, "size="),
    ("convolution", "window", "{size=0}", 1, "size=0"),
    ("convolution", "window", "{size=3 size=3}", 9, "twice"),
    ("convolution", "dim_labels", "bf01_01io->b01", 12, "output labels"),
    ("convolution", "dim_labels", "bf01_01io->bf0", 1, "spatial dimensions"),
    ("convolution", "dim_labels", "b01f-01io->b01f", 5, "'_'"),
    ("pad", "padding", "1_1x2", 6, "'_'"),
    ("pad", "padding", "1_1_-1", 1, "interior_padding"),
    ("compare", "direction", "LTE", 1, "one of EQ, GE, GT, LE, LT, NE"),
    ("compare", "type", "float", 1, "one of"),
    ("all-reduce", "replica_groups", "{{0,1},{1,2}", 13, "',' or '}'"),
    ("all-reduce", "replica_groups", "{{0,0}}", 1, "repeats"),
    ("all-reduce", "replica_groups", "[2,2,1]<=[4]", 1, "[groups,group_size]"),
    ("all-reduce", "replica_groups", "[2,2]<=[3]", 1, "3 devices"),
    ("all-reduce", "replica_groups", "mesh['x'=2] {'z'}", 14, "no axis 'z'"),
    ("all-reduce", "replica_groups", "mesh['x'=2] {3}", 14, "out of range"),
    ("all-reduce", "replica_groups", "mesh['x'=2]", 12, "device_ids"),
    ("all-reduce", "replica_groups", "mesh['x'=2], device_ids=(1,0) {'x'}", 12, "not supported"),
    ("all-reduce", "replica_groups", "maximal_mesh[device_id=0] {}", 1, "maximal_mesh"),
    ("all-reduce", "replica_groups", "mesh['x'=4] {'x':(1)4}", 1, "does not fit"),
    ("all-reduce", "replica_groups", "mesh['x'=8] {'x':(1)4,'x':(2)2}", 1, "overlap"),
    ("all-reduce", "replica_groups", "mesh['x'=8] {'x':(1)2,'x':(2)2}", 1, "merged"),
    ("all-reduce", "replica_groups", "mesh['x'=8] {'x','x'}", 1, "overlap"),
    ("all-reduce", "replica_groups", "mesh['x'=2,'x'=2] {}", 1, "repeats"),
    ("collective-permute", "source_target_pairs", "{{0,1,2}}", 2, "two ids"),
    ("custom-call", "custom_call_target", '"abc', 1, "unterminated"),
    ("custom-call", "custom_call_target", '"a\\qb"', 3, "escape"),
    ("custom-call", "custom_call_target", "abc", 1, "quoted string"),
    ("add", "sharding", "{devices=[2,2]0,1,2}", 1, "need 4 devices"),
    ("add", "sharding", "{maximal}", 1, "device="),
    ("add", "sharding", "{foo}", 2, "sharding such as"),
    ("add", "sharding", "{mesh[a=2], [{a}]}", 2, "not supported"),
    ("add", "sharding", "{devices=[2]<=[2]T(1)}", 1, "permutation"),
    ("add", "metadata", '{op_name="x" bogus=1}', 14, "unknown metadata field"),
    ("add", "metadata", "{source_line=x}", 14, "non-negative integer"),
    ("add", "metadata", '{op_name="x"', 13, "'}'"),
    ("custom-call", "output_to_operand_aliasing", "{{0}: 0, {})}", 7, "'('"),
    ("custom-call", "operand_layout_constraints", "{f32[2]{0}, q32[]}", 13, "element type"),
    ("dot", "operand_precision", "{default,hi}", 10, "one of"),
    ("dot", "algorithm", "dot_f32", 1, "one of"),
    ("fusion", "kind", "kFoo", 1, "kCustom"),
    ("exponential", "result_accuracy", "{mode=highest tolerance={ulps=1}}", 1, "exactly one"),
    ("add", "frontend_attributes", '{a="b" c="d"}', 8, "',' or '}'"),
    ("add", "frontend_attributes", "{a=1}", 4, "quoted string"),
    ("add", "backend_config", "{unbalanced", 1, "unbalanced"),
    ("add", "statistics", "{stat-0=1}", 2, "visualizing_index"),
    ("sort", "is_stable", "yes", 1, "true or false"),
    ("add", "domain", '{kind="sharding"}', 1, "entry, exit"),
    ("dynamic-slice", "dynamic_slice_sizes", "{2,2} extra", 7, "unexpected"),
]


@pytest.mark.parametrize(("opcode", "name", "text", "column", "fragment"), MALFORMED)
def test_malformed_values_raise_parse_error_at_the_offset(
    opcode: str, name: str, text: str, column: int, fragment: str
) -> None:
    with pytest.raises(ParseError) as info:
        parse_attribute(opcode, name, text)
    assert fragment in info.value.message
    assert (info.value.line, info.value.column) == (1, column)


def test_format_rejects_values_without_a_text_form() -> None:
    wide = ConvolutionDimensionNumbers(
        0, 1, tuple(range(2, 13)), 0, 1, tuple(range(2, 13)), 0, 1, tuple(range(2, 13))
    )
    with pytest.raises(InvalidArgumentError, match="at most 10"):
        syntax_for("convolution", "dim_labels").format(wide)


# -- properties ---------------------------------------------------------------------


@given(st.text())
def test_c_escape_round_trips(text: str) -> None:
    escaped = c_escape(text)
    assert escaped.isascii() and '"' not in escaped.replace('\\"', "")
    assert c_unescape(escaped) == text
    syntax = ATTRIBUTE_SYNTAX["custom_call_target"]
    assert syntax.parse(syntax.format(text)) == text


@given(st.lists(st.lists(st.integers(0, 50), max_size=4, unique=True), max_size=4))
def test_replica_groups_round_trip(groups: list[list[int]]) -> None:
    syntax = ATTRIBUTE_SYNTAX["replica_groups"]
    value = CollectiveDeviceList(groups)
    assert syntax.parse(syntax.format(value)) == value


@given(
    st.lists(
        st.tuples(
            st.integers(1, 9),
            st.integers(1, 4),
            st.integers(-3, 3),
            st.integers(-3, 3),
            st.integers(1, 3),
            st.integers(1, 3),
            st.booleans(),
        ),
        max_size=4,
    )
)
def test_window_round_trips(dims: list[tuple]) -> None:
    syntax = ATTRIBUTE_SYNTAX["window"]
    window = Window(tuple(WindowDimension(*d) for d in dims))
    assert syntax.parse(syntax.format(window)) == window


# -- module header and computation attributes --------------------------------------

MODULE_CORPUS = [  # from a module header XLA printed
    ("is_scheduled", "true"),
    ("input_output_alias", "{ {0}: (0, {}, may-alias), {1}: (1, {}, must-alias) }"),
    ("buffer_donor", "{ (2, {}) }"),
    ("entry_computation_layout", "{(f32[2]{0}, f32[2]{0}, f32[2]{0})->(f32[2]{0}, f32[2]{0})}"),
    (
        "entry_computation_layout",
        "{(f32[1,8,8,3]{3,2,1,0}, f32[3,3,3,5]{3,2,1,0})->f32[1,3,4,5]{3,2,1,0}}",
    ),
    (
        "entry_computation_layout",
        "{(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[], s32[2]{0})->f32[]}",
    ),
    ("allow_spmd_sharding_propagation_to_parameters", "{true,false,true}"),
    ("allow_spmd_sharding_propagation_to_output", "{true}"),
    ("replica_count", "2"),
    ("num_partitions", "4"),
    ("frontend_attributes", '{a="b"}'),
]


@pytest.mark.parametrize(("name", "text"), MODULE_CORPUS)
def test_module_attributes_round_trip(name: str, text: str) -> None:
    syntax = module_syntax_for(name)
    assert syntax.format(syntax.parse(text)) == text


def test_module_attribute_values() -> None:
    layout = parse_module_attribute("entry_computation_layout", "{()->(f32[2]{0}, s32[])}")
    assert layout == ProgramShape((), Shape.parse("(f32[2]{0}, s32[])"))
    aliases = parse_module_attribute("input_output_alias", "{ {0}: (1, {2}) }")
    assert aliases == InputOutputAlias((AliasEntry((0,), 1, (2,), AliasKind.MAY_ALIAS),))
    assert parse_module_attribute("buffer_donor", "{ (0, {1}) }") == BufferDonor(((0, (1,)),))
    assert parse_module_attribute("allow_spmd_sharding_propagation_to_output", "true") == (True,)
    assert COMPUTATION_ATTRIBUTE_SYNTAX["execution_thread"].parse('"host"') == "host"
    with pytest.raises(ParseError, match="unknown HloModule attribute"):
        parse_module_attribute("bogus", "1")
    with pytest.raises(ParseError) as info:
        parse_module_attribute("input_output_alias", "{ {0}: (0, {}, maybe) }")
    assert info.value.column == 16
