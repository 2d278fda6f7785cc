"""Evaluator kernels, one module per op family (``HloOpcode.family``); importing this
registers them all."""

from . import (  # noqa: F401
    collectives,
    control,
    elementwise,
    elementwise_convert,
    elementwise_math,
    indexing,
    linalg,
    linalg_lapack,
    linalg_lapack_eig,
    linalg_ragged,
    movement,
    random,
    reductions,
    transfers,
)
