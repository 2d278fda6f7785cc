"""Interpreter kernels, one module per op family; importing this registers them all."""

from . import (  # noqa: F401
    collectives,
    control,
    elementwise,
    indexing,
    linalg,
    linalg_ragged,
    movement,
    random,
    reductions,
)
