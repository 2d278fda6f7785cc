"""xlapy: XLA, the domain-specific compiler for linear algebra, in Python.

The top level re-exports what a user touches first: element types, shapes,
layouts, literals, the builder, the attribute types of the ops, the client and
the error classes. See docs/architecture.md for the map.
"""

from typing import TYPE_CHECKING, Any

from . import computations, errors, ops, types
from .builder import XlaBuilder, XlaComputation, XlaOp
from .client import (
    ClientLibrary,
    CompileOptions,
    Executable,
    GlobalData,
    LocalClient,
    local_client,
)
from .custom_call import register_custom_call, unregister_custom_call
from .errors import (
    DeadlineExceededError,
    InvalidArgumentError,
    ParseError,
    UnimplementedError,
    XlaError,
)
from .layout import Layout, PaddingValue, Tile
from .literal import Literal
from .shape import Shape
from .types import *  # noqa: F403  (PRED, S32, F32, ... as top-level constants)
from .types import PrimitiveType
from .xla_data import (
    ChannelHandle,
    ComparisonDirection,
    ComparisonType,
    ConvolutionDimensionNumbers,
    DotDimensionNumbers,
    FftType,
    GatherDimensionNumbers,
    Padding,
    PaddingConfig,
    PaddingConfigDimension,
    Precision,
    PrecisionConfig,
    RandomAlgorithm,
    RandomDistribution,
    ReplicaGroup,
    ScatterDimensionNumbers,
    TriangularSolveOptions,
    Window,
    WindowDimension,
)

if TYPE_CHECKING:  # only for the annotation: the service loads when connect() is called
    from .service.remote_client import RemoteClient

from .version import __version__ as __version__  # noqa: E402  (the public attribute)


def connect(target: str, token: str | None = None, **options: Any) -> "RemoteClient":
    """A client of an ``xlapy serve`` process at ``target`` ("host:port"), with the
    methods of ``local_client()`` (see ``xlapy.service.remote_client.connect``: token
    defaults to ``$XLAPY_SERVICE_TOKEN``; ``timeout``, ``tls_ca``, ``retries``).

    Needs the ``service`` extra (grpcio, protobuf), loaded only when called.
    """
    import importlib  # only here: the package's lazy attributes (see below)

    remote = importlib.import_module(f"{__name__}.service.remote_client")
    return remote.connect(target, token, **options)


__all__ = [
    "errors",
    "computations",
    "ops",
    "ChannelHandle",
    "ClientLibrary",
    "ComparisonDirection",
    "ComparisonType",
    "CompileOptions",
    "ConvolutionDimensionNumbers",
    "DotDimensionNumbers",
    "Executable",
    "FftType",
    "GatherDimensionNumbers",
    "GlobalData",
    "LocalClient",
    "Padding",
    "PaddingConfig",
    "PaddingConfigDimension",
    "Precision",
    "PrecisionConfig",
    "RandomAlgorithm",
    "RandomDistribution",
    "ReplicaGroup",
    "ScatterDimensionNumbers",
    "TriangularSolveOptions",
    "Window",
    "WindowDimension",
    "XlaBuilder",
    "XlaComputation",
    "XlaOp",
    "connect",
    "local_client",
    "register_custom_call",
    "unregister_custom_call",
    "DeadlineExceededError",
    "InvalidArgumentError",
    "Layout",
    "Literal",
    "PaddingValue",
    "ParseError",
    "PrimitiveType",
    "Shape",
    "Tile",
    "UnimplementedError",
    "XlaError",
    *types.__all__,
]

# Subpackages a user reaches as attributes (``xlapy.stablehlo.parse_module(...)``) without
# importing them by hand; imported on first use, so ``import xlapy`` stays light.
_LAZY_SUBMODULES = frozenset(
    {"atlas", "backends", "cli", "conformance", "distributed", "hlo", "jax", "lib", "passes",
     "service", "shape_inference", "stablehlo", "testing", "tools"}
)  # fmt: skip


def __getattr__(name: str) -> object:
    if name in _LAZY_SUBMODULES:
        import importlib  # only here: the package's lazy attributes (see above)

        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _LAZY_SUBMODULES)
