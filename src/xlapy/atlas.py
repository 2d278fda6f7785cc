"""The op atlas: where every layer handles each opcode (``xlapy ops [NAME]``).

An opcode passes through up to six places: its shape rule, its builder
function(s) in ``xlapy.ops``, its evaluator kernel, the StableHLO lowerings that
produce it, the CPU backend's path for it, and the tests that mention it. The
atlas reads those from the registration tables themselves (``RULES``,
``KERNELS``, ``LOWERINGS``, ``CPU_PATHS``) and from the source of ``xlapy.ops``
(which builder emits which opcode), never from a hand-kept list, so it cannot
go stale. :func:`family_offences` uses the same data to check that every layer
files an opcode under a module named after its family.
"""

from __future__ import annotations

import ast
import inspect
import re
import sys
import textwrap
import types
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from . import ops
from .builder import XlaBuilder
from .errors import InvalidArgumentError
from .evaluator import EVALUATOR_OPCODES, KERNELS
from .opcode import HloOpcode
from .shape_inference import RULES
from .stablehlo import LOWERINGS

# The CPU backend's capability table. The atlas still maps every other layer without it
# (a backend mid-change, or one whose table is not written yet), saying why it is missing.
try:
    from .backends.cpu.capabilities import CPU_PATHS
except ImportError as error:
    CPU_PATHS = None
    CPU_MISSING = (
        "capability table not found"
        if error.name == "xlapy.backends.cpu.capabilities"
        else f"CPU backend failed to import: {error}"
    )
else:
    CPU_MISSING = ""

PACKAGE_DIR = Path(__file__).resolve().parent
# In a checkout (src/xlapy), the repository holds the tests; an installed package has none.
REPOSITORY = PACKAGE_DIR.parents[1]
TESTS_DIR = REPOSITORY / "tests" if (REPOSITORY / "pyproject.toml").is_file() else None

DIALECTS = ("stablehlo.", "mhlo.", "chlo.")


@dataclass(frozen=True)
class Site:
    """A function that handles an opcode: what it is called and where its code is."""

    name: str
    module: str
    path: str  # relative to the repository (checkout) or to site-packages
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line} {self.name}"

    @property
    def short(self) -> str:
        return f"{Path(self.path).name}:{self.line}"

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "module": self.module, "path": self.path, "line": self.line}


@dataclass(frozen=True)
class CpuEntry:
    kind: str  # "native" | "expander" | "none"
    handler: Site | None
    predicate: Site | None
    via: Site | str | None
    rewritten_by: tuple[Site | str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        def one(x: Site | str | None) -> Any:
            return x.as_json() if isinstance(x, Site) else x

        return {
            "kind": self.kind,
            "handler": one(self.handler),
            "predicate": one(self.predicate),
            "via": one(self.via),
            "rewritten_by": [one(x) for x in self.rewritten_by],
        }


@dataclass
class OpEntry:
    opcode: HloOpcode
    shape_rule: Site | None = None
    builders: list[Site] = field(default_factory=list)
    kernel: Site | None = None
    lowerings: list[Site] = field(default_factory=list)  # named after the opcode
    emitted_by: list[Site] = field(default_factory=list)  # others that call its builder
    cpu: CpuEntry | None = None
    tests: list[str] | None = None  # None: no tests/ folder (an installed package)

    @property
    def family(self) -> str:
        return self.opcode.family

    def as_json(self) -> dict[str, Any]:
        return {
            "opcode": self.opcode.value,
            "family": self.family,
            "shape_rule": self.shape_rule.as_json() if self.shape_rule else None,
            "builders": [s.as_json() for s in self.builders],
            "kernel": self.kernel.as_json() if self.kernel else None,
            "evaluator_supplies": self.opcode in EVALUATOR_OPCODES,
            "stablehlo": [s.as_json() for s in self.lowerings],
            "stablehlo_emitted_by": [s.as_json() for s in self.emitted_by],
            "cpu": self.cpu.as_json() if self.cpu else None,
            "tests": self.tests,
        }


# -- where a function is ---------------------------------------------------------------------


def _display_path(path: str) -> str:
    resolved = Path(path).resolve()
    for base in (REPOSITORY, PACKAGE_DIR.parent):
        if resolved.is_relative_to(base):
            return resolved.relative_to(base).as_posix()
    return str(resolved)


def site_of(fn: Any, name: str | None = None, line: int | None = None) -> Site | None:
    """Where ``fn`` (a function or class, through any decorators) is defined."""
    target = inspect.unwrap(fn) if callable(fn) else fn
    try:
        path = inspect.getsourcefile(target)
        if line is None:
            line = inspect.getsourcelines(target)[1]
    except (TypeError, OSError):
        return None
    if path is None:
        return None
    label = name or getattr(target, "__qualname__", getattr(target, "__name__", repr(target)))
    return Site(label, target.__module__, _display_path(path), line)


@cache
def _module_tree(module_name: str) -> ast.Module:
    return ast.parse(inspect.getsource(sys.modules[module_name]))


def _opcode_aliases(tree: ast.Module) -> set[str]:
    """Names that ``HloOpcode`` goes by in a module (``from ..opcode import HloOpcode as Op``)."""
    names = {"HloOpcode"}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            names.update(a.asname or a.name for a in node.names if a.name == "HloOpcode")
    return names


def _opcode_refs(node: ast.AST, aliases: set[str]) -> list[HloOpcode]:
    found = []
    for child in ast.walk(node):
        if (
            isinstance(child, ast.Attribute)
            and isinstance(child.value, ast.Name)
            and child.value.id in aliases
            and child.attr in HloOpcode.__members__
        ):
            found.append(HloOpcode[child.attr])
    return found


def _private_names(node: ast.AST) -> set[str]:
    """Private module-level names a function uses (helpers it calls or passes on)."""
    return {c.id for c in ast.walk(node) if isinstance(c, ast.Name) and c.id.startswith("_")}


@cache
def _builder_method_opcodes() -> dict[str, tuple[HloOpcode, ...]]:
    """The opcodes each ``XlaBuilder`` method names (``add_constant`` adds a constant);
    ``add_instruction`` adds whatever it is given, so it names none."""
    tree = _module_tree(XlaBuilder.__module__)
    aliases = _opcode_aliases(tree)
    methods = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == XlaBuilder.__name__:
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    methods[item.name] = tuple(dict.fromkeys(_opcode_refs(item, aliases)))
    return methods


def _method_opcodes(node: ast.AST) -> list[HloOpcode]:
    methods = _builder_method_opcodes()
    found: list[HloOpcode] = []
    for call in ast.walk(node):
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute):
            found.extend(methods.get(call.func.attr, ()))
    return found


@cache
def _builder_tables(module_name: str) -> dict[str, list[tuple[HloOpcode, int]]]:
    """``{"Add": Op.ADD, ...}`` tables of a module: the builders it generates in a loop."""
    tree = _module_tree(module_name)
    aliases = _opcode_aliases(tree)
    tables: dict[str, list[tuple[HloOpcode, int]]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Dict):
            continue
        for key, value in zip(node.keys, node.values, strict=True):
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                for opcode in _opcode_refs(value, aliases):
                    tables.setdefault(key.value, []).append((opcode, key.lineno))
    return tables


def _builder_opcodes(name: str, fn: Callable[..., Any]) -> tuple[list[HloOpcode], int | None]:
    """The opcodes the public builder ``name`` adds, read from its module's source: the
    ``Op.X`` it (and the private helpers of its module that it uses, and the ``XlaBuilder``
    methods it calls) names, or its entry in a ``{"Name": Op.X}`` table when it is
    generated; with the line of that entry."""
    inner = inspect.unwrap(fn)
    module_name = inner.__module__
    tree = _module_tree(module_name)
    aliases = _opcode_aliases(tree)
    defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    node = defs.get(name)
    if node is not None:
        found: list[HloOpcode] = []
        seen: set[str] = set()
        todo = [node]
        while todo:
            current = todo.pop()
            found.extend(_opcode_refs(current, aliases))
            found.extend(_method_opcodes(current))
            for called in sorted(_private_names(current)):
                if called in defs and called not in seen:
                    seen.add(called)
                    todo.append(defs[called])
        return list(dict.fromkeys(found)), None
    table = _builder_tables(module_name).get(name, [])
    closure = [
        cell.cell_contents
        for cell in (inner.__closure__ or ())
        if isinstance(cell.cell_contents, HloOpcode)
    ]
    opcodes = list(dict.fromkeys([op for op, _ in table] + closure))
    return opcodes, table[0][1] if table else None


@cache
def builder_map() -> dict[str, tuple[Site, tuple[HloOpcode, ...]]]:
    """Every public function of ``xlapy.ops`` with the opcodes it adds."""
    result = {}
    for name in ops.__all__:
        fn = getattr(ops, name)
        if not isinstance(fn, types.FunctionType):
            continue
        opcodes, line = _builder_opcodes(name, fn)
        site = site_of(fn, f"ops.{name}", line)
        if site is not None:
            result[name] = (site, tuple(opcodes))
    return result


# -- StableHLO lowerings ---------------------------------------------------------------------


def _lowering_builders(fn: Callable[..., Any], builders: Mapping[str, Any]) -> set[str]:
    """Names of the ``xlapy.ops`` builders a lowering calls (directly or held in its closure)."""
    inner = inspect.unwrap(fn)
    by_identity = {id(getattr(ops, name)): name for name in builders}
    found = {
        by_identity[id(cell.cell_contents)]
        for cell in (inner.__closure__ or ())
        if id(cell.cell_contents) in by_identity
    }
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(inner)))
    except (OSError, TypeError, SyntaxError):
        return found
    module_globals = getattr(inner, "__globals__", {})
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if module_globals.get(node.value.id) is ops and node.attr in builders:
                found.add(node.attr)
        elif isinstance(node, ast.Name) and id(module_globals.get(node.id)) in by_identity:
            found.add(by_identity[id(module_globals[node.id])])
    return found


def opcode_of_lowering(name: str) -> HloOpcode | None:
    """The opcode a lowering is named after: ``stablehlo.dynamic_slice`` -> dynamic-slice."""
    for prefix in DIALECTS:
        if name.startswith(prefix):
            text = name[len(prefix) :].replace("_", "-")
            try:
                return HloOpcode(text)
            except ValueError:
                return None
    return None


def _dialect_order(name: str) -> tuple[int, str]:
    prefix = name.split(".", 1)[0] + "."
    return (DIALECTS.index(prefix) if prefix in DIALECTS else len(DIALECTS), name)


@cache
def lowering_map() -> dict[str, tuple[Site, HloOpcode | None, tuple[HloOpcode, ...]]]:
    """Every lowering function, by its op names (``stablehlo.gather, mhlo.gather`` share one):
    its site, the opcode it is named after, the opcodes of the builders it calls."""
    builders = builder_map()
    names_of: dict[int, list[str]] = {}
    functions: dict[int, Callable[..., Any]] = {}
    for name, fn in LOWERINGS.items():
        names_of.setdefault(id(fn), []).append(name)
        functions[id(fn)] = fn
    result = {}
    for key, names in names_of.items():
        names.sort(key=_dialect_order)
        label = ", ".join(names)
        fn = functions[key]
        site = site_of(fn, label)
        if site is None:
            continue
        emitted: list[HloOpcode] = []
        for builder in sorted(_lowering_builders(fn, builders)):
            emitted.extend(builders[builder][1])
        named = next((op for op in map(opcode_of_lowering, names) if op is not None), None)
        result[label] = (site, named, tuple(dict.fromkeys(emitted)))
    return dict(sorted(result.items(), key=lambda item: _dialect_order(item[0])))


# -- CPU paths -------------------------------------------------------------------------------


def _site_or_text(value: Any) -> Site | str | None:
    if value is None:
        return None
    if callable(value):
        return site_of(value) or repr(value)
    return str(value)


def cpu_entry(opcode: HloOpcode) -> CpuEntry | None:
    if CPU_PATHS is None or opcode not in CPU_PATHS:
        return None
    path = CPU_PATHS[opcode]
    handler = getattr(path, "handler", None)
    predicate = getattr(path, "predicate", None)
    return CpuEntry(
        str(getattr(path, "kind", "?")),
        site_of(handler) if callable(handler) else None,
        site_of(predicate) if callable(predicate) else None,
        _site_or_text(getattr(path, "via", None)),
        tuple(_site_or_text(c) for c in getattr(path, "rewritten_by", ())),
    )


# -- tests -----------------------------------------------------------------------------------

_HLO_CALL = re.compile(r"(?<![\w.-])([a-z][a-z0-9-]*)\(")
_DIALECT_OP = re.compile(r"\b(?:stablehlo|mhlo)\.([a-z][a-z0-9_]*)")
_BUILDER_CALL = re.compile(r"(?:\bops\.|(?<![\w.]))([A-Z]\w*)\b")


@cache
def test_file_words() -> dict[str, tuple[frozenset[str], frozenset[str], frozenset[str]]] | None:
    """Per test file: the HLO op names, StableHLO op names and builder names it mentions."""
    if TESTS_DIR is None or not TESTS_DIR.is_dir():
        return None
    words = {}
    for path in sorted(TESTS_DIR.rglob("test_*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        words[path.relative_to(REPOSITORY).as_posix()] = (
            frozenset(_HLO_CALL.findall(text)),
            frozenset(_DIALECT_OP.findall(text)),
            frozenset(_BUILDER_CALL.findall(text)),
        )
    return words


def tests_of(opcode: HloOpcode, builder_names: Iterable[str]) -> list[str] | None:
    words = test_file_words()
    if words is None:
        return None
    text = opcode.value
    dialect = text.replace("-", "_")
    names = set(builder_names)
    return [
        path
        for path, (hlo, mlir, builders) in words.items()
        if text in hlo or dialect in mlir or names & builders
    ]


# -- the atlas -------------------------------------------------------------------------------


@cache
def atlas() -> dict[HloOpcode, OpEntry]:
    """An entry for every opcode of ``HloOpcode``."""
    entries = {op: OpEntry(op) for op in HloOpcode}
    for opcode, fn in RULES.items():
        entries[opcode].shape_rule = site_of(fn)
    for opcode, fn in KERNELS.items():
        entries[opcode].kernel = site_of(fn)
    builder_names: dict[HloOpcode, list[str]] = {op: [] for op in HloOpcode}
    for name, (site, opcodes) in builder_map().items():
        for opcode in opcodes:
            entries[opcode].builders.append(site)
            builder_names[opcode].append(name)
    for site, named, emitted in lowering_map().values():
        if named is not None:
            entries[named].lowerings.append(site)
        else:
            for opcode in emitted:
                entries[opcode].emitted_by.append(site)
    for opcode, entry in entries.items():
        entry.cpu = cpu_entry(opcode)
        entry.tests = tests_of(opcode, builder_names[opcode])
    return entries


def lookup(name: str) -> HloOpcode:
    """The opcode ``name`` means: its HLO text, an ``xlapy.ops`` builder adding only it, or
    an enum member name (``GATHER``); an error suggesting close matches otherwise."""
    try:
        return HloOpcode(name)
    except ValueError:
        pass
    builder = builder_map().get(name)
    if builder is not None and len(builder[1]) == 1:
        return builder[1][0]
    if name in HloOpcode.__members__:
        return HloOpcode[name]
    try:
        return HloOpcode.from_text(name)
    except InvalidArgumentError as e:
        near = [n for n in builder_map() if n.lower() == name.lower()]
        if near:
            raise InvalidArgumentError(f"{e} (or the builder {near[0]!r}?)") from None
        raise


def family_offences() -> list[tuple[str, HloOpcode, Site]]:
    """(layer, opcode, site) where a layer files an opcode in a module not named after the
    opcode's family (``<family>`` or ``<family>_<something>``): shape rules, builders,
    evaluator kernels and StableHLO lowerings. CPU handlers are left out: many opcodes
    share one generic handler (the elemental emitter, the fallback). So are ``chlo.*``
    lowerings: chlo is a dialect of composite ops (built from ``lib.math``), filed
    together in ``stablehlo/lower/chlo.py`` whatever HLO opcode shares their name."""

    def named_for(module: str, family: str) -> bool:
        last = module.rsplit(".", 1)[-1]
        return last == family or last.startswith(family + "_")

    found = []
    for opcode, entry in atlas().items():
        family = opcode.family
        places: list[tuple[str, Site]] = []
        if entry.shape_rule:
            places.append(("shape_inference", entry.shape_rule))
        if entry.kernel:
            places.append(("evaluator", entry.kernel))
        places.extend(("stablehlo", s) for s in entry.lowerings if not s.name.startswith("chlo."))
        for site in entry.builders:
            # A builder that adds several opcodes belongs to the family of one of them.
            opcodes = builder_map()[site.name.removeprefix("ops.")][1]
            if not any(named_for(site.module, op.family) for op in opcodes):
                places.append(("ops", site))
        found.extend(
            (layer, opcode, site) for layer, site in places if not named_for(site.module, family)
        )
    return found


# -- output ----------------------------------------------------------------------------------


def describe(entry: OpEntry) -> str:
    """Everything the atlas knows about one opcode, one place per line."""

    def none(what: str) -> str:
        return f"(no {what})"

    lines = [f"{entry.opcode.value} ({entry.opcode.name}): family {entry.family}"]
    lines.append(f"  shape rule:  {entry.shape_rule or none('shape rule')}")
    builders = [str(s) for s in entry.builders] or [none("builder in xlapy.ops")]
    lines.append(f"  builder:     {builders[0]}")
    lines.extend(f"               {b}" for b in builders[1:])
    if entry.kernel:
        kernel = str(entry.kernel)
    elif entry.opcode in EVALUATOR_OPCODES:
        kernel = "(the evaluator supplies it)"
    else:
        kernel = none("evaluator kernel")
    lines.append(f"  evaluator:   {kernel}")
    lowerings = [str(s) for s in entry.lowerings] or [none("StableHLO lowering named after it")]
    lines.append(f"  stablehlo:   {lowerings[0]}")
    lines.extend(f"               {s}" for s in lowerings[1:])
    if entry.emitted_by:
        lines.append(f"  emitted by:  {entry.emitted_by[0]}")
        lines.extend(f"               {s}" for s in entry.emitted_by[1:])
    if CPU_PATHS is None:
        lines.append(f"  cpu:         ({CPU_MISSING})")
    elif entry.cpu is None:
        lines.append("  cpu:         (not in CPU_PATHS)")
    else:
        lines.append(f"  cpu:         {entry.cpu.kind}")
        for label in ("handler", "predicate", "via"):
            value = getattr(entry.cpu, label)
            if value is not None:
                lines.append(f"    {label + ':':11}{value}")
        for i, site in enumerate(entry.cpu.rewritten_by):
            lines.append(f"    {'also:' if i == 0 else '':11}{site}")
    if entry.tests is None:
        lines.append("  tests:       (no tests/ folder: an installed package)")
    elif not entry.tests:
        lines.append("  tests:       (no test file mentions it)")
    else:
        lines.append(f"  tests:       {entry.tests[0]}")
        lines.extend(f"               {t}" for t in entry.tests[1:])
    return "\n".join(lines) + "\n"


def _first_lowering(entry: OpEntry) -> str:
    if entry.lowerings:
        return entry.lowerings[0].name.split(",")[0]
    if entry.emitted_by:  # not named after the opcode, but calls its builder
        return "~" + entry.emitted_by[0].name.split(",")[0]
    return "-"


def table(entries: Iterable[OpEntry]) -> str:
    """One line per opcode: where each layer handles it (file:line), the lowering named after
    it (``~name``: one that emits it under another name) and how many test files mention it."""
    header = ("opcode", "family", "shape rule", "builder", "evaluator", "stablehlo", "cpu", "tests")
    rows = [header]
    for e in entries:
        rows.append(
            (
                e.opcode.value,
                e.family,
                e.shape_rule.short if e.shape_rule else "-",
                e.builders[0].name.removeprefix("ops.") if e.builders else "-",
                e.kernel.short if e.kernel else ("(built in)" if e.opcode in EVALUATOR_OPCODES else "-"),
                _first_lowering(e),
                e.cpu.kind if e.cpu else ("?" if CPU_PATHS is None else "-"),
                "?" if e.tests is None else str(len(e.tests)),
            )
        )  # fmt: skip
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    text = "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows
    )
    footer = "" if CPU_PATHS is not None else f"\n(cpu: {CPU_MISSING})"
    return text + footer + "\n"


__all__ = [
    "CPU_PATHS",
    "CpuEntry",
    "OpEntry",
    "Site",
    "atlas",
    "builder_map",
    "describe",
    "family_offences",
    "lookup",
    "lowering_map",
    "opcode_of_lowering",
    "site_of",
    "table",
    "test_file_words",
    "tests_of",
]
