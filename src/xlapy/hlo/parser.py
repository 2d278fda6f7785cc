"""HLO text in: ``parse_module`` reads what XLA (and JAX) print, short or long form.

Grammar, as XLA writes it::

    module       ::= ['HloModule' name (',' header_attr)*] [stack_frame_tables] computation*
    computation  ::= ['ENTRY'] name [signature] '{' instruction* '}' [',' 'execution_thread=' string]
    instruction  ::= ['ROOT'] name '=' shape opcode '(' operands ')' (',' name '=' value)*
    operand      ::= [shape] name            (names may carry a '%' sigil)

Per-opcode reading is dispatched through tables: the contents of the
parentheses (operands, a constant's literal, a parameter's number) and the
structural shape checks. Attribute values (of instructions, of the module
header and of computations) are cut out of the text by bracket matching and
handed to the attribute registries (``attributes``, ``attributes_module``) by
name; values they do not know are kept verbatim. Called computations may be
referenced before they are defined, so references are resolved once every
computation has been read, and shape checks (``xlapy.shape_inference``) run
after that.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from typing import Any

from ..errors import InvalidArgumentError, ParseError, UnimplementedError
from ..literal_text import parse_literal_at
from ..opcode import COMPUTATION_ATTRIBUTES, HloOpcode
from ..shape import Shape, parse_shape_at
from ..shape_inference import has_rule, infer_instruction_shape
from . import async_sugar
from .attributes import AttributeSyntax, find_syntax
from .attributes_module import COMPUTATION_ATTRIBUTE_SYNTAX, MODULE_ATTRIBUTE_SYNTAX
from .computation import HloComputation
from .instruction import (
    COMPUTATION_LIST_ATTRIBUTES,
    CONTROL_PREDECESSORS,
    HloInstruction,
    RawAttribute,
    RawLiteral,
)
from .lexer import Cursor, remap_error
from .module import HloModule, ModuleConfig

_SHAPE_START = re.compile(r"\(|[a-z][a-z0-9]*\[")
# An array shape with at most a plain layout, not followed by another '{'.
_PLAIN_SHAPE = re.compile(r"[a-z][a-z0-9]*\[[0-9,]*\](?:\{[0-9,]*\})?(?![ \t]*\{)")
# A '{' that opens a computation body rather than a layout ({1,0}, {}, {0:T(2)}).
_BODY_BRACE = re.compile(r"\{(?!\s*[\d}:])")
_TABLE_KEYWORDS = ("FileNames", "FunctionNames", "FileLocations", "StackFrames")
_TABLE_LINE = re.compile(r"[ \t]*(?:\d+[ \t]|" + "|".join(_TABLE_KEYWORDS) + r"[ \t]*$)")


def parse_module(text: str, *, check_shapes: bool = True) -> HloModule:
    """Parse HLO module text; ``ParseError`` (line, column, caret) on malformed input.

    ``check_shapes`` runs the structural shape checks and shape inference
    (``xlapy.shape_inference``) on every instruction.
    """
    if not isinstance(text, str):
        raise InvalidArgumentError(f"parse_module needs a str, got {type(text).__name__}")
    return _Parser(text, check_shapes).module()


def parse_computation(text: str, *, check_shapes: bool = True) -> HloComputation:
    """Parse computations without a module header; return the entry (the last one)."""
    return parse_module(text, check_shapes=check_shapes).entry


class _PendingComputations:
    """A called-computation reference waiting for its computation to be defined."""

    __slots__ = ("names", "is_list")

    def __init__(self, names: list[tuple[str, int]], is_list: bool) -> None:
        self.names = names
        self.is_list = is_list


class _Parser:
    def __init__(self, text: str, check_shapes: bool) -> None:
        self.text = text
        self.cur = Cursor(text)
        self.check_shapes = check_shapes
        self.computations: dict[str, HloComputation] = {}
        self.shapes: dict[str, Shape] = {}
        # Wrapper computations made from async shorthand, for the computation being read.
        self.generated: list[HloComputation] = []
        # id(instruction) -> (instruction, offset of its shape, offset of its opcode,
        #                     {attribute name: offset of its value})
        self.where: dict[int, tuple[HloInstruction, int, int, dict[str, int]]] = {}

    # -- module -----------------------------------------------------------------
    def module(self) -> HloModule:
        cur = self.cur
        if cur.eat_keyword("HloModule"):
            name, _ = cur.name("the module name after HloModule")
            module = HloModule(name, self._header())
        else:
            module = HloModule("module")
        module.stack_frame_tables = self._stack_frame_tables()
        entry: HloComputation | None = None
        order: list[HloComputation] = []
        while not cur.at_end():
            self.generated = []
            computation, is_entry, offset = self._computation()
            order.extend(self.generated)
            if is_entry:
                if entry is not None:
                    raise cur.error(
                        f"a second ENTRY computation {computation.name}; "
                        f"{entry.name} is already the entry",
                        offset,
                    )
                entry = computation
            order.append(computation)
        if not order:
            raise cur.error("expected a computation, found the end of the text")
        entry = entry if entry is not None else order[-1]
        self._resolve_called_computations()
        for computation in order:
            module.add_computation(computation, entry=computation is entry, append=True)
        if self.check_shapes:
            for instruction, shape_at, opcode_at, attribute_at in self.where.values():
                _check_instruction(self, instruction, shape_at, opcode_at, attribute_at)
        return module

    # -- header -------------------------------------------------------------------
    def _header(self) -> ModuleConfig:
        cur = self.cur
        config = ModuleConfig()
        while cur.eat(","):
            name, at = cur.attribute_name()
            cur.expect("=", f"after the module attribute {name}")
            if name in config.order:
                raise cur.error(f"module attribute {name} is given twice", at)
            if name in _CONFIG_FIELDS:
                value = self._value(MODULE_ATTRIBUTE_SYNTAX[name], f"module attribute {name}")
                setattr(config, name, value)
            else:
                config.extras[name], _ = cur.raw_value(name)
            config.order.append(name)
        return config

    def _shape(self) -> tuple[Shape, int]:
        start = self.cur.skip()
        text = self.text
        m = _PLAIN_SHAPE.match(text, start)
        if m is not None:
            # Most shapes are plain arrays and repeat a lot: reuse the Shape.
            key = m.group()
            shape = self.shapes.get(key)
            if shape is not None:
                self.cur.pos = m.end()
                return shape, start
        shape, self.cur.pos = parse_shape_at(text, start)
        if m is not None and self.cur.pos == m.end():
            self.shapes[key] = shape
        return shape, start

    def _stack_frame_tables(self) -> str | None:
        """The FileNames...StackFrames tables newer XLA prints after the header, verbatim."""
        cur = self.cur
        start = cur.skip()
        if not any(self.text.startswith(k, start) for k in _TABLE_KEYWORDS):
            return None
        pos = end = start
        text = self.text
        while pos < len(text):
            line_end = text.find("\n", pos)
            line_end = len(text) if line_end < 0 else line_end
            line = text[pos:line_end]
            if line.strip():
                if not _TABLE_LINE.match(line):
                    break
                end = line_end
            pos = line_end + 1
        cur.pos = end
        return text[start:end]

    # -- computations ---------------------------------------------------------------
    def _computation(self) -> tuple[HloComputation, bool, int]:
        cur = self.cur
        start = cur.skip()
        is_entry = cur.eat_keyword("ENTRY")
        name, at = cur.name("a computation name (or the end of the text)")
        if name in self.computations:
            raise cur.error(f"computation {name} is defined twice", at)
        signature = None
        if cur.peek("("):
            signature = self._signature()
        cur.expect("{", f"to open the body of computation {name}")
        computation = HloComputation(name)
        self.computations[name] = computation
        scope: dict[str, HloInstruction] = {}
        control: list[tuple[HloInstruction, list[tuple[str, int]]]] = []
        root: HloInstruction | None = None
        while not cur.eat("}"):
            if cur.at_end():
                raise cur.error(
                    f"unexpected end of the text: computation {name} is not closed (missing '}}')"
                )
            instruction, is_root, name_at = self._instruction(scope, control)
            if is_root:
                if root is not None:
                    raise cur.error(
                        f"computation {name} has a second ROOT ({instruction.name}); "
                        f"{root.name} is already its root",
                        name_at,
                    )
                root = instruction
            computation.add_instruction(instruction)
        if not computation.instructions:
            raise cur.error(f"computation {name} has no instructions", at)
        computation.root = root if root is not None else computation.instructions[-1]
        if cur.eat(","):
            aname, aat = cur.attribute_name()
            if aname != "execution_thread":
                raise cur.error(
                    f"a computation takes only execution_thread after its body, not {aname}", aat
                )
            cur.expect("=", "after execution_thread")
            computation.execution_thread = self._value(
                COMPUTATION_ATTRIBUTE_SYNTAX["execution_thread"], "execution_thread"
            )
        for instruction, names in control:
            for pred_name, pred_at in names:
                pred = scope.get(pred_name)
                if pred is None:
                    raise cur.error(
                        f"control predecessor {pred_name} of {instruction.name} is not an "
                        f"instruction of computation {name}",
                        pred_at,
                    )
                instruction.add_control_predecessor(pred)
        self._check_parameters(computation, at, signature)
        return computation, is_entry, start

    def _signature(self) -> tuple[list[tuple[str, Shape, int]], Shape, int]:
        cur = self.cur
        at = cur.expect("(", "to open the computation signature")

        def parameter() -> tuple[str, Shape, int]:
            pname, pat = cur.name("a parameter name in the signature")
            cur.expect(":", f"after the parameter name {pname}")
            return pname, self._shape()[0], pat

        params = cur.comma_list(")", parameter, "to close the computation signature")
        cur.expect("->", "before the result shape of the signature")
        # The body's '{' follows the result shape; keep the shape reader from
        # taking it for a layout.
        start = cur.skip()
        body = _BODY_BRACE.search(self.text, start)
        piece = self.text[start : body.start() if body else len(self.text)]
        try:
            result, end = parse_shape_at(piece, 0)
        except ParseError as e:
            raise remap_error(e, piece, start, self.text) from None
        cur.pos = start + end
        return params, result, at

    def _check_parameters(
        self,
        computation: HloComputation,
        at: int,
        signature: tuple[list[tuple[str, Shape, int]], Shape, int] | None,
    ) -> None:
        numbers: dict[int, HloInstruction] = {}
        for instruction in computation.instructions:
            if instruction.opcode is HloOpcode.PARAMETER:
                number = instruction.parameter_number
                if number in numbers:
                    raise self.cur.error(
                        f"parameter number {number} is used by both {numbers[number].name} and "
                        f"{instruction.name}",
                        self.where[id(instruction)][2],
                    )
                numbers[number] = instruction
        missing = [n for n in range(len(numbers)) if n not in numbers]
        if missing:
            raise self.cur.error(
                f"computation {computation.name} has {len(numbers)} parameters but no "
                f"parameter({missing[0]}); numbers must be 0..{len(numbers) - 1}",
                at,
            )
        if signature is None:
            return
        params, result, sig_at = signature
        if len(params) != len(numbers):
            raise self.cur.error(
                f"the signature of {computation.name} lists {len(params)} parameters but the "
                f"body has {len(numbers)}",
                sig_at,
            )
        for i, (pname, shape, pat) in enumerate(params):
            actual = numbers[i].shape
            if not shape.compatible(actual):
                raise self.cur.error(
                    f"signature parameter {pname} has shape {shape.to_string(False)} but "
                    f"parameter({i}) {numbers[i].name} has {actual.to_string(False)}",
                    pat,
                )
        if not result.compatible(computation.root.shape):
            raise self.cur.error(
                f"the signature of {computation.name} returns {result.to_string(False)} but its "
                f"root {computation.root.name} is {computation.root.shape.to_string(False)}",
                sig_at,
            )

    # -- instructions -----------------------------------------------------------------
    def _instruction(
        self,
        scope: dict[str, HloInstruction],
        control: list[tuple[HloInstruction, list[tuple[str, int]]]],
    ) -> tuple[HloInstruction, bool, int]:
        cur = self.cur
        is_root = cur.eat_keyword("ROOT")
        name, name_at = cur.name("an instruction name")
        if name in scope:
            raise cur.error(f"instruction {name} is defined twice in this computation", name_at)
        cur.expect("=", f"after the instruction name {name}")
        shape, shape_at = self._shape()
        opname, opcode_at = cur.opcode()
        wrapped: HloOpcode | None = None
        try:
            opcode = HloOpcode.from_text(opname)
        except InvalidArgumentError as e:
            sugared = async_sugar.split_sugared_opcode(opname)
            if sugared is None:
                raise cur.error(str(e), opcode_at) from None
            opcode, wrapped = sugared
        paren_at = cur.expect("(", f"after the opcode {opname}")
        instruction = HloInstruction(opcode, shape, name=name)
        _OPERAND_READERS.get(opcode, _Parser._operands)(self, instruction, scope, paren_at)
        # Shorthand async-starts carry the wrapped op's attributes.
        attribute_opcode = wrapped if opcode is HloOpcode.ASYNC_START and wrapped else opcode
        attribute_at: dict[str, int] = {}
        previous = ""
        end = cur.pos
        while cur.eat(","):
            aname, aat = cur.attribute_name()
            if aname in attribute_at:
                raise cur.error(f"attribute {aname} is given twice on {name}", aat)
            cur.expect("=", f"after the attribute name {aname}")
            attribute_at[aname] = cur.skip()
            if aname == CONTROL_PREDECESSORS:
                control.append((instruction, self._name_list("a control predecessor")))
                instruction._control_after = previous
            elif _is_computation_attribute(attribute_opcode, aname):
                is_list = aname in COMPUTATION_LIST_ATTRIBUTES
                if cur.peek("{"):
                    names, is_list = self._name_list("a computation name"), True
                else:
                    names = [cur.name("a computation name")]
                instruction.attributes[aname] = _PendingComputations(names, is_list)
            else:
                instruction.attributes[aname] = self._value(
                    find_syntax(attribute_opcode, aname), f"attribute {aname}"
                )
            previous = aname
            end = cur.pos
        following = cur.skip()
        if (
            following < len(self.text)
            and self.text[following] != "}"
            and "\n" not in self.text[end:following]
        ):
            raise cur.error(
                f"expected ',' and an attribute, or the end of instruction {name}, "
                f"found {cur.found()}"
            )
        scope[name] = instruction
        self.where[id(instruction)] = (instruction, shape_at, opcode_at, attribute_at)
        if wrapped is not None:
            self._desugar_async(instruction, wrapped, opname, opcode_at, attribute_at)
        return instruction, is_root, name_at

    def _desugar_async(
        self,
        instruction: HloInstruction,
        wrapped: HloOpcode,
        opname: str,
        opcode_at: int,
        attribute_at: dict[str, int],
    ) -> None:
        """Turn ``op-start``/``op-update``/``op-done`` into async ops and a wrapper."""
        where = self.where[id(instruction)]
        if instruction.opcode is HloOpcode.ASYNC_START:
            try:
                root = async_sugar.wrap_start(instruction, wrapped)
            except InvalidArgumentError as e:
                raise self.cur.error(str(e), where[1]) from None
            self.generated.append(instruction.attributes["calls"])
            self.where[id(root)] = (root, where[1], opcode_at, attribute_at)
            return
        operand = instruction.operand(0) if instruction.operand_count == 1 else None
        callee = async_sugar.async_computation(operand) if operand is not None else None
        if callee is None or operand.opcode is HloOpcode.ASYNC_DONE:
            raise self.cur.error(
                f"{opname} takes one operand: the {wrapped.value}-start (or -update) it continues",
                opcode_at,
            )
        if callee.root.opcode is not wrapped:
            raise self.cur.error(
                f"{opname} continues a {callee.root.opcode.value}-start, not a "
                f"{wrapped.value}-start",
                opcode_at,
            )
        instruction.attributes = {"calls": callee, **instruction.attributes}

    def _value(self, syntax: AttributeSyntax | None, what: str) -> Any:
        """Read one ``name=`` value with ``syntax``; verbatim when there is no syntax."""
        expected = "a value" if syntax is None else syntax.description
        text, at = self.cur.raw_value(what, expected)
        if syntax is None:
            return RawAttribute(text)
        try:
            return syntax.parse(text)
        except ParseError as e:
            raise remap_error(e, text, at, self.text) from None
        except (InvalidArgumentError, ValueError) as e:
            raise self.cur.error(f"bad value for {what}: {e}", at) from None

    def _name_list(self, what: str) -> list[tuple[str, int]]:
        cur = self.cur
        cur.expect("{", f"to open the list of {what}s")
        return cur.comma_list("}", lambda: cur.name(what), f"to close the list of {what}s")

    def _operands(
        self, instruction: HloInstruction, scope: dict[str, HloInstruction], paren_at: int
    ) -> None:
        cur = self.cur

        def operand() -> None:
            start = cur.skip()
            declared = None
            if _SHAPE_START.match(self.text, start):
                declared, _ = self._shape()
            name, at = cur.name("an operand name")
            operand = scope.get(name)
            if operand is None:
                raise cur.error(
                    f"operand {name} of {instruction.name} is not defined before it in this "
                    f"computation",
                    at,
                )
            if declared is not None and not declared.compatible(operand.shape):
                raise cur.error(
                    f"operand {name} is written with shape {declared} but {name} has shape "
                    f"{operand.shape}",
                    start,
                )
            instruction.append_operand(operand)

        cur.comma_list(")", operand, f"to close the operands of {instruction.name}")
        arity = instruction.opcode.arity
        if arity is not None and arity != instruction.operand_count:
            raise cur.error(
                f"{instruction.opcode.value} takes {arity} operand{'s' if arity != 1 else ''}, "
                f"but {instruction.name} has {instruction.operand_count}",
                paren_at,
            )

    def _parameter_number(
        self, instruction: HloInstruction, scope: dict[str, HloInstruction], paren_at: int
    ) -> None:
        number, at = self.cur.integer("the parameter number")
        if number < 0:
            raise self.cur.error(f"parameter number {number} is negative", at)
        instruction.parameter_number = number
        self.cur.expect(")", "after the parameter number")

    def _literal(
        self, instruction: HloInstruction, scope: dict[str, HloInstruction], paren_at: int
    ) -> None:
        cur = self.cur
        start = cur.skip()
        try:
            instruction.literal, end = parse_literal_at(self.text, start, instruction.shape)
        except InvalidArgumentError as e:
            raise cur.error(f"bad constant for shape {instruction.shape}: {e}", start) from None
        except UnimplementedError:
            # A literal xlapy cannot hold (of an unbounded dynamic shape): keep its text.
            cur.pos = paren_at
            body = cur.balanced("(", ")")
            instruction.literal = RawLiteral(body[1:-1].strip(), instruction.shape)
            return
        cur.pos = end
        cur.expect(")", f"to close the constant of {instruction.name}")

    # -- references between computations -------------------------------------------------
    def _resolve_called_computations(self) -> None:
        for instruction, _, _, _ in self.where.values():
            for key, value in list(instruction.attributes.items()):
                if not isinstance(value, _PendingComputations):
                    continue
                resolved = []
                for name, at in value.names:
                    callee = self.computations.get(name)
                    if callee is None:
                        near = _near(name, self.computations)
                        raise self.cur.error(
                            f"{key} of {instruction.name} names computation {name}, which is not "
                            f"defined{near}",
                            at,
                        )
                    resolved.append(callee)
                instruction.set_attribute(key, resolved if value.is_list else resolved[0])


def _is_computation_attribute(opcode: HloOpcode, name: str) -> bool:
    return name in opcode.called_computation_attributes or name in COMPUTATION_ATTRIBUTES


def _near(name: str, names: Any) -> str:
    close = difflib.get_close_matches(name, list(names), n=3)
    return f"; did you mean {' or '.join(close)}?" if close else ""


# Header attributes read into the typed fields of ModuleConfig (with MODULE_ATTRIBUTE_SYNTAX);
# the others are kept verbatim in ModuleConfig.extras.
_CONFIG_FIELDS = frozenset(
    {
        "is_scheduled",
        "entry_computation_layout",
        "input_output_alias",
        "buffer_donor",
        "replica_count",
        "num_partitions",
        "frontend_attributes",
    }
)

_OPERAND_READERS: dict[HloOpcode, Callable[..., None]] = {
    HloOpcode.PARAMETER: _Parser._parameter_number,
    HloOpcode.CONSTANT: _Parser._literal,
}


# -- shape checks ---------------------------------------------------------------------


def _check_get_tuple_element(
    p: _Parser, instruction: HloInstruction, shape_at: int, attribute_at: dict[str, int]
) -> None:
    operand = instruction.operand(0)
    if "index" not in instruction.attributes:
        raise p.cur.error(
            f"get-tuple-element {instruction.name} needs an index= attribute", shape_at
        )
    index_at = attribute_at["index"]
    try:
        index = instruction.tuple_index
    except (TypeError, ValueError):
        raise p.cur.error("the index of get-tuple-element must be an integer", index_at) from None
    if not operand.shape.is_tuple:
        raise p.cur.error(
            f"get-tuple-element {instruction.name} reads from {operand.name}, whose shape "
            f"{operand.shape} is not a tuple",
            shape_at,
        )
    elements = operand.shape.tuple_shapes
    if not 0 <= index < len(elements):
        raise p.cur.error(
            f"index {index} is out of range: {operand.name} is a tuple of {len(elements)} "
            f"element{'s' if len(elements) != 1 else ''}",
            index_at,
        )
    if not elements[index].compatible(instruction.shape):
        raise p.cur.error(
            f"get-tuple-element {instruction.name} has shape {instruction.shape} but element "
            f"{index} of {operand.name} is {elements[index]}",
            shape_at,
        )


def _check_tuple(
    p: _Parser, instruction: HloInstruction, shape_at: int, attribute_at: dict[str, int]
) -> None:
    expected = Shape.tuple(op.shape for op in instruction.operands)
    if not expected.compatible(instruction.shape):
        raise p.cur.error(
            f"tuple {instruction.name} has shape {instruction.shape} but its operands make "
            f"{expected}",
            shape_at,
        )


_SCALAR_OPERANDS_ALLOWED = frozenset({HloOpcode.CLAMP, HloOpcode.SELECT})


def _check_elementwise(
    p: _Parser, instruction: HloInstruction, shape_at: int, attribute_at: dict[str, int]
) -> None:
    shape = instruction.shape
    if not shape.is_array:
        return
    for operand in instruction.operands:
        s = operand.shape
        if not s.is_array or s.dimensions == shape.dimensions:
            continue
        if not s.dimensions and instruction.opcode in _SCALAR_OPERANDS_ALLOWED:
            continue
        raise p.cur.error(
            f"{instruction.opcode.value} is elementwise, so {instruction.name} must have the "
            f"dimensions of its operands, but it is {shape} and operand {operand.name} is {s}",
            shape_at,
        )


_STRUCTURAL_CHECKS: dict[HloOpcode, Callable[..., None]] = {
    HloOpcode.GET_TUPLE_ELEMENT: _check_get_tuple_element,
    HloOpcode.TUPLE: _check_tuple,
}


def _check_instruction(
    p: _Parser,
    instruction: HloInstruction,
    shape_at: int,
    opcode_at: int,
    attribute_at: dict[str, int],
) -> None:
    check = _STRUCTURAL_CHECKS.get(instruction.opcode)
    if check is None and instruction.opcode.is_elementwise:
        check = _check_elementwise
    if check is not None:
        check(p, instruction, shape_at, attribute_at)
    if not has_rule(instruction.opcode) or any(
        isinstance(v, RawAttribute) for v in instruction.attributes.values()
    ):
        # An attribute kept as raw text has no meaning to shape rules.
        return
    try:
        inferred = infer_instruction_shape(instruction)
    except (UnimplementedError, NotImplementedError):
        return
    except InvalidArgumentError as e:
        raise p.cur.error(str(e), opcode_at) from None
    if not inferred.compatible(instruction.shape):
        raise p.cur.error(
            f"{instruction.name} is written with shape {instruction.shape} but its operands and "
            f"attributes give {inferred}",
            shape_at,
        )


__all__ = ["parse_computation", "parse_module"]
