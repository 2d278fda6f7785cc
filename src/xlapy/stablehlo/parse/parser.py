"""StableHLO text in: ``parse_mlir`` reads MLIR modules into ``stablehlo.ast``.

It reads what ``jax.jit(f).lower(x).as_text()`` prints (pretty form, ``loc``
annotations and ``#loc`` definitions included), the generic form MLIR prints
with ``print_generic_op_form`` (``"builtin.module"``, ``"func.func"``,
``"stablehlo.add"(...)``), and the StableHLO conformance tests with their
``// -----`` sections and ``check.*`` / ``interpreter.*`` ops. Grammar::

    file      ::= (section ('// -----' section)*)
    section   ::= (alias-def | module | function)*
    module    ::= 'module' [@name] ['attributes' attr-dict] '{' function* '}'
                | '"builtin.module"' '()' [<{props}>] '({' function* '})' [attr-dict] ':' '() -> ()'
    function  ::= 'func.func' [visibility] @name '(' args ')' ['->' results]
                  ['attributes' attr-dict] ['{' op* '}']
                | '"func.func"' generic op with sym_name / function_type / arg_attrs / res_attrs
    op        ::= [results '='] (pretty-op | generic-op) [loc(...)]

Conventions the lowering relies on (see ``ast`` for the value types):

* Attributes have their generic names and values whatever form the op was
  written in: a pretty ``dims = [1, 0]`` becomes ``permutation = (1, 0)`` as
  ``array<i64: 1, 0>`` would; ``precision = [DEFAULT]`` becomes
  ``precision_config = [EnumAttr("precision", "DEFAULT")]``; a convolution's
  ``window = {pad = [[1, 1]]}`` becomes ``padding`` as a ``DenseElements`` of
  ``tensor<1x2xi64>``; ``#stablehlo.dot`` / ``gather`` / ``scatter`` /
  ``channel_handle`` / ``output_operand_alias`` / ``result_accuracy`` /
  ``dot_algorithm`` are ``DialectAttr`` with every field (omitted ones filled
  with their defaults, dimension lists as Python lists); ``#stablehlo.conv``
  and the pretty ``dim_numbers`` are ``ConvDimensionNumbers``;
  ``#stablehlo.type_extensions<bounds = [4, ?]>`` has ``bounds = [4, None]``.
* A custom call's ``call_target_name`` is a ``SymbolRef`` in both forms.
* Attributes with a declared default (``has_side_effect``, ``indices_are_sorted``,
  a sort's ``dimension = -1``, ``result_accuracy``, a check's ``tolerance``...)
  are filled in when absent (``formats.OP_DEFAULTS``): MLIR's pretty printer
  elides them when they equal the default and its generic printer does not.
* Values are otherwise as written: an older producer's ``permutation =
  dense<[1, 0]> : tensor<2xi64>`` stays a ``DenseElements`` where current
  StableHLO's ``array<i64: 1, 0>`` is a tuple.
* Integers and floats lose their MLIR type (``1 : i32`` is ``1``), ``dense``
  of ``index`` tensors becomes an s64 literal, and a ``dense`` of an element
  type xlapy has no dtype for (f6, quantized) stays an ``OpaqueAttr``.
* The compact ``reduce ... applies stablehlo.add`` builds the region MLIR
  builds: one block of two scalar arguments applying the op and returning it.
* Results nobody names (``interpreter.print %x : T`` has one) get fresh names
  ``%__N`` so that ``results`` and ``result_types`` always line up.
* Shardy meshes (``sdy.mesh @m = <["x"=2]>``) are kept in the module's attributes as
  ``sdy.meshes`` (name -> ``SdyMesh``), and ``#sdy.sharding`` attributes are
  ``SdySharding`` values (``parse/sdy.py``).
* Only ``func.func`` (and ``sdy.mesh``) may appear in a module; other module-level ops and
  successor blocks raise ``UnimplementedError``. ``stablehlo.if``/``case`` and
  the collectives have no pretty form in StableHLO and are read generically.
"""

from __future__ import annotations

import re

from ...errors import InvalidArgumentError, UnimplementedError
from ..ast import Function, FunctionType, Module, Region
from .attrs import AttrMixin
from .lexer import SSA_USE, Scanner
from .ops import OpMixin
from .sdy import parse_mesh_op
from .types import TypeMixin

# Like MLIR, a line holding the marker anywhere splits (even "// // -----").
_SPLIT_MARKER = re.compile(r"^[^\n]*// -----[^\n]*$", re.M)
_ALIAS_NAME = re.compile(r"[#!][A-Za-z_][A-Za-z0-9_$.]*")
_OP_START = re.compile(r'"?([A-Za-z_][A-Za-z0-9_$.]*)')
_VISIBILITIES = ("public", "private", "nested")


def _section_bounds(text: str) -> list[tuple[int, int]]:
    bounds = []
    start = 0
    for m in _SPLIT_MARKER.finditer(text):
        bounds.append((start, m.start()))
        start = m.end() + 1 if text.startswith("\n", m.end()) else m.end()
    bounds.append((start, len(text)))
    return bounds


def split_sections(text: str) -> list[tuple[int, str]]:
    """The ``// -----`` separated sections of a file, each with its first line's number
    (1-based), so that whoever parses a section alone can still report file lines."""
    return [(text.count("\n", 0, a) + 1, text[a:b]) for a, b in _section_bounds(text)]


def parse_mlir(text: str) -> list[Module]:
    """Every module of an MLIR file: one per ``// -----`` section (a section of bare
    ``func.func`` is one module without a name; one of comments only, an empty module).

    Raises ``ParseError`` (line, column, caret) for malformed text and
    ``UnimplementedError`` for well-formed constructs xlapy cannot represent.
    """
    if not isinstance(text, str):
        raise InvalidArgumentError(f"parse_mlir needs a string, got {type(text).__name__}")
    return [_Parser(text, a, b).parse_section() for a, b in _section_bounds(text)]


class _Parser(OpMixin, AttrMixin, TypeMixin, Scanner):
    def __init__(self, text: str, start: int, end: int) -> None:
        Scanner.__init__(self, text, start, end)
        self.scopes: list[dict] = [{}]
        self.dialects: list[str] = ["func"]
        self.attr_aliases: dict[str, object] = {}
        self.type_aliases: dict[str, object] = {}
        self.fresh_count = 0

    # -- top level -----------------------------------------------------------------------
    def parse_section(self) -> Module:
        section_line, _ = self.line_column(self.skip())
        module: Module | None = None
        functions: list[Function] = []
        while self.skip() < self.end:
            pos = self.pos
            if self._parse_top_level_extra():
                continue
            if self.at_word("module") or self.at('"builtin.module"'):
                if module is not None or functions:
                    raise self.error("a section holds one module (or bare functions)", pos)
                module = self._parse_module()
            elif self.at_word("func.func") or self.at('"func.func"'):
                if module is not None:
                    raise self.error("a function after the module: put it inside", pos)
                functions.append(self._parse_function())
            else:
                raise self.error(f"expected 'module' or 'func.func', found {self.found()}")
        if module is not None:
            return module
        line = functions[0].line if functions else section_line
        return Module(None, {}, functions, line)

    def _parse_top_level_extra(self) -> bool:
        """Alias definitions (``#loc3 = loc(...)``, ``!t = type``) and resource blocks."""
        pos = self.skip()
        if self.at("{-#"):
            close = self.text.find("#-}", pos, self.end)
            if close < 0:
                raise self.error("unterminated '{-#' block", pos)
            self.pos = close + 3
            return True
        m = _ALIAS_NAME.match(self.text, pos, self.end)
        if m is None:
            return False
        self.pos = m.end()
        if not self.eat("="):
            self.pos = pos
            return False
        name = m.group(0)
        if name.startswith("#"):
            if self.at_word("loc"):
                self.skip_location()
                return True
            self.attr_aliases[name] = self.parse_attribute()
        else:
            self.type_aliases[name] = self.parse_type()
        return True

    def _parse_module(self) -> Module:
        start = self.skip()
        line, _ = self.line_column(start)
        if self.eat('"builtin.module"'):
            self.expect("(")
            self.expect(")", "')': a module takes no operands")
            attrs: dict = {}
            if self.eat("<"):
                attrs.update(self.parse_attr_dict())
                self.expect(">")
            self.expect("(", "'(' before the module's region")
            functions = self._parse_module_body(attrs)
            self.expect(")", "')' after the module's region")
            if self.at("{"):
                attrs.update(self.parse_attr_dict())
            self.expect(":")
            inputs, outputs = self.parse_function_type()
            if inputs or outputs:
                raise self.error("a module has the type () -> ()")
        else:
            self.expect_word("module")
            name_attr = self.parse_symbol() if self.at("@") else None
            attrs = self.parse_attr_dict() if self.eat_word("attributes") else {}
            if name_attr is not None:
                attrs["sym_name"] = name_attr.name
            functions = self._parse_module_body(attrs)
        self.skip_location()
        name = attrs.pop("sym_name", None)
        attrs.pop("sym_visibility", None)
        return Module(name, attrs, functions, line)

    def _parse_module_body(self, attrs: dict) -> list[Function]:
        """The functions; Shardy meshes (``sdy.mesh``) go to ``attrs["sdy.meshes"]``."""
        self.expect("{", "'{' starting the module body")
        functions: list[Function] = []
        while not self.at("}"):
            pos = self.skip()
            if pos >= self.end:
                raise self.error("expected '}' closing the module, found end of input")
            if self.at_word("func.func") or self.at('"func.func"'):
                functions.append(self._parse_function())
            elif self.at_word("sdy.mesh") or self.at('"sdy.mesh"'):
                name, mesh = parse_mesh_op(self)
                meshes = attrs.setdefault("sdy.meshes", {})
                if name in meshes:
                    raise self.error(f"redefinition of mesh @{name}", pos)
                meshes[name] = mesh
            elif self.at_word("module") or self.at('"builtin.module"'):
                line, _ = self.line_column(pos)
                raise UnimplementedError(f"line {line}: nested modules are not supported")
            else:
                m = _OP_START.match(self.text, pos, self.end)
                if m is None or "." not in m.group(1):
                    raise self.error(f"expected 'func.func' or '}}', found {self.found()}")
                line, _ = self.line_column(pos)
                raise UnimplementedError(
                    f"line {line}: module-level op '{m.group(1)}' is not supported "
                    "(a module may only hold functions)"
                )
        self.expect("}")
        return functions

    # -- functions -----------------------------------------------------------------------
    def _parse_function(self) -> Function:
        start = self.skip()
        line, _ = self.line_column(start)
        saved_scopes, saved_dialects = self.scopes, self.dialects
        self.scopes, self.dialects = [{}], ["func"]  # a function sees nothing from outside
        try:
            if self.at('"'):
                return self._generic_function(line)
            return self._pretty_function(line)
        finally:
            self.scopes, self.dialects = saved_scopes, saved_dialects

    def _pretty_function(self, line: int) -> Function:
        self.expect_word("func.func")
        visibility = "public"
        for v in _VISIBILITIES:
            if self.eat_word(v):
                visibility = v
                break
        name = self.parse_symbol().name
        self.expect("(", "'(' starting the arguments")
        args: list = []
        arg_attrs: list[dict] = []
        seen: set[str] = set()
        if not self.at(")"):
            while True:
                arg_pos = self.skip()
                arg_name = ""
                if self.at("%"):
                    m = self.match(SSA_USE)
                    if m is None or m.group(2) is not None:
                        raise self.error(f"expected an argument name, found {self.found()}")
                    arg_name = "%" + m.group(1)
                    if arg_name in seen:
                        raise self.error(f"redefinition of {arg_name}", arg_pos)
                    seen.add(arg_name)
                    self.expect(":", "':' and the argument type")
                elif seen:
                    raise self.error(f"expected an argument name, found {self.found()}")
                args.append((arg_name, self.parse_type()))
                arg_attrs.append(self.parse_attr_dict() if self.at("{") else {})
                self.skip_location()
                if not self.eat(","):
                    break
        self.expect(")", "',' or ')' in the arguments")
        if seen and len(seen) != len(args):
            raise self.error("either every argument has a name or none does")
        results, res_attrs = [], []
        if self.eat("->"):
            if self.eat("("):
                if not self.at(")"):
                    while True:
                        results.append(self.parse_type())
                        res_attrs.append(self.parse_attr_dict() if self.at("{") else {})
                        self.skip_location()
                        if not self.eat(","):
                            break
                self.expect(")", "',' or ')' in the result types")
            else:
                results.append(self.parse_type())
                res_attrs.append({})
        attributes = self.parse_attr_dict() if self.eat_word("attributes") else {}
        body = Region()
        if self.at("{"):
            if not seen and args:
                raise self.error("a function with a body names its arguments (%name: type)")
            body = self.parse_region(entry_args=args, dialect="func")
        self.skip_location()
        return Function(
            name, visibility, args, arg_attrs, results, res_attrs, body, line, attributes
        )

    def _generic_function(self, line: int) -> Function:
        start = self.pos
        op = self.parse_operation()
        if op.name != "func.func":
            raise self.error(f"expected a function, found '{op.name}'", start)
        attrs = dict(op.attributes)
        name = attrs.pop("sym_name", None)
        ftype = attrs.pop("function_type", None)
        if not isinstance(name, str) or not isinstance(ftype, FunctionType):
            raise self.error("a generic func.func needs sym_name and function_type", start)
        visibility = attrs.pop("sym_visibility", "public")
        inputs, results = list(ftype.inputs), list(ftype.results)
        arg_attrs = attrs.pop("arg_attrs", None) or [{} for _ in inputs]
        res_attrs = attrs.pop("res_attrs", None) or [{} for _ in results]
        if len(arg_attrs) != len(inputs) or len(res_attrs) != len(results):
            raise self.error("arg_attrs / res_attrs need one dictionary per argument/result", start)
        if len(op.regions) > 1:
            raise self.error("a function has one region", start)
        body = op.regions[0] if op.regions else Region()
        if body.blocks:
            args = list(body.blocks[0].arguments)
            if [t for _, t in args] != inputs:
                raise self.error("the entry block's arguments differ from function_type", start)
        else:
            args = [("", t) for t in inputs]
        return Function(
            name, visibility, args, list(arg_attrs), results, list(res_attrs), body, line, attrs
        )


__all__ = ["parse_mlir", "split_sections"]
