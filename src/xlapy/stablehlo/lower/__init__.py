"""Lowering parsed StableHLO (``stablehlo.ast``) to HLO, through the builder.

``core`` drives it (the :class:`Ctx` of a block, regions, functions, and
:data:`LOWERINGS`, the table from op name to lowering); one module per op
family fills the table (``elementwise``, ``movement``, ``indexing``,
``reductions``, ``linalg``, ``control``, ``collectives``, ``random``,
``transfers``), as do ``chlo`` (CHLO's decompositions), ``checks`` (the
conformance suite's ``check.*`` / ``interpreter.*`` ops) and
``custom_targets`` (LAPACK custom calls HLO can say directly) and
``control_sharding`` (Shardy and GSPMD shardings as HLO shardings and manual regions). ``attrs``
reads attributes, ``errors`` makes errors that name the op and its line.
Importing this package fills the table.
"""

from . import (  # noqa: F401  (each registers its lowerings)
    checks,
    chlo,
    collectives,
    control,
    control_sharding,
    elementwise,
    indexing,
    linalg,
    movement,
    random,
    reductions,
    transfers,
)
from .core import (
    LOWERINGS,
    Ctx,
    ProgramLowering,
    entry_function_name,
    free_values,
    lower_module,
    lowering,
    shape_of_type,
)
from .errors import invalid, unsupported

__all__ = [
    "LOWERINGS",
    "Ctx",
    "ProgramLowering",
    "entry_function_name",
    "free_values",
    "invalid",
    "lower_module",
    "lowering",
    "shape_of_type",
    "unsupported",
]
