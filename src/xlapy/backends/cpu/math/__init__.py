"""Vectorizable approximations of the transcendental functions (``approx``), for
``elemental.floating``: straight-line code, no libm call, so loops around them vectorize.
"""
