"""Builder bugs the fuzzers found."""

import numpy as np
import pytest

import xlapy
from xlapy import ops
from xlapy.errors import InvalidArgumentError


@pytest.mark.parametrize("bad", [3, "x", np.ones((2, 2))])
def test_broadcast_dimensions_that_are_not_a_list_of_dimensions(bad):
    # ops.Add(x, y, 3) raised "TypeError: 'int' object is not iterable" from shape inference.
    b = xlapy.XlaBuilder("t")
    b.set_die_immediately_on_error(True) if hasattr(b, "set_die_immediately_on_error") else None
    x = ops.Parameter(b, 0, xlapy.Shape.parse("f32[2,3]"), "x")
    y = ops.Parameter(b, 1, xlapy.Shape.parse("f32[2,3]"), "y")
    with pytest.raises(InvalidArgumentError, match="Add: broadcast_dimensions"):
        ops.Add(x, y, bad)
        b.build()
