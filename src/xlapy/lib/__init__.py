"""XLA's client library: functions built out of HLO ops (xla/hlo/builder/lib).

:mod:`xlapy.lib.math` holds the special functions and the inverse trigonometric
and hyperbolic functions that StableHLO calls ``chlo``.
"""

from . import math

__all__ = ["math"]
