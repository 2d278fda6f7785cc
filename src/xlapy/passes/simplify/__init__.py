"""Passes that remove work without changing what is computed: algebraic
simplification, constant folding, CSE, dead code elimination, tuple
simplification, inlining, loop-invariant code motion, reduction splitting.

The passes are exported from :mod:`xlapy.passes`; this package imports nothing
so that its modules can be loaded one by one.
"""
