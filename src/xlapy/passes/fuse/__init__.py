"""Fusion: producers merged into consumers (``instruction_fusion``) and sibling or
epilogue fusions merged into multi-output fusions (``multi_output_fusion``), with the
policy (``policy``), the reduce iteration space (``reduce_space``) and the fusion
editing primitives (``support``) they share.

The passes are exported from :mod:`xlapy.passes`; this package imports nothing
so that its modules can be loaded one by one.
"""
