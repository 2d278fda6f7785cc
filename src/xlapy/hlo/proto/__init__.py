"""XLA's protos for xlapy: ``HloModuleProto``, ``LiteralProto``, ``ShapeProto``...

The schema (:mod:`.schema`) is built at run time from tables that match jaxlib
0.10.2's ``xla/xla_data.proto`` and ``xla/service/hlo.proto`` field for field, so
the bytes are wire-compatible with JAX and XLA. ``google.protobuf`` is imported only
when a function here runs; importing this package needs nothing but xlapy.
See docs/protos.md for what maps to what and what is refused.
"""

from .literal import literal_from_proto, literal_to_proto
from .module import module_from_proto, module_to_proto, module_to_proto_bytes
from .schema import add_file, message_class, new_message, pool
from .shape import (
    program_shape_from_proto,
    program_shape_to_proto,
    shape_from_proto,
    shape_to_proto,
)

__all__ = [
    "add_file",
    "literal_from_proto",
    "literal_to_proto",
    "message_class",
    "module_from_proto",
    "module_to_proto",
    "module_to_proto_bytes",
    "new_message",
    "pool",
    "program_shape_from_proto",
    "program_shape_to_proto",
    "shape_from_proto",
    "shape_to_proto",
]
