"""Expanders: ops a backend has no emitter for, rewritten into ops it has.

One module per op family served (``indexing_gather``, ``linalg_conv``,
``random_bits``...): the naming every family-organised layer of xlapy uses.
Each expander is an :class:`xlapy.passes.rewrite.ExpanderPass`. The passes are
exported from :mod:`xlapy.passes`; this package imports nothing so that its
modules can be loaded one by one.
"""
