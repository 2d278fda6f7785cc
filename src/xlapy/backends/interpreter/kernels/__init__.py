"""Interpreter kernels, one module per op family; importing this registers them all."""

from . import collectives  # noqa: F401
