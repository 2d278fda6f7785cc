"""Interpreter kernels, one module per op family; importing this registers them all."""

from . import collectives, indexing, movement, reductions  # noqa: F401
