"""Operations in both MLIR forms, and the regions, blocks and SSA names around them.

The generic form (``"stablehlo.add"(%a, %b) : (T, T) -> T``) has one grammar
for every op and is read here; a pretty form is read by the op's entry in
``formats.PRETTY_FORMATS``. Both end in ``_finish``, which resolves the
operands against the SSA scopes (a use of an undefined value, or a use with
another type than the definition's, is a ParseError at that use), names the
results and fills in default-valued attributes, so that both forms of an op
give the same ``Operation``.
"""

from __future__ import annotations

import copy

from ...errors import ParseError, UnimplementedError
from ..ast import Block, MlirType, Operation, Region
from .formats import (
    FALLBACK_FORMAT,
    GENERIC_FIXUPS,
    OP_DEFAULTS,
    PRETTY_FORMATS,
    FormatMixin,
    PendingOp,
)
from .lexer import BARE_ID, BLOCK_ID, MAX_NESTING, SSA_DEF, SSA_USE

_KNOWN_DIALECTS = frozenset(("stablehlo", "func", "check", "interpreter"))


class OpMixin(FormatMixin):
    """Operations, regions and blocks; mixed into the parser."""

    # -- operations ----------------------------------------------------------------------
    def parse_operation(self) -> Operation:
        start = self.skip()
        position = self.line_column(start)  # before any nested op: positions only grow
        text = self.text
        defs: list[tuple[str, int, int]] = []
        if text.startswith("%", start, self.end):
            while True:
                def_pos = self.skip()
                m = self.match(SSA_DEF)
                if m is None:
                    raise self.error(f"expected a result name, found {self.found()}")
                count = int(m.group(2)) if m.group(2) is not None else 1
                if count < 1:
                    raise self.error("a result group needs at least one value", def_pos)
                defs.append(("%" + m.group(1), count, def_pos))
                if not self.eat(","):
                    break
            self.expect("=", "'=' after the result names")
        op_pos = self.skip()
        if text.startswith('"', op_pos, self.end):
            op = self._parse_generic()
        else:
            op = self._parse_pretty()
        self.skip_location()
        return self._finish(op, defs, start, position)

    def _finish(
        self, op: PendingOp, defs: list[tuple[str, int, int]], start: int, position: tuple[int, int]
    ) -> Operation:
        operand_names = []
        types = op.operand_types
        if types is not None and len(types) != len(op.operands):
            raise self.error(
                f"'{op.name}' has {len(op.operands)} operands but {len(types)} operand types",
                start,
            )
        resolved = []
        for i, (name, pos) in enumerate(op.operands):
            name, defined = self.lookup(name, pos)
            operand_names.append(name)
            if types is None:
                resolved.append(defined)
            else:
                self._check_type(name, defined, types[i], pos)
                resolved.append(types[i])
        results: list[str] = []
        for name, count, _ in defs:
            results.extend([name] if count == 1 else [f"{name}#{i}" for i in range(count)])
        if not defs:
            results = [self.fresh_name() for _ in op.result_types]
        elif len(results) != len(op.result_types):
            raise self.error(
                f"{len(results)} result names for '{op.name}', which has "
                f"{len(op.result_types)} results",
                start,
            )
        for name, t in zip(results, op.result_types, strict=True):
            self.define(name, t, start)
        defaults = OP_DEFAULTS.get(op.name)
        if defaults is not None:
            for key, value in defaults.items():
                if key not in op.attributes:
                    op.attributes[key] = copy.copy(value)
        return Operation(
            op.name,
            operand_names,
            resolved,
            results,
            list(op.result_types),
            op.attributes,
            op.regions,
            *position,
        )

    def _check_type(self, name: str, defined: MlirType, used: MlirType, pos: int) -> None:
        if defined == used:
            return
        if defined.shape is not None and used.shape is not None:
            if defined.shape == used.shape:
                return
        elif "".join(defined.text.split()) == "".join(used.text.split()):
            return
        raise self.error(f"{name} has type {defined.text} but is used as {used.text}", pos)

    def _parse_generic(self) -> PendingOp:
        name_pos = self.skip()
        name = self.string("an op name")
        if not BARE_ID.fullmatch(name) or "." not in name:
            raise self.error(f"'{name}' is not an op name (dialect.op)", name_pos)
        op = PendingOp(name)
        self.expect("(", "'(' starting the operands")
        if not self.at(")"):
            op.operands.append(self.parse_use())
            while self.eat(","):
                op.operands.append(self.parse_use())
        self.expect(")", "',' or ')' in the operands")
        if self.at("["):
            line, _ = self.line_column(self.pos)
            raise UnimplementedError(
                f"line {line}: '{name}' has successor blocks (branches), which StableHLO "
                "programs do not use and xlapy does not support"
            )
        if self.eat("<"):
            op.attributes.update(self.parse_attr_dict())
            self.expect(">", "'>' closing the properties")
        if self.eat("("):
            dialect = name.split(".", 1)[0]
            while True:
                op.regions.append(self.parse_region(dialect=dialect))
                if not self.eat(","):
                    break
            self.expect(")", "',' or ')' after the regions")
        if self.at("{"):
            dict_pos = self.skip()
            for key, value in self.parse_attr_dict().items():
                if key in op.attributes:
                    raise self.error(f"attribute '{key}' is given twice", dict_pos)
                op.attributes[key] = value
        self.expect(":", "':' and the op's function type")
        inputs, outputs = self.parse_function_type()
        op.operand_types, op.result_types = inputs, outputs
        fixup = GENERIC_FIXUPS.get(name)
        if fixup is not None:
            fixup(op)
        return op

    def _parse_pretty(self) -> PendingOp:
        name_pos = self.skip()
        name = self.bare_id("an operation")
        if "." not in name:
            name = f"{self.dialects[-1]}.{name}"
        op = PendingOp(name)
        fmt = PRETTY_FORMATS.get(name)
        if fmt is not None:
            if callable(fmt):
                fmt(self, op)
            else:
                self.run_format(fmt, op)
            return op
        dialect = name.split(".", 1)[0]
        if dialect in _KNOWN_DIALECTS:
            raise self.error(
                f"unknown op '{name}' (or one that has no pretty form: write it in the "
                'generic form "op"(operands) ... : (types) -> types)',
                name_pos,
            )
        if dialect == "chlo":
            self.run_format(FALLBACK_FORMAT, op)
            return op
        save = self.pos
        try:
            self.run_format(FALLBACK_FORMAT, op)
        except ParseError:  # the op does not follow the common syntax
            self.pos = save
            line, _ = self.line_column(name_pos)
            raise UnimplementedError(
                f"line {line}: the pretty form of '{name}' (dialect '{dialect}') is unknown "
                "to xlapy; write the op in the generic form"
            ) from None
        return op

    # -- SSA values ----------------------------------------------------------------------
    def parse_use(self) -> tuple[str, int]:
        pos = self.skip()
        m = self.match(SSA_USE)
        if m is None:
            raise self.error(f"expected an SSA value (%name), found {self.found()}")
        name = "%" + m.group(1)
        return (name if m.group(2) is None else f"{name}#{int(m.group(2))}"), pos

    def lookup(self, name: str, pos: int) -> tuple[str, MlirType]:
        for scope in reversed(self.scopes):
            t = scope.get(name)
            if t is not None:
                return name, t
        if name.endswith("#0"):  # %r#0 of a single-result %r
            base = name[:-2]
            for scope in reversed(self.scopes):
                t = scope.get(base)
                if t is not None:
                    return base, t
        for scope in reversed(self.scopes):
            if f"{name}#0" in scope:
                raise self.error(f"{name} names several results; pick one as {name}#i", pos)
        raise self.error(f"use of undefined value {name}", pos)

    def define(self, name: str, t: MlirType, pos: int) -> None:
        scope = self.scopes[-1]
        if name in scope:
            raise self.error(f"redefinition of {name}", pos)
        scope[name] = t

    def fresh_name(self) -> str:
        self.fresh_count += 1
        return f"%__{self.fresh_count}"

    # -- regions and blocks --------------------------------------------------------------
    def parse_region(
        self, entry_args: list[tuple[str, MlirType]] | None = None, dialect: str | None = None
    ) -> Region:
        open_pos = self.skip()
        if len(self.scopes) > MAX_NESTING:
            raise self.error(f"regions nest more than {MAX_NESTING} deep, the most xlapy supports")
        self.expect("{", "'{' starting a region")
        self.scopes.append({})
        self.dialects.append(dialect or self.dialects[-1])
        try:
            blocks: list[Block] = []
            if entry_args is not None:
                block = Block(list(entry_args))
                for name, t in entry_args:
                    if name:
                        self.define(name, t, open_pos)
                self._parse_block_ops(block)
                blocks.append(block)
            elif not self.at("}") and not self.at("^"):
                block = Block()
                self._parse_block_ops(block)
                blocks.append(block)
            labels: set[str] = set()
            while self.at("^"):
                label_pos = self.skip()
                m = self.match(BLOCK_ID)
                if m is None:
                    raise self.error(f"expected a block label, found {self.found()}")
                label = m.group(0)
                if label in labels:
                    raise self.error(f"redefinition of block {label}", label_pos)
                labels.add(label)
                block = Block(self.parse_block_arguments())
                self.expect(":", "':' after the block label")
                self._parse_block_ops(block)
                blocks.append(block)
            self.expect("}", "'}' closing the region")
            return Region(blocks)
        finally:
            self.scopes.pop()
            self.dialects.pop()

    def parse_block_arguments(self) -> list[tuple[str, MlirType]]:
        args: list[tuple[str, MlirType]] = []
        if self.eat("("):
            if not self.at(")"):
                while True:
                    arg_pos = self.skip()
                    m = self.match(SSA_USE)
                    if m is None or m.group(2) is not None:
                        raise self.error(f"expected an argument name, found {self.found()}")
                    self.expect(":", "':' and the argument type")
                    t = self.parse_type()
                    self.skip_location()
                    name = "%" + m.group(1)
                    self.define(name, t, arg_pos)
                    args.append((name, t))
                    if not self.eat(","):
                        break
            self.expect(")", "',' or ')' in the block arguments")
        return args

    def _parse_block_ops(self, block: Block) -> None:
        ops = block.operations
        while True:
            c = self.peek()
            if c == "}" or c == "^" or not c:
                return
            ops.append(self.parse_operation())


__all__ = ["OpMixin"]
