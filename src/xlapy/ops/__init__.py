"""Every operation of the spec as a function, named as the spec names it.

``xlapy.ops.Add``, ``xlapy.ops.DotGeneral``, ``xlapy.ops.ReduceWindow``...:
the same names and parameters as XLA's C++ free functions (xla_builder.h),
with snake_case keywords. Each family lives in its own module; this package
re-exports them all, and importing it gives ``XlaOp`` its Python operators
(``operators``).
"""

from . import operators  # noqa: F401  (attaches XlaOp's operators)
from .collectives import *  # noqa: F403
from .collectives import __all__ as _collectives
from .control import *  # noqa: F403
from .control import __all__ as _control
from .elementwise import *  # noqa: F403
from .elementwise import __all__ as _elementwise
from .indexing import *  # noqa: F403
from .indexing import __all__ as _indexing
from .linalg import *  # noqa: F403
from .linalg import __all__ as _linalg
from .movement import *  # noqa: F403
from .movement import __all__ as _movement
from .random import *  # noqa: F403
from .random import __all__ as _random
from .reductions import *  # noqa: F403
from .reductions import __all__ as _reductions
from .transfers import *  # noqa: F403
from .transfers import __all__ as _transfers

__all__ = [
    *_elementwise, *_movement, *_indexing, *_reductions, *_linalg, *_control, *_collectives,
    *_random, *_transfers,
]  # fmt: skip
