"""Interpreter kernels, one module per op family; importing this registers them all."""

from . import collectives, control, indexing, linalg, movement, reductions, rng  # noqa: F401
