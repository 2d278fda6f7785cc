"""StableHLO text -> ``stablehlo.ast``: the MLIR reader (see ``parser`` for the grammar).

``parser`` drives the read; its mixins each read one kind of thing: ``lexer``
(tokens), ``types`` (MLIR types), ``attrs`` (attribute values), ``ops``
(operations, regions and blocks) and ``formats`` (the pretty forms of ops,
declared once per op as format strings).
"""

from .parser import parse_mlir, split_sections

__all__ = ["parse_mlir", "split_sections"]
