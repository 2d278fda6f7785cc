"""XLA's protobuf schema, built at run time from tables: no protoc, no generated code.

The two files below are XLA's ``xla/xla_data.proto`` and ``xla/service/hlo.proto`` as
jaxlib 0.10.2 ships them: every message, field number, type and label matches, so
bytes that JAX or XLA write parse here and bytes written here parse there. The
tables are the whole truth: :func:`pool` turns them into
``descriptor_pb2.FileDescriptorProto`` objects, adds them to a private
``DescriptorPool`` (never protobuf's default one, so a process that also loads
jaxlib's or TensorFlow's generated modules sees no clash) and message classes come
from ``message_factory.GetMessageClass``.

A field is ``(name, number, type)`` plus an optional fourth entry, the oneof it
belongs to. ``type`` is a scalar type (``int64``, ``bool``, ``string``...), a message
or enum name of package ``xla`` (``ShapeProto``, ``OpSharding.Type``), or
``map<K,V>``; a leading ``*`` makes the field repeated and a leading ``?`` makes it a
proto3 ``optional`` field (one with presence).

``google.protobuf`` is imported only inside the functions that need it, so
``import xlapy.hlo`` works without protobuf installed.
"""

from __future__ import annotations

import threading
from typing import Any

from ...errors import FailedPreconditionError, InvalidArgumentError, NotFoundError

Field = tuple  # (name, number, type[, oneof])

# -- xla/xla_data.proto -----------------------------------------------------------

XLA_DATA_ENUMS: dict[str, tuple[tuple[str, int], ...]] = {
    "PrimitiveType": (
        ("PRIMITIVE_TYPE_INVALID", 0), ("PRED", 1), ("S1", 30), ("S2", 26), ("S4", 21),
        ("S8", 2), ("S16", 3), ("S32", 4), ("S64", 5), ("U1", 31), ("U2", 27), ("U4", 22),
        ("U8", 6), ("U16", 7), ("U32", 8), ("U64", 9), ("F16", 10), ("F32", 11),
        ("BF16", 16), ("F64", 12), ("F8E5M2", 19), ("F8E4M3", 28), ("F8E4M3FN", 20),
        ("F8E4M3B11FNUZ", 23), ("F8E3M4", 29), ("F8E5M2FNUZ", 24), ("F8E4M3FNUZ", 25),
        ("F4E2M1FN", 32), ("F8E8M0FNU", 33), ("F6E3M2FN", 35), ("F6E2M3FN", 36),
        ("C64", 15), ("C128", 18), ("TUPLE", 13), ("OPAQUE_TYPE", 14), ("TOKEN", 17),
        ("BUFFER", 34),
    ),
    "AsyncStreamKind": (
        ("ASYNC_STREAM_KIND_COLLECTIVE", 0), ("ASYNC_STREAM_KIND_P2P0", 1),
        ("ASYNC_STREAM_KIND_P2P1", 2), ("ASYNC_STREAM_KIND_MEMCPYP2P", 3),
    ),
    "CollectiveOpGroupMode": (
        ("COLLECTIVE_OP_GROUP_MODE_CROSS_REPLICA", 0),
        ("COLLECTIVE_OP_GROUP_MODE_CROSS_PARTITION", 1),
        ("COLLECTIVE_OP_GROUP_MODE_CROSS_REPLICA_AND_PARTITION", 2),
        ("COLLECTIVE_OP_GROUP_MODE_FLATTENED_ID", 3),
    ),
    "DimLevelType": (
        ("DIM_DENSE", 0), ("DIM_COMPRESSED", 1), ("DIM_SINGLETON", 2),
        ("DIM_LOOSE_COMPRESSED", 3),
    ),
    "ProfileType": (("INVALID", 0), ("WINDOW", 1), ("FLAG", 2), ("INTEGER", 3)),
    "ProfileSource": (
        ("PROFILE_SOURCE_UNKNOWN_SOURCE", 0), ("PROFILE_SOURCE_EMBEDDED", 1),
        ("PROFILE_SOURCE_REMOTE", 2),
    ),
    "CompilationEvent": (
        ("COMPILATION_EVENT_UNKNOWN_EVENT", 0), ("COMPILATION_EVENT_FIRST_COMPILATION", 1),
        ("COMPILATION_EVENT_RECOMPILATION", 2),
    ),
    "ProfileGenerationStrategy": (
        ("PROFILE_GENERATION_STRATEGY_UNKNOWN", 0), ("PROFILE_GENERATION_STRATEGY_GA", 1),
        ("PROFILE_GENERATION_STRATEGY_FANTA", 2), ("PROFILE_GENERATION_STRATEGY_CFO", 3),
        ("PROFILE_GENERATION_STRATEGY_EXHAUSTIVE", 4),
        ("PROFILE_GENERATION_STRATEGY_LCM_GNN", 5), ("PROFILE_GENERATION_STRATEGY_LCM_MOE", 6),
    ),
    "PaddingType": (("PADDING_INVALID", 0), ("PADDING_VALID", 1), ("PADDING_SAME", 2)),
    "FftType": (("FFT", 0), ("IFFT", 1), ("RFFT", 2), ("IRFFT", 3)),
    "RandomDistribution": (("RNG_INVALID", 0), ("RNG_UNIFORM", 1), ("RNG_NORMAL", 2)),
    "RandomAlgorithm": (("RNG_DEFAULT", 0), ("RNG_THREE_FRY", 1), ("RNG_PHILOX", 2)),
    "ChannelHandle.ChannelType": (
        ("CHANNEL_TYPE_INVALID", 0), ("DEVICE_TO_DEVICE", 1), ("DEVICE_TO_HOST", 2),
        ("HOST_TO_DEVICE", 3),
    ),
    "TriangularSolveOptions.Transpose": (
        ("TRANSPOSE_INVALID", 0), ("NO_TRANSPOSE", 1), ("TRANSPOSE", 2), ("ADJOINT", 3),
    ),
    "CubScanOptions.Kind": (("KIND_INVALID", 0), ("SUM", 1)),
    "OpSharding.Type": (
        ("REPLICATED", 0), ("MAXIMAL", 1), ("TUPLE", 2), ("OTHER", 3), ("MANUAL", 4),
        ("UNKNOWN", 5), ("UNREDUCED", 6),
    ),
    "OpSharding.ShardGroupType": (("AS", 0), ("LIKE", 1)),
    "ResultAccuracy.Mode": (("DEFAULT", 0), ("HIGHEST", 1)),
    "PrecisionConfig.Precision": (("DEFAULT", 0), ("HIGH", 1), ("HIGHEST", 2)),
    "PrecisionConfig.Algorithm": (
        ("ALG_UNSET", 0), ("ALG_DOT_ANY_F8_ANY_F8_F32", 1),
        ("ALG_DOT_ANY_F8_ANY_F8_F32_FAST_ACCUM", 2), ("ALG_DOT_F16_F16_F16", 3),
        ("ALG_DOT_F16_F16_F32", 4), ("ALG_DOT_BF16_BF16_BF16", 5), ("ALG_DOT_BF16_BF16_F32", 6),
        ("ALG_DOT_BF16_BF16_F32_X3", 7), ("ALG_DOT_BF16_BF16_F32_X6", 8),
        ("ALG_DOT_TF32_TF32_F32", 9), ("ALG_DOT_TF32_TF32_F32_X3", 10),
        ("ALG_DOT_F32_F32_F32", 11), ("ALG_DOT_F64_F64_F64", 12),
        ("ALG_DOT_BF16_BF16_F32_X9", 13),
    ),
}  # fmt: skip

_LITERAL_BYTES_FIELDS = (
    ("s1s", 30), ("s2s", 26), ("s4s", 21), ("s8s", 15), ("u1s", 31), ("u2s", 27),
    ("u4s", 22), ("u8s", 3), ("f16s", 11), ("bf16s", 13), ("u16s", 16), ("s16s", 17),
    ("f4e2m1fns", 32), ("f8e3m4s", 29), ("f8e4m3b11fnuzs", 23), ("f8e4m3fns", 20),
    ("f8e4m3fnuzs", 25), ("f8e4m3s", 28), ("f8e5m2fnuzs", 24), ("f8e5m2s", 19),
    ("f8e8m0fnus", 33), ("f6e3m2fns", 35), ("f6e2m3fns", 36),
)  # fmt: skip

XLA_DATA_MESSAGES: dict[str, tuple[Field, ...]] = {
    "PaddingConfig.PaddingConfigDimension": (
        ("edge_padding_low", 1, "int64"), ("edge_padding_high", 2, "int64"),
        ("interior_padding", 3, "int64"),
    ),
    "PaddingConfig": (("dimensions", 1, "*PaddingConfig.PaddingConfigDimension"),),
    "TileProto": (("dimensions", 1, "*int64"),),
    "SplitConfigProto": (("dimension", 1, "int64"), ("split_indices", 2, "*int64")),
    "LayoutProto": (
        ("minor_to_major", 1, "*int64"), ("dim_level_types", 9, "*DimLevelType"),
        ("dim_unique", 13, "*bool"), ("dim_ordered", 14, "*bool"), ("tiles", 6, "*TileProto"),
        ("tail_padding_alignment_in_elements", 16, "int64"),
        ("element_size_in_bits", 7, "int64"), ("memory_space", 8, "int64"),
        ("index_primitive_type", 11, "PrimitiveType"),
        ("pointer_primitive_type", 12, "PrimitiveType"), ("physical_shape", 10, "ShapeProto"),
        ("dynamic_shape_metadata_prefix_bytes", 15, "int64"),
        ("split_configs", 17, "*SplitConfigProto"),
    ),
    "ShapeProto": (
        ("element_type", 2, "PrimitiveType"), ("dimensions", 3, "*int64"),
        ("is_dynamic_dimension", 6, "*bool"), ("tuple_shapes", 4, "*ShapeProto"),
        ("layout", 5, "LayoutProto"),
    ),
    "ProgramShapeProto": (
        ("parameters", 1, "*ShapeProto"), ("result", 2, "ShapeProto"),
        ("parameter_names", 3, "*string"),
    ),
    "ComputationStats": (("flop_count", 1, "double"), ("transcendental_count", 2, "double")),
    "Payload": (("value", 1, "bytes", "payload_source"), ("id", 2, "int64", "payload_source")),
    "OpMetadata.ProfileInfo": (
        ("profile_type", 1, "*ProfileType"), ("relative_speedup", 2, "double"),
        ("profile_source", 3, "ProfileSource"), ("compilation_event", 4, "CompilationEvent"),
        ("profile_generation_strategy", 5, "ProfileGenerationStrategy"),
    ),
    "OpMetadata": (
        ("op_type", 1, "string"), ("op_name", 2, "string"), ("source_file", 3, "string"),
        ("source_line", 4, "int32"), ("source_end_line", 17, "int32"),
        ("source_column", 18, "int32"), ("source_end_column", 19, "int32"),
        ("profile_type", 5, "*ProfileType"), ("size_of_generated_code_in_bytes", 8, "int64"),
        ("size_of_memory_working_set_in_bytes", 9, "int64"),
        ("profile_info", 10, "OpMetadata.ProfileInfo"), ("deduplicated_name", 12, "string"),
        ("stack_frame_id", 15, "int32"), ("scheduling_name", 16, "string"),
        ("metadata_payload", 20, "Payload"),
    ),
    "ExecutionProfile": (
        ("compilation_cache_hit", 1, "bool"), ("compile_time_ms", 2, "int64"),
        ("compute_cycle_count", 3, "int64"), ("compute_time_ns", 4, "int64"),
        ("compute_and_transfer_time_ns", 5, "int64"), ("executable_size_in_bytes", 6, "int64"),
        ("profile_cache_hit", 7, "bool"), ("warmup_run_executed", 8, "bool"),
    ),
    "ExecutionHandle": (("handle", 1, "int64"),),
    "GlobalDataHandle": (("handle", 1, "int64"),),
    "DeviceHandle": (("handle", 1, "int64"), ("device_count", 2, "int64")),
    "ChannelHandle": (("handle", 1, "int64"), ("type", 2, "ChannelHandle.ChannelType")),
    "DeviceAssignmentProto.ComputationDevice": (("replica_device_ids", 1, "*int64"),),
    "DeviceAssignmentProto": (
        ("replica_count", 1, "int32"), ("computation_count", 2, "int32"),
        ("computation_devices", 3, "*DeviceAssignmentProto.ComputationDevice"),
    ),
    "LiteralProto": (
        ("shape", 1, "ShapeProto"), ("preds", 2, "*bool"), ("s32s", 4, "*int32"),
        ("s64s", 5, "*int64"), ("u32s", 6, "*uint32"), ("u64s", 7, "*uint64"),
        ("f32s", 8, "*float"), ("f64s", 9, "*double"), ("c64s", 12, "*float"),
        ("c128s", 18, "*double"), ("tuple_literals", 10, "*LiteralProto"),
        *((name, number, "bytes") for name, number in _LITERAL_BYTES_FIELDS),
        ("sparse_indices", 14, "*int64"), ("dynamic_sizes", 34, "*int32"),
    ),
    "WindowDimension": (
        ("size", 1, "int64"), ("stride", 2, "int64"), ("padding_low", 3, "int64"),
        ("padding_high", 4, "int64"), ("window_dilation", 5, "int64"),
        ("base_dilation", 6, "int64"), ("window_reversal", 7, "bool"),
    ),
    "Window": (("dimensions", 1, "*WindowDimension"),),
    "GatherDimensionNumbers": (
        ("offset_dims", 1, "*int64"), ("collapsed_slice_dims", 2, "*int64"),
        ("start_index_map", 3, "*int64"), ("index_vector_dim", 4, "int64"),
        ("operand_batching_dims", 5, "*int64"), ("start_indices_batching_dims", 6, "*int64"),
    ),
    "ScatterDimensionNumbers": (
        ("update_window_dims", 1, "*int64"), ("inserted_window_dims", 2, "*int64"),
        ("scatter_dims_to_operand_dims", 3, "*int64"), ("index_vector_dim", 4, "int64"),
        ("input_batching_dims", 5, "*int64"), ("scatter_indices_batching_dims", 6, "*int64"),
    ),
    "ConvolutionDimensionNumbers": (
        ("input_batch_dimension", 7, "int64"), ("input_feature_dimension", 8, "int64"),
        ("input_spatial_dimensions", 11, "*int64"),
        ("kernel_input_feature_dimension", 3, "int64"),
        ("kernel_output_feature_dimension", 4, "int64"),
        ("kernel_spatial_dimensions", 6, "*int64"), ("output_batch_dimension", 9, "int64"),
        ("output_feature_dimension", 10, "int64"), ("output_spatial_dimensions", 12, "*int64"),
    ),
    "SparsityConfig.TensorSparsityConfig": (
        ("num_non_zero", 1, "int64"), ("block_size", 2, "int64"), ("dimension", 3, "int64"),
        ("stride", 4, "int64"),
    ),
    "SparsityConfig": (
        ("lhs", 1, "SparsityConfig.TensorSparsityConfig"),
        ("rhs", 2, "SparsityConfig.TensorSparsityConfig"),
    ),
    "DotDimensionNumbers": (
        ("lhs_contracting_dimensions", 1, "*int64"), ("rhs_contracting_dimensions", 2, "*int64"),
        ("lhs_batch_dimensions", 3, "*int64"), ("rhs_batch_dimensions", 4, "*int64"),
    ),
    "RaggedDotDimensionNumbers": (
        ("dot_dimension_numbers", 1, "DotDimensionNumbers"),
        ("lhs_ragged_dimensions", 2, "*int64"), ("rhs_group_dimensions", 3, "*int64"),
    ),
    "TriangularSolveOptions": (
        ("left_side", 1, "bool"), ("lower", 2, "bool"), ("unit_diagonal", 3, "bool"),
        ("transpose_a", 4, "TriangularSolveOptions.Transpose"),
    ),
    "CholeskyOptions": (("lower", 1, "bool"),),
    "CubScanOptions": (
        ("vector_length", 1, "int64"), ("row_length", 2, "int64"),
        ("column_length", 3, "int64"), ("kind", 4, "CubScanOptions.Kind"),
        ("is_reverse", 5, "bool"),
    ),
    "SortOptions": (("descending", 1, "bool"),),
    "FrontendAttributes": (("map", 1, "map<string,string>"),),
    "Statistic": (("stat_name", 1, "string"), ("stat_val", 2, "double")),
    "StatisticsViz": (
        ("stat_index_to_visualize", 1, "int64"), ("statistics", 2, "*Statistic"),
    ),
    "MeshProto.MeshAxis": (("name", 1, "string"), ("size", 2, "int64")),
    "MeshProto.IotaTransform": (("reshape_dims", 1, "*int64"), ("transpose_perm", 2, "*int64")),
    "MeshProto": (
        ("axes", 1, "*MeshProto.MeshAxis"), ("device_ids", 2, "*int64"),
        ("iota_transform", 3, "?MeshProto.IotaTransform"),
    ),
    "AxisRefProto.SubAxis": (("pre_size", 1, "int64"), ("size", 2, "int64")),
    "AxisRefProto": (
        ("mesh_axis_index", 1, "int64"), ("sub_axis_info", 2, "?AxisRefProto.SubAxis"),
    ),
    "NamedShardingProto.DimensionSharding": (
        ("axes", 1, "*AxisRefProto"), ("is_closed", 2, "bool"),
    ),
    "NamedShardingProto": (
        ("mesh", 2, "MeshProto"), ("dim_shardings", 3, "*NamedShardingProto.DimensionSharding"),
        ("replicated_axes", 4, "*AxisRefProto"), ("unreduced_axes", 5, "*AxisRefProto"),
        ("manual_axes", 7, "*AxisRefProto"), ("metadata", 6, "*OpMetadata"),
    ),
    "OpSharding": (
        ("type", 1, "OpSharding.Type"), ("tile_shape", 2, "ShapeProto"),
        ("tile_assignment_dimensions", 3, "*int64"), ("tile_assignment_devices", 4, "*int64"),
        ("tuple_shardings", 5, "*OpSharding"), ("replicate_on_last_tile_dim", 6, "bool"),
        ("metadata", 7, "*OpMetadata"), ("last_tile_dims", 8, "*OpSharding.Type"),
        ("iota_reshape_dims", 9, "*int64"), ("iota_transpose_perm", 10, "*int32"),
        ("is_shard_group", 11, "bool"), ("shard_group_id", 12, "int64"),
        ("shard_group_type", 13, "OpSharding.ShardGroupType"),
        ("named_sharding", 14, "?NamedShardingProto"),
    ),
    "ReplicaGroup": (("replica_ids", 1, "*int64"),),
    "MeshAxesReplicaGroupListProto": (("mesh", 1, "MeshProto"), ("axes", 2, "*AxisRefProto")),
    "IotaReplicaGroupListProto": (
        ("num_replica_groups", 1, "int64"), ("num_devices_per_group", 2, "int64"),
        ("iota_reshape_dims", 3, "*int64"), ("iota_transpose_perm", 4, "*int32"),
    ),
    "CollectiveDeviceListProto": (("replica_groups", 1, "*ReplicaGroup"),),
    "SourceTarget": (("source", 1, "int64"), ("target", 2, "int64")),
    "ResultAccuracy.Tolerance": (("atol", 1, "double"), ("rtol", 2, "double"), ("ulps", 3, "int64")),
    "ResultAccuracy": (
        ("mode", 1, "ResultAccuracy.Mode", "specs"),
        ("tolerance", 2, "ResultAccuracy.Tolerance", "specs"),
    ),
    "PrecisionConfig": (
        ("operand_precision", 1, "*PrecisionConfig.Precision"),
        ("algorithm", 2, "PrecisionConfig.Algorithm"),
    ),
    "ParameterReplication": (("replicated_at_leaf_buffers", 1, "*bool"),),
    "WhileLoopBackendConfig.KnownInitStep": (("init", 1, "int64"), ("step", 2, "int64")),
    "WhileLoopBackendConfig.KnownTripCount": (("n", 1, "int64"),),
    "WhileLoopBackendConfig.KnownInductionVariable": (("tuple_index", 1, "int64"),),
    "WhileLoopBackendConfig.DynamicVariable": (
        ("tuple_index", 1, "int64"), ("init", 2, "?int64"), ("step", 3, "?int64"),
    ),
    "WhileLoopBackendConfig": (
        ("known_trip_count", 1, "WhileLoopBackendConfig.KnownTripCount"),
        ("known_init_step", 2, "WhileLoopBackendConfig.KnownInitStep"),
        ("known_induction_variable", 3, "WhileLoopBackendConfig.KnownInductionVariable"),
        ("dynamic_variables", 5, "*WhileLoopBackendConfig.DynamicVariable"),
    ),
    "OutputOperandAliasing": (
        ("output_shape_index", 1, "*int64"), ("operand_index", 2, "int64"),
        ("operand_shape_index", 3, "*int64"),
    ),
    "OriginalArrayProto": (("instruction_name", 1, "string"), ("shape_index", 2, "*int64")),
    "OriginalValueElementProto": (
        ("shape_index", 1, "*int64"), ("original_array", 2, "OriginalArrayProto"),
    ),
    "OriginalValueProto": (
        ("elements", 1, "*OriginalValueElementProto"), ("is_synthetic_call", 2, "bool"),
    ),
}  # fmt: skip

# -- xla/service/hlo.proto -------------------------------------------------------------

HLO_ENUMS: dict[str, tuple[tuple[str, int], ...]] = {
    "CustomCallSchedule": (("SCHEDULE_NONE", 0), ("SCHEDULE_LATEST", 1), ("SCHEDULE_EARLIEST", 2)),
    "TriState": (("TRI_STATE_UNSPECIFIED", 0), ("TRI_STATE_TRUE", 1), ("TRI_STATE_FALSE", 2)),
    "ConvolutionKind": (
        ("CONVOLUTION_KIND_UNSET", 0), ("CONVOLUTION_KIND_FPROP", 1),
        ("CONVOLUTION_KIND_DGRAD", 2), ("CONVOLUTION_KIND_WGRAD", 3),
    ),
    "CustomCallApiVersion": (
        ("API_VERSION_UNSPECIFIED", 0), ("API_VERSION_ORIGINAL", 1),
        ("API_VERSION_STATUS_RETURNING", 2), ("API_VERSION_STATUS_RETURNING_UNIFIED", 3),
        ("API_VERSION_TYPED_FFI", 4),
    ),
    "Kind": (("UNDEFINED_ALIAS", 0), ("MAY_ALIAS", 1), ("MUST_ALIAS", 2)),
    "HloModuleProto.ProfileType": (
        ("INVALID", 0), ("FLAG", 1), ("FUSION", 2), ("LAYOUT", 3), ("DOT", 4), ("FLAGNET", 5),
        ("SHARDING", 6), ("SCHEDULE", 7),
    ),
}  # fmt: skip

HLO_MESSAGES: dict[str, tuple[Field, ...]] = {
    "HloInstructionProto.SliceDimensions": (
        ("start", 1, "int64"), ("limit", 2, "int64"), ("stride", 3, "int64"),
    ),
    "HloInstructionProto": (
        ("name", 1, "string"), ("opcode", 2, "string"), ("shape", 3, "ShapeProto"),
        ("metadata", 7, "OpMetadata"), ("literal", 8, "LiteralProto"),
        ("parameter_number", 9, "int64"), ("fusion_kind", 11, "string"),
        ("tuple_index", 13, "int64"), ("dimensions", 14, "*int64"), ("window", 15, "Window"),
        ("convolution_dimension_numbers", 16, "ConvolutionDimensionNumbers"),
        ("feature_group_count", 50, "int64"), ("batch_group_count", 58, "int64"),
        ("slice_dimensions", 17, "*HloInstructionProto.SliceDimensions"),
        ("exponent_bits", 18, "int32"), ("mantissa_bits", 19, "int32"),
        ("dynamic_slice_sizes", 20, "*int64"), ("padding_config", 21, "PaddingConfig"),
        ("outfeed_config", 22, "bytes"), ("distribution", 23, "RandomDistribution"),
        ("epsilon", 24, "float"), ("feature_index", 25, "int64"), ("channel_id", 26, "int64"),
        ("infeed_config", 27, "bytes"), ("custom_call_target", 28, "string"),
        ("outfeed_shape", 29, "ShapeProto"),
        ("dot_dimension_numbers", 30, "DotDimensionNumbers"),
        ("ragged_dot_dimension_numbers", 90, "RaggedDotDimensionNumbers"),
        ("fft_type", 31, "FftType"), ("fft_length", 32, "*int64"),
        ("comparison_direction", 63, "string"),
        ("gather_dimension_numbers", 33, "GatherDimensionNumbers"),
        ("gather_slice_sizes", 34, "*int64"), ("id", 35, "int64"), ("operand_ids", 36, "*int64"),
        ("control_predecessor_ids", 37, "*int64"), ("called_computation_ids", 38, "*int64"),
        ("sharding", 40, "OpSharding"), ("backend_config", 43, "bytes"),
        ("backend_config_payload", 99, "Payload"), ("replica_groups", 49, "*ReplicaGroup"),
        ("all_reduce_id", 45, "int64"), ("use_global_device_ids", 71, "bool"),
        ("is_host_transfer", 47, "bool"), ("is_stable", 60, "bool"),
        ("scatter_dimension_numbers", 48, "ScatterDimensionNumbers"),
        ("precision_config", 51, "PrecisionConfig"),
        ("source_target_pairs", 52, "*SourceTarget"),
        ("domain_entry_sharding", 54, "OpSharding"), ("domain_exit_sharding", 55, "OpSharding"),
        ("constrain_layout", 56, "bool"), ("operand_shapes_with_layout", 57, "*ShapeProto"),
        ("triangular_solve_options", 59, "TriangularSolveOptions"),
        ("cholesky_options", 62, "CholeskyOptions"),
        ("parameter_replication", 61, "ParameterReplication"),
        ("custom_call_has_side_effect", 65, "bool"),
        ("output_operand_aliasing", 74, "*OutputOperandAliasing"),
        ("custom_call_schedule", 76, "CustomCallSchedule"), ("delta", 66, "int64"),
        ("indices_are_sorted", 67, "bool"), ("frontend_attributes", 68, "FrontendAttributes"),
        ("unique_indices", 69, "bool"), ("rng_algorithm", 70, "RandomAlgorithm"),
        ("comparison_type", 72, "string"), ("is_cross_program_prefetch", 73, "bool"),
        ("cross_program_prefetch_index", 80, "int32", "optional_cross_program_prefetch_index"),
        ("padding_type", 75, "PaddingType"),
        ("custom_call_api_version", 77, "CustomCallApiVersion"),
        ("async_execution_thread", 79, "string"), ("k", 81, "int64"), ("largest", 85, "bool"),
        ("statistics_viz", 82, "StatisticsViz"),
        ("collective_device_list", 87, "CollectiveDeviceListProto", "replica_group_list"),
        ("iota_collective_device_list", 92, "IotaReplicaGroupListProto", "replica_group_list"),
        (
            "mesh_axes_replica_group_list", 93, "MeshAxesReplicaGroupListProto",
            "replica_group_list",
        ),
        ("original_value", 88, "OriginalValueProto"), ("is_composite", 89, "bool"),
        ("result_accuracy", 91, "ResultAccuracy"), ("is_reverse", 94, "bool"),
        ("num_carries", 95, "int64"), ("is_associative", 96, "TriState"),
        ("conv_kind", 97, "ConvolutionKind"), ("sparsity_config", 98, "SparsityConfig"),
    ),
    "HloComputationProto": (
        ("name", 1, "string"), ("instructions", 2, "*HloInstructionProto"),
        ("program_shape", 4, "ProgramShapeProto"), ("id", 5, "int64"), ("root_id", 6, "int64"),
        ("is_fusion_computation", 7, "bool"), ("execution_thread", 8, "string"),
    ),
    "HloScheduleProto.InstructionSequence": (("instruction_ids", 1, "*int64"),),
    "HloScheduleProto": (
        ("sequences", 1, "map<int64,HloScheduleProto.InstructionSequence>"),
    ),
    "HloInputOutputAliasProto.AliasEntryProto": (
        ("output_shape_index", 1, "*int64"), ("parameter_number", 2, "int64"),
        ("parameter_shape_index", 3, "*int64"), ("kind", 4, "Kind"),
    ),
    "HloInputOutputAliasProto": (
        ("entries", 1, "*HloInputOutputAliasProto.AliasEntryProto"),
    ),
    "HloBufferDonorProto.BufferDonorEntryProto": (
        ("parameter_number", 1, "int64"), ("parameter_shape_index", 2, "*int64"),
    ),
    "HloBufferDonorProto": (("entries", 1, "*HloBufferDonorProto.BufferDonorEntryProto"),),
    "CrossProgramPrefetch": (
        ("parameter", 1, "int64"), ("index", 2, "*int64"), ("offset", 3, "int64"),
    ),
    "StackFrameIndexProto.FileLocation": (
        ("file_name_id", 1, "int32"), ("function_name_id", 2, "int32"), ("line", 3, "int32"),
        ("end_line", 5, "int32"), ("column", 4, "int32"), ("end_column", 6, "int32"),
    ),
    "StackFrameIndexProto.StackFrame": (
        ("file_location_id", 1, "int32"), ("parent_frame_id", 2, "int32"),
    ),
    "StackFrameIndexProto": (
        ("file_names", 1, "*string"), ("function_names", 2, "*string"),
        ("file_locations", 3, "*StackFrameIndexProto.FileLocation"),
        ("stack_frames", 4, "*StackFrameIndexProto.StackFrame"),
    ),
    "HloModuleProto.ProfileInfo": (
        ("profile_type", 1, "HloModuleProto.ProfileType"), ("relative_speedup", 2, "double"),
        ("profile_source", 3, "ProfileSource"), ("compilation_event", 4, "CompilationEvent"),
        ("fingerprint", 5, "string"),
        ("profile_generation_strategy", 6, "ProfileGenerationStrategy"),
        ("original_changelist", 7, "int64"), ("changelist", 8, "int64"),
    ),
    "HloModuleProto": (
        ("name", 1, "string"), ("entry_computation_name", 2, "string"),
        ("entry_computation_id", 6, "int64"), ("computations", 3, "*HloComputationProto"),
        ("host_program_shape", 4, "ProgramShapeProto"), ("id", 5, "int64"),
        ("pjrt_id", 23, "?int64"), ("schedule", 7, "HloScheduleProto"),
        ("input_output_alias", 8, "HloInputOutputAliasProto"), ("payloads", 22, "*bytes"),
        ("buffer_donor", 18, "HloBufferDonorProto"),
        ("cross_program_prefetches", 10, "*CrossProgramPrefetch"), ("is_dynamic", 11, "bool"),
        ("spmd_output_sharding", 12, "OpSharding"),
        ("spmd_parameters_shardings", 14, "*OpSharding"),
        ("use_auto_spmd_partitioning", 16, "bool"),
        ("profile_info", 13, "*HloModuleProto.ProfileInfo"),
        ("device_assignment", 15, "DeviceAssignmentProto"),
        ("stack_frame_index", 17, "StackFrameIndexProto"),
        ("frontend_attributes", 19, "FrontendAttributes"),
        ("original_value_recovery_table", 20, "OriginalValueRecoveryTableProto"),
        ("device_type", 21, "string"),
    ),
    "OriginalValueRecoveryTableProto.Entry": (
        ("old_original_array", 1, "OriginalArrayProto"),
        ("new_original_array", 2, "OriginalArrayProto"),
        ("recovery_module", 3, "HloModuleProto"),
    ),
    "OriginalValueRecoveryTableProto": (
        ("entries", 1, "*OriginalValueRecoveryTableProto.Entry"),
    ),
    "HloModuleGroupProto": (("name", 1, "string"), ("hlo_modules", 2, "*HloModuleProto")),
    "HloInputs.LiteralDescriptor": (("version", 1, "int32"), ("argument_size_bytes", 2, "uint64")),
    "HloInputs": (
        ("arguments", 1, "*LiteralProto"),
        ("arguments_descriptors", 2, "*HloInputs.LiteralDescriptor"),
    ),
    "HloUnoptimizedSnapshot": (
        ("hlo_module", 1, "HloModuleProto"), ("partitions", 2, "*HloInputs"),
        ("version", 3, "int32"),
    ),
}  # fmt: skip

XLA_DATA_FILE = "xla/xla_data.proto"
HLO_FILE = "xla/service/hlo.proto"
PACKAGE = "xla"

# (file name, dependencies, enums, messages), in dependency order.
FILES: tuple[tuple[str, tuple[str, ...], dict, dict], ...] = (
    (XLA_DATA_FILE, (), XLA_DATA_ENUMS, XLA_DATA_MESSAGES),
    (HLO_FILE, (XLA_DATA_FILE,), HLO_ENUMS, HLO_MESSAGES),
)

_SCALAR_TYPES = (
    "double", "float", "int64", "uint64", "int32", "fixed64", "fixed32", "bool", "string",
    "bytes", "uint32", "sfixed32", "sfixed64", "sint32", "sint64",
)  # fmt: skip


# -- building descriptors ------------------------------------------------------------


def _all_enum_names() -> set[str]:
    return {name for _, _, enums, _ in FILES for name in enums}


def _set_type(field: Any, type_name: str, enum_names: set[str], descriptor_pb2: Any) -> None:
    """Fill ``field``'s type (scalar, enum or message) from its table spelling."""
    types = descriptor_pb2.FieldDescriptorProto
    if type_name in _SCALAR_TYPES:
        field.type = getattr(types, "TYPE_" + type_name.upper())
    elif type_name in enum_names:
        field.type = types.TYPE_ENUM
        field.type_name = f".{PACKAGE}.{type_name}"
    else:
        field.type = types.TYPE_MESSAGE
        field.type_name = f".{PACKAGE}.{type_name}"


def _map_entry_name(field_name: str) -> str:
    return "".join(part.capitalize() for part in field_name.split("_")) + "Entry"


def _add_field(message: Any, spec: Field, path: str, enum_names: set[str], pb2: Any) -> None:
    name, number, type_name = spec[0], spec[1], spec[2]
    labels = pb2.FieldDescriptorProto
    field = message.field.add(name=name, number=number, json_name=_json_name(name))
    field.label = labels.LABEL_OPTIONAL
    if type_name.startswith("map<"):
        key, value = type_name[4:-1].split(",")
        entry = message.nested_type.add(name=_map_entry_name(name))
        entry.options.map_entry = True
        for entry_name, entry_number, entry_type in (("key", 1, key), ("value", 2, value)):
            entry_field = entry.field.add(
                name=entry_name, number=entry_number, json_name=entry_name
            )
            entry_field.label = labels.LABEL_OPTIONAL
            _set_type(entry_field, entry_type, enum_names, pb2)
        field.label = labels.LABEL_REPEATED
        field.type = labels.TYPE_MESSAGE
        field.type_name = f".{PACKAGE}.{path}.{entry.name}"
        return
    if type_name.startswith("*"):
        field.label = labels.LABEL_REPEATED
        type_name = type_name[1:]
    oneof = spec[3] if len(spec) > 3 else None
    if type_name.startswith("?"):
        type_name = type_name[1:]
        field.proto3_optional = True
        oneof = "_" + name
    _set_type(field, type_name, enum_names, pb2)
    if oneof is not None:
        names = [o.name for o in message.oneof_decl]
        if oneof not in names:
            message.oneof_decl.add(name=oneof)
            names.append(oneof)
        field.oneof_index = names.index(oneof)


def _json_name(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def build_file(name: str, dependencies: tuple[str, ...], enums: dict, messages: dict) -> Any:
    """One ``FileDescriptorProto`` from the tables (nested names are dotted)."""
    from google.protobuf import descriptor_pb2

    file = descriptor_pb2.FileDescriptorProto(name=name, package=PACKAGE, syntax="proto3")
    file.dependency.extend(dependencies)
    containers: dict[str, Any] = {}

    def container(path: str) -> Any:
        """The DescriptorProto of message ``path``, created (parents first) on first use."""
        if path not in containers:
            parent, _, leaf = path.rpartition(".")
            owner = container(parent) if parent else file
            containers[path] = (
                owner.nested_type.add(name=leaf) if parent else file.message_type.add(name=leaf)
            )
        return containers[path]

    enum_names = _all_enum_names()
    for path in messages:
        container(path)
    for path, values in enums.items():
        parent, _, leaf = path.rpartition(".")
        owner = container(parent).enum_type if parent else file.enum_type
        enum = owner.add(name=leaf)
        for value_name, number in values:
            enum.value.add(name=value_name, number=number)
    for path, fields in messages.items():
        for spec in fields:
            _add_field(container(path), spec, path, enum_names, descriptor_pb2)
    return file


# -- the pool ------------------------------------------------------------------------

_lock = threading.Lock()
_pool: Any = None
_classes: dict[str, type] = {}


def _require_protobuf() -> None:
    try:
        import google.protobuf  # noqa: F401
    except ImportError:
        raise FailedPreconditionError(
            "XLA's protos need the protobuf package (pip install 'protobuf>=4')"
        ) from None


def pool() -> Any:
    """The private ``DescriptorPool`` holding XLA's files; built once, thread-safe."""
    global _pool
    if _pool is not None:
        return _pool
    _require_protobuf()
    from google.protobuf import descriptor_pool

    with _lock:
        if _pool is None:
            built = descriptor_pool.DescriptorPool()
            for name, dependencies, enums, messages in FILES:
                built.Add(build_file(name, dependencies, enums, messages))
            _make_classes(built, [name for name, *_ in FILES])
            _pool = built
    return _pool


def _make_classes(built: Any, file_names: list[str]) -> None:
    """Make every message class of ``file_names`` now, nested ones too, under the lock.
    Left to first use, protobuf makes a sub-message's class when a field first reaches
    it, and two threads doing that at once can race in protobuf's class cache."""
    from google.protobuf import message_factory

    pending = [
        d for name in file_names for d in built.FindFileByName(name).message_types_by_name.values()
    ]
    while pending:
        descriptor = pending.pop()
        if not descriptor.GetOptions().map_entry:
            _classes.setdefault(descriptor.full_name, message_factory.GetMessageClass(descriptor))
        pending.extend(descriptor.nested_types)


def message_class(full_name: str) -> type:
    """The message class of ``full_name`` (``"xla.LiteralProto"``), made once per name."""
    cls = _classes.get(full_name)
    if cls is not None:
        return cls
    from google.protobuf import message_factory

    try:
        descriptor = pool().FindMessageTypeByName(full_name)
    except KeyError:
        raise NotFoundError(
            f"no protobuf message {full_name!r} in xlapy's pool; XLA's messages are named "
            "like 'xla.HloModuleProto'"
        ) from None
    with _lock:
        cls = _classes.setdefault(full_name, message_factory.GetMessageClass(descriptor))
    return cls


def new_message(full_name: str, **fields: Any) -> Any:
    """An instance of ``full_name`` with ``fields`` set (a shorthand for the converters)."""
    return message_class(full_name)(**fields)


def add_file(file_descriptor_proto: Any) -> Any:
    """Add another component's file (say, a gRPC service's messages) to the pool.

    The file may depend on ``xla/xla_data.proto`` and ``xla/service/hlo.proto``.
    Adding the same file twice is harmless; a different file under a name already
    taken is an ``InvalidArgumentError``. Returns the ``FileDescriptor``.
    """
    built = pool()
    with _lock:
        try:
            existing = built.FindFileByName(file_descriptor_proto.name)
        except KeyError:
            existing = None
        if existing is not None:
            from google.protobuf import descriptor_pb2

            known = descriptor_pb2.FileDescriptorProto()
            existing.CopyToProto(known)
            if known.SerializeToString(
                deterministic=True
            ) != file_descriptor_proto.SerializeToString(deterministic=True):
                raise InvalidArgumentError(
                    f"a different proto file named {file_descriptor_proto.name!r} is already "
                    "in xlapy's pool"
                )
            return existing
        try:
            return built.Add(file_descriptor_proto)
        except (TypeError, ValueError) as e:
            raise InvalidArgumentError(
                f"proto file {file_descriptor_proto.name!r} cannot be added: {e}"
            ) from None


__all__ = [
    "FILES",
    "HLO_FILE",
    "XLA_DATA_FILE",
    "add_file",
    "build_file",
    "message_class",
    "new_message",
    "pool",
]
