"""xla_data attribute types: normalisation, invariants and derived values."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

from xlapy.errors import InvalidArgumentError
from xlapy.types import PrimitiveType
from xlapy.xla_data import (
    AxisRef,
    ChannelHandle,
    ChannelType,
    CholeskyOptions,
    CollectiveDeviceList,
    ComparisonDirection,
    ComparisonType,
    ConvolutionDimensionNumbers,
    CustomCallApiVersion,
    DotDimensionNumbers,
    FftType,
    FrontendAttributes,
    FusionKind,
    GatherDimensionNumbers,
    IotaReplicaGroupList,
    Mesh,
    MeshAxesReplicaGroupList,
    OpMetadata,
    OpSharding,
    OpShardingType,
    OutputOperandAliasing,
    Padding,
    PaddingConfig,
    PaddingConfigDimension,
    Precision,
    PrecisionAlgorithm,
    PrecisionConfig,
    RaggedDotDimensionNumbers,
    RandomAlgorithm,
    RandomDistribution,
    ReplicaGroup,
    ResultAccuracy,
    ScatterDimensionNumbers,
    ShardGroupType,
    SourceTarget,
    Transpose,
    TriangularSolveOptions,
    Window,
    WindowDimension,
    make_padding,
)


def test_lists_normalise_to_tuples_and_hash() -> None:
    a = DotDimensionNumbers([1], [0], [], [])
    b = DotDimensionNumbers((1,), (0,))
    assert a == b and hash(a) == hash(b)
    assert a.lhs_contracting_dimensions == (1,)
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.lhs_batch_dimensions = (0,)  # type: ignore[misc]


@pytest.mark.parametrize(
    ("make", "fragment"),
    [
        (lambda: DotDimensionNumbers([1], [0, 1]), "rhs_contracting_dimensions"),
        (lambda: DotDimensionNumbers([1, 1], [0, 1]), "repeats"),
        (lambda: DotDimensionNumbers([0], [0], [0], [1]), "both batch and contracting"),
        (lambda: DotDimensionNumbers([-1], [0]), "negative"),
        (lambda: DotDimensionNumbers("ab", [0]), "sequence of integers"),
        (lambda: ConvolutionDimensionNumbers(0, 0, (1, 2)), "must all differ"),
        (
            lambda: ConvolutionDimensionNumbers(0, 1, (2,), 0, 1, (2, 3), 0, 1, (2,)),
            "kernel_spatial_dimensions",
        ),
        (lambda: GatherDimensionNumbers(offset_dims=[2, 1]), "sorted"),
        (lambda: GatherDimensionNumbers(operand_batching_dims=[0]), "pair up"),
        (
            lambda: GatherDimensionNumbers(
                collapsed_slice_dims=[0], operand_batching_dims=[0], start_indices_batching_dims=[0]
            ),
            "both",
        ),
        (lambda: ScatterDimensionNumbers(index_vector_dim=-1), "index_vector_dim"),
        (lambda: PaddingConfigDimension(0, 0, -1), "interior_padding"),
        (lambda: WindowDimension(size=0), "size=0"),
        (lambda: WindowDimension(size=2, stride=0), "stride=0"),
        (lambda: WindowDimension(size=2, base_dilation=0), "base_dilation"),
        (lambda: ReplicaGroup([0, 0]), "repeats"),
        (lambda: IotaReplicaGroupList(2, 2, [3]), "need"),
        (lambda: IotaReplicaGroupList(2, 2, [2, 2], [0, 0]), "permutation"),
        (lambda: SourceTarget(-1, 0), "source"),
        (lambda: ChannelHandle(-2), "handle"),
        (lambda: TriangularSolveOptions(transpose_a=Transpose.TRANSPOSE_INVALID), "NO_TRANSPOSE"),
        (lambda: TriangularSolveOptions(transpose_a=9), "Transpose"),
        (lambda: PrecisionConfig([7]), "Precision"),
        (lambda: OpMetadata(source_line=-1), "source_line"),
        (lambda: FrontendAttributes({"a": 1}), "strings"),
        (lambda: OpSharding.tiled([2, 2], [0, 1, 2]), "need 4 devices"),
        (lambda: OpSharding.tiled([2], [0, 0]), "repeats"),
        (lambda: OpSharding(OpShardingType.MAXIMAL), "exactly one device"),
        (
            lambda: OpSharding(OpShardingType.REPLICATED, tile_assignment_devices=[0]),
            "takes no devices",
        ),
        (lambda: OpSharding.tiled([2], last_tile_dims=[OpShardingType.MAXIMAL]), "last_tile_dims"),
        (
            lambda: OpSharding.tiled(
                [2], last_tile_dim_replicate=True, last_tile_dims=[OpShardingType.MANUAL]
            ),
            "not both",
        ),
        (lambda: OpSharding.tuple([OpSharding.tuple([])]), "non-tuple"),
        (lambda: ResultAccuracy(ResultAccuracy.Mode.HIGHEST, atol=1.0), "not both"),
        (lambda: OutputOperandAliasing((), -1), "operand_index"),
        (lambda: RaggedDotDimensionNumbers(lhs_ragged_dimensions=()), "exactly one"),
        (lambda: CollectiveDeviceList([ReplicaGroup([0])], IotaReplicaGroupList(1, 1)), "not both"),
        (lambda: Window([(3, 1)]), "WindowDimension"),
    ],
)
def test_invariants_raise_invalid_argument(make, fragment: str) -> None:
    with pytest.raises(InvalidArgumentError, match=fragment):
        make()


def test_proto_enum_numbers() -> None:
    assert Precision.HIGHEST == 2
    assert PrecisionAlgorithm.ALG_DOT_BF16_BF16_F32 == 6
    assert PrecisionAlgorithm.ALG_DOT_BF16_BF16_F32_X9 == 13
    assert FftType.IRFFT == 3
    assert RandomAlgorithm.RNG_PHILOX == 2
    assert RandomDistribution.RNG_NORMAL == 2
    assert Transpose.ADJOINT == 3
    assert ChannelType.HOST_TO_DEVICE == 3
    assert CustomCallApiVersion.API_VERSION_TYPED_FFI == 4
    assert OpShardingType.UNREDUCED == 6
    assert FusionKind("kLoop") is FusionKind.kLoop


def test_nested_enum_aliases_like_the_proto() -> None:
    assert PrecisionConfig.Precision is Precision
    assert PrecisionConfig.Algorithm is PrecisionAlgorithm
    assert TriangularSolveOptions.Transpose is Transpose
    assert OpSharding.Type is OpShardingType
    config = PrecisionConfig([0, 2], PrecisionConfig.Algorithm.ALG_DOT_F32_F32_F32)
    assert config.operand_precision == (Precision.DEFAULT, Precision.HIGHEST)


def test_comparison_helpers() -> None:
    assert ComparisonDirection.LT.converse is ComparisonDirection.GT
    assert ComparisonDirection.LT.inverse is ComparisonDirection.GE
    assert ComparisonType.default_for(PrimitiveType.F32) is ComparisonType.FLOAT
    assert ComparisonType.default_for(PrimitiveType.S8) is ComparisonType.SIGNED
    assert ComparisonType.default_for(PrimitiveType.U32) is ComparisonType.UNSIGNED
    assert ComparisonType.default_for(PrimitiveType.PRED) is ComparisonType.UNSIGNED
    with pytest.raises(InvalidArgumentError):
        ComparisonType.default_for(PrimitiveType.TOKEN)


def test_padding_config_helpers() -> None:
    config = PaddingConfig.from_triples([(1, 2, 0), (-1, 0, 3)])
    assert config.as_triples() == ((1, 2, 0), (-1, 0, 3))
    assert PaddingConfig.from_pairs([(1, 1)]).dimensions == (PaddingConfigDimension(1, 1, 0),)
    with pytest.raises(InvalidArgumentError, match="triple"):
        PaddingConfig.from_triples([(1, 2)])


def test_window_make() -> None:
    w = Window.make(
        [3, 3],
        strides=[2, 1],
        padding=[(1, 1), (0, 2)],
        lhs_dilation=[1, 2],
        rhs_dilation=[2, 1],
        reversal=[True, False],
    )
    assert w.dimensions[0] == WindowDimension(3, 2, 1, 1, 2, 1, True)
    assert w.dimensions[1] == WindowDimension(3, 1, 0, 2, 1, 2, False)
    with pytest.raises(InvalidArgumentError, match="strides has 1 entries"):
        Window.make([3, 3], strides=[1])


@pytest.mark.parametrize(
    ("sizes", "window", "strides", "padding", "expected"),
    [
        ([5, 6], [3, 3], [2, 1], Padding.SAME, ((1, 1), (1, 1))),
        ([4], [2], [1], Padding.SAME, ((0, 1),)),
        ([4], [2], [2], Padding.SAME, ((0, 0),)),
        ([7], [3], [3], Padding.VALID, ((0, 0),)),
        ([1], [5], [1], Padding.SAME, ((2, 2),)),
    ],
)
def test_make_padding(sizes, window, strides, padding, expected) -> None:
    assert make_padding(sizes, window, strides, padding) == expected


def test_convolution_default_layout() -> None:
    d = ConvolutionDimensionNumbers.default(2)
    assert d.num_spatial_dimensions == 2
    assert (d.kernel_output_feature_dimension, d.kernel_input_feature_dimension) == (0, 1)


def test_iota_replica_groups_expand() -> None:
    assert IotaReplicaGroupList(2, 2).groups() == ((0, 1), (2, 3))
    assert IotaReplicaGroupList(2, 2, [2, 2], [1, 0]).groups() == ((0, 2), (1, 3))
    devices = CollectiveDeviceList([[0, 1], [2, 3]])
    assert devices.replica_groups == (ReplicaGroup((0, 1)), ReplicaGroup((2, 3)))
    assert devices.groups() == ((0, 1), (2, 3))
    assert CollectiveDeviceList().groups() == ()


def test_mesh_axes_replica_groups() -> None:
    mesh = Mesh(["x", "y"], [2, 4])
    assert mesh.num_devices == 8 and mesh.axis_index("y") == 1
    by_y = MeshAxesReplicaGroupList(mesh, [AxisRef(1)])
    assert by_y.groups() == ((0, 1, 2, 3), (4, 5, 6, 7))
    assert (by_y.num_replica_groups, by_y.num_devices_per_group) == (2, 4)
    assert MeshAxesReplicaGroupList(mesh, [AxisRef(0)]).groups() == ((0, 4), (1, 5), (2, 6), (3, 7))
    # The first listed axis is the most major within a group.
    assert MeshAxesReplicaGroupList(mesh, [AxisRef(1), AxisRef(0)]).groups() == (
        (0, 4, 1, 5, 2, 6, 3, 7),
    )
    # y:(1)2 is the middle part of y split as [1, 2, 2] (stride 2); y:(2)2 of [2, 2, 1].
    assert MeshAxesReplicaGroupList(mesh, [AxisRef(1, 1, 2)]).groups() == (
        (0, 2),
        (1, 3),
        (4, 6),
        (5, 7),
    )
    assert MeshAxesReplicaGroupList(mesh, [AxisRef(1, 2, 2)]).groups() == (
        (0, 1),
        (2, 3),
        (4, 5),
        (6, 7),
    )
    devices = CollectiveDeviceList(mesh_axes_replica_group_list=by_y)
    assert devices.groups() == by_y.groups()


@pytest.mark.parametrize(
    ("make", "fragment"),
    [
        (lambda: Mesh([], []), "at least one axis"),
        (lambda: Mesh(["x"], [2, 2]), "1 axis names for 2"),
        (lambda: Mesh(["x", "x"], [2, 2]), "repeats"),
        (lambda: Mesh(["x"], [0]), ">= 1"),
        (lambda: Mesh(["x"], [2]).axis_index("y"), "no axis named 'y'"),
        (lambda: AxisRef(0, 1, None), "both"),
        (lambda: AxisRef(0, 0, 2), "pre_size"),
        (lambda: AxisRef(0, 1, 1), "size=1"),
        (lambda: MeshAxesReplicaGroupList(Mesh(["x"], [4]), [AxisRef(1)]), "out of range"),
        (lambda: MeshAxesReplicaGroupList(Mesh(["x"], [4]), [AxisRef(0, 2, 4)]), "does not fit"),
        (
            lambda: MeshAxesReplicaGroupList(Mesh(["x"], [4]), [AxisRef(0), AxisRef(0, 1, 2)]),
            "overlap",
        ),
        (
            lambda: MeshAxesReplicaGroupList(
                Mesh(["x"], [8]), [AxisRef(0, 1, 2), AxisRef(0, 2, 2)]
            ),
            "merged",
        ),
        (
            lambda: CollectiveDeviceList(
                iota_replica_group_list=IotaReplicaGroupList(1, 2),
                mesh_axes_replica_group_list=MeshAxesReplicaGroupList(
                    Mesh(["x"], [2]), [AxisRef(0)]
                ),
            ),
            "not both",
        ),
    ],
)
def test_mesh_axes_replica_groups_reject(make, fragment: str) -> None:
    with pytest.raises(InvalidArgumentError, match=re.escape(fragment)):
        make()


def test_sharding_device_assignment() -> None:
    assert OpSharding.tiled([4]).device_assignment().tolist() == [0, 1, 2, 3]
    s = OpSharding.tiled([2, 2], iota_reshape_dims=[2, 2], iota_transpose_perm=[1, 0])
    np.testing.assert_array_equal(s.device_assignment(), [[0, 2], [1, 3]])
    explicit = OpSharding.tiled([2, 2], [3, 2, 1, 0])
    assert not explicit.is_iota
    assert explicit.device_assignment().tolist() == [[3, 2], [1, 0]]
    assert OpSharding.maximal(5).device_assignment().tolist() == [5]
    with pytest.raises(InvalidArgumentError, match="no tile assignment"):
        OpSharding.replicated().device_assignment()
    grouped = OpSharding.replicated().with_shard_group(3, ShardGroupType.LIKE)
    assert grouped.is_shard_group and grouped.shard_group_id == 3


def test_frontend_attributes_is_a_sorted_mapping() -> None:
    f = FrontendAttributes({"z": "1", "a": "2"})
    assert list(f) == ["a", "z"]
    assert f["z"] == "1" and f.get("missing") is None and len(f) == 2
    assert f == FrontendAttributes([("a", "2"), ("z", "1")])
    assert hash(f) == hash(FrontendAttributes({"a": "2", "z": "1"}))
    assert {f: 1}[FrontendAttributes({"a": "2", "z": "1"})] == 1


def test_small_options() -> None:
    assert CholeskyOptions(1).lower is True
    opts = TriangularSolveOptions(left_side=1, lower=0, transpose_a=2)
    assert opts.left_side is True and opts.transpose_a is Transpose.TRANSPOSE
    assert ChannelHandle(3, 2).type is ChannelType.DEVICE_TO_HOST
    assert OpMetadata().is_empty and not OpMetadata(op_name="x").is_empty
    tol = ResultAccuracy.tolerance(atol=1e-3, ulps=2)
    assert tol.mode is None and tol.ulps == 2
    assert RaggedDotDimensionNumbers(
        DotDimensionNumbers([2], [1]), [1], [0]
    ).rhs_group_dimensions == (0,)
