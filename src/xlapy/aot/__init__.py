"""Ahead-of-time compilation: an HLO module to a relocatable object and a C header.

``xlapy.aot.compile(module, name=..., outdir=...)`` (and ``xlapy aot``) writes
``NAME.o``, which depends on nothing but libc, libm and (with ``threads > 1``) pthreads,
and ``NAME.h``, the C interface of issue 21. See docs/aot.md.
"""

from .build import AotResult, compile  # noqa: A004

__all__ = ["AotResult", "compile"]
