"""The shape of the package, checked from its source: ``python -m xlapy.testing.layers``.

xlapy is built in layers (:data:`LAYERS`, bottom to top): a module may import from
its own layer or a lower one, never a higher one, and modules may not import each
other in a cycle. Those rules keep the compiler readable bottom-up and keep a
change in one layer from rippling downwards. The source is read with ``ast``,
never imported, so the checker still reports on a tree whose imports are broken
half-way through a move, which is when it is needed most.

Every offence is reported as ``file:line: [rule] message``; the rules are

- ``upward-import``: a module imports a module of a higher layer;
- ``sibling-import``: one of two modules of :data:`INDEPENDENT` imports the other;
- ``no-layer``: a module that no row of :data:`LAYERS` covers;
- ``cycle``: modules that import each other, directly or round a loop (imports inside
  functions count: they run too, only later; those under ``if TYPE_CHECKING:`` do not);
- ``too-long``: a module over :data:`MAX_LINES` lines;
- ``local-import``: an import inside a function (hides a dependency from the reader and
  usually dodges a cycle), unless :func:`local_import_allowed` says it has to be lazy;
- ``private-import``: a private name (``_x``) imported from another module, or a private
  module imported from outside its package.

tests/test_layers.py holds the package to these rules. The module needs nothing but the
standard library, so ``python src/xlapy/testing/layers.py`` reports even on a tree where
``import xlapy`` itself fails.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT_PACKAGE = "xlapy"

# Bottom to top. A module's layer is the row holding the longest prefix of its name
# (``xlapy.hlo.typed_attributes`` is in ``hlo``). The root package ``xlapy`` matches
# only itself: every subpackage needs a row of its own.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("base", ("xlapy.errors", "xlapy.memory", "xlapy.types", "xlapy._xla_data_util", "xlapy.version")),
    (
        "values",
        (
            "xlapy.layout", "xlapy.shape", "xlapy.xla_data", "xlapy.xla_data_sharding",
            "xlapy.literal", "xlapy.literal_format", "xlapy.literal_text", "xlapy.opcode",
        ),
    ),
    ("shape_inference", ("xlapy.shape_inference",)),
    ("hlo", ("xlapy.hlo",)),
    ("builder", ("xlapy.builder", "xlapy.ops", "xlapy.computations", "xlapy.lib")),
    ("services", ("xlapy.custom_call", "xlapy.distributed")),
    ("evaluator", ("xlapy.evaluator",)),
    ("passes", ("xlapy.passes",)),
    ("stablehlo", ("xlapy.stablehlo",)),
    ("backends", ("xlapy.backends",)),
    ("client", ("xlapy.client", "xlapy.client_devices", "xlapy.client_sharded")),
    ("service", ("xlapy.service",)),
    (
        "tools",
        (
            "xlapy", "xlapy.testing", "xlapy.conformance", "xlapy.cli", "xlapy.demo",
            "xlapy.atlas", "xlapy.jax", "xlapy.tools", "xlapy.aot",
        ),
    ),
]  # fmt: skip

# Modules of one layer that must not know each other (either direction).
# The GPU back-end builds on the CPU's target-independent code generators (as XLA's GPU
# and CPU back-ends share the elemental IR emitter); the CPU knows nothing of the GPU.
INDEPENDENT: list[tuple[str, str]] = [
    ("xlapy.backends.interpreter", "xlapy.backends.cpu"),
    ("xlapy.backends.interpreter", "xlapy.backends.gpu"),
]

MAX_LINES = 800

# Imports that stay inside functions on purpose: optional heavy dependencies, loaded
# only by the code that needs them, and lazy loading the package does by design.
OPTIONAL_DEPENDENCIES = ("jax", "jaxlib", "grpc", "google", "playwright", "mpi4py")
LAZY_BY_DESIGN: dict[str, tuple[str, ...]] = {
    # The client loads a platform's backend only when that platform is asked for.
    "xlapy.client": ("xlapy.backends",),
    # ``xlapy.stablehlo`` and friends become attributes of the package on first use.
    "xlapy": ("importlib",),
}

RULES = (
    "upward-import", "sibling-import", "no-layer", "cycle", "too-long", "local-import",
    "private-import",
)  # fmt: skip


@dataclass(frozen=True)
class Offence:
    rule: str
    path: str  # relative to the folder holding the package, e.g. "xlapy/hlo/parser.py"
    line: int
    message: str
    # What the offence is about, stable while lines move: (module, target) for imports,
    # the sorted modules of a cycle, the module for a long file.
    key: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: [{self.rule}] {self.message}"


@dataclass(frozen=True)
class Import:
    """One xlapy module reached by one import statement (``from a import b, c`` gives two)."""

    source: str
    target: str
    line: int
    local: bool  # inside a function
    statement: str
    name: str | None = None  # the imported name of ``from X import name``, if not a module


@dataclass
class Module:
    name: str
    path: Path
    lines: int
    is_package: bool
    imports: list[Import] = field(default_factory=list)
    external_local: list[tuple[int, str, str]] = field(default_factory=list)  # non-xlapy


@dataclass
class Report:
    root: Path
    modules: dict[str, Module]
    offences: list[Offence]

    def of(self, rule: str) -> list[Offence]:
        return [o for o in self.offences if o.rule == rule]

    def keys(self, rule: str) -> set[tuple[str, ...]]:
        return {o.key for o in self.of(rule)}

    def local_imports(self) -> list[tuple[str, int, str, bool]]:
        """(path, line, statement, allowed) of every import inside a function."""
        found = set()
        for module in self.modules.values():
            path = module.path.relative_to(self.root.parent).as_posix()
            for imp in module.imports:
                if imp.local:
                    allowed = local_import_allowed(module.name, imp.target)
                    found.add((path, imp.line, imp.statement, allowed))
            for line, target, statement in module.external_local:
                found.add((path, line, statement, local_import_allowed(module.name, target)))
        return sorted(found)

    def text(self, rules: Sequence[str] = RULES) -> str:
        local = self.local_imports()
        allowed = sum(1 for *_, ok in local if ok)
        lines = [
            f"{len(self.modules)} modules under {self.root}; {len(local)} imports inside "
            f"functions, {allowed} of them lazy on purpose (optional dependencies, lazy loading)"
        ]
        for rule in rules:
            found = self.of(rule)
            lines.append(f"\n{rule}: {len(found)}")
            lines.extend(f"  {o}" for o in found)
        return "\n".join(lines) + "\n"


# -- reading the source ----------------------------------------------------------------------


def package_root() -> Path:
    """The folder of the xlapy package this checker belongs to."""
    return Path(__file__).resolve().parents[1]


def discover(root: Path) -> dict[str, Module]:
    """Every module under ``root`` (the package folder), by dotted name."""
    modules: dict[str, Module] = {}
    for path in sorted(root.rglob("*.py")):
        parts = [root.name, *path.relative_to(root).with_suffix("").parts]
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        text = path.read_text(encoding="utf-8")
        modules[".".join(parts)] = Module(".".join(parts), path, len(text.splitlines()), is_package)
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _walk_imports(node: ast.AST, local: bool = False) -> Iterator[tuple[ast.stmt, bool]]:
    """Import statements under ``node`` with whether each is inside a function, leaving
    out the bodies of ``if TYPE_CHECKING:`` (imports for annotations, never run)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child, local
        elif isinstance(child, ast.If) and _is_type_checking(child.test):
            for stmt in child.orelse:
                yield from _walk_imports(stmt, local)
        else:
            inner = local or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            yield from _walk_imports(child, inner)


def _base(module: Module, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    parts = module.name.split(".")
    if not module.is_package:
        parts.pop()
    parts = parts[: len(parts) - (node.level - 1)]
    return ".".join(parts + ([node.module] if node.module else []))


def read_imports(module: Module, modules: dict[str, Module]) -> None:
    tree = ast.parse(module.path.read_text(encoding="utf-8"), str(module.path))
    for node, local in _walk_imports(tree):
        statement = ast.unparse(node)
        if isinstance(node, ast.Import):
            targets = [(alias.name, None) for alias in node.names]
        else:
            base = _base(module, node)
            targets = []
            for alias in node.names:
                full = f"{base}.{alias.name}"
                if full in modules:
                    targets.append((full, None))
                else:
                    targets.append((base, None if alias.name == "*" else alias.name))
        for target, name in targets:
            if target == ROOT_PACKAGE or target.startswith(ROOT_PACKAGE + "."):
                imported = Import(module.name, target, node.lineno, local, statement, name)
                module.imports.append(imported)
            elif local:
                module.external_local.append((node.lineno, target, statement))


# -- the rules -------------------------------------------------------------------------------


def layer_of(module: str) -> int | None:
    """Index in :data:`LAYERS` of ``module``'s layer (longest prefix), None if in none."""
    best: tuple[int, int] | None = None
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            covers = module == prefix or (
                prefix != ROOT_PACKAGE and module.startswith(prefix + ".")
            )
            if covers and (best is None or len(prefix) > best[0]):
                best = (len(prefix), index)
    return None if best is None else best[1]


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def local_import_allowed(source: str, target: str) -> bool:
    top = target.split(".")[0]
    if top in OPTIONAL_DEPENDENCIES:
        return True
    return any(_within(target, allowed) for allowed in LAZY_BY_DESIGN.get(source, ()))


def _resolve(target: str, modules: dict[str, Module]) -> str | None:
    """The module a dotted import target names (``import xlapy.hlo.parser`` names that
    module; a name that is not a module of ours stands for its longest module prefix)."""
    parts = target.split(".")
    while parts:
        name = ".".join(parts)
        if name in modules:
            return name
        parts.pop()
    return None


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative (import graphs are deep enough to hit recursion limits)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            advanced = False
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = counter
                    counter += 1
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph.get(succ, ())))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return components


def check(root: Path | None = None) -> Report:
    """Read every module under ``root`` (default: this package) and apply every rule."""
    root = root or package_root()
    modules = discover(root)
    for module in modules.values():
        read_imports(module, modules)
    offences: list[Offence] = []

    def where(module: Module) -> str:
        return module.path.relative_to(root.parent).as_posix()

    seen: set[tuple[str, str, int, str]] = set()

    def add(rule: str, module: Module, line: int, message: str, *key: str) -> None:
        # One statement importing several names is one offence per rule and target.
        if (rule, module.name, line, message) not in seen:
            seen.add((rule, module.name, line, message))
            offences.append(Offence(rule, where(module), line, message, key))

    graph: dict[str, set[str]] = {name: set() for name in modules}
    first_edge: dict[tuple[str, str], Import] = {}
    for module in modules.values():
        own = layer_of(module.name)
        if own is None:
            add("no-layer", module, 1, f"{module.name} is in no layer of LAYERS", module.name)
        for imp in module.imports:
            target = _resolve(imp.target, modules)
            if target is None or target == module.name:
                continue
            graph[module.name].add(target)
            first_edge.setdefault((module.name, target), imp)
            theirs = layer_of(target)
            if own is not None and theirs is not None and theirs > own:
                add(
                    "upward-import", module, imp.line,
                    f"{module.name} ({LAYERS[own][0]}) imports {target} "
                    f"({LAYERS[theirs][0]}): `{imp.statement}`",
                    module.name, target,
                )  # fmt: skip
            for a, b in INDEPENDENT:
                if (_within(module.name, a) and _within(target, b)) or (
                    _within(module.name, b) and _within(target, a)
                ):
                    add(
                        "sibling-import", module, imp.line,
                        f"{module.name} imports {target}, but {a} and {b} must not know "
                        f"each other: `{imp.statement}`",
                        module.name, target,
                    )  # fmt: skip
            if imp.local and not local_import_allowed(module.name, imp.target):
                add(
                    "local-import", module, imp.line,
                    f"import inside a function: `{imp.statement}`", module.name, target,
                )  # fmt: skip
            private = _private_offence(imp, target)
            if private is not None:
                add("private-import", module, imp.line, private[0], *private[1])
        for line, target, statement in module.external_local:
            if not local_import_allowed(module.name, target):
                add(
                    "local-import", module, line,
                    f"import inside a function: `{statement}`", module.name, target,
                )  # fmt: skip
        if module.lines > MAX_LINES:
            add(
                "too-long", module, MAX_LINES + 1,
                f"{module.lines} lines (at most {MAX_LINES}): split it at a real seam",
                module.name,
            )  # fmt: skip

    for component in strongly_connected(graph):
        if len(component) < 2:
            continue
        members = set(component)
        edges = [first_edge[(a, b)] for a in component for b in sorted(graph[a]) if b in members]
        listing = "; ".join(
            f"{where(modules[e.source])}:{e.line} {e.source} -> {_resolve(e.target, modules)}"
            for e in edges
        )
        head = modules[component[0]]
        offences.append(
            Offence(
                "cycle", where(head), edges[0].line if edges else 1,
                f"{len(component)} modules import each other: {listing}", tuple(component),
            )
        )  # fmt: skip
    order = {rule: i for i, rule in enumerate(RULES)}
    offences.sort(key=lambda o: (order[o.rule], o.path, o.line, o.message))
    return Report(root, modules, offences)


def _private_offence(imp: Import, target: str) -> tuple[str, tuple[str, str]] | None:
    """(message, key) when ``imp`` reaches for something private to another module."""
    if imp.name is not None and imp.name.startswith("_") and not imp.name.startswith("__"):
        message = f"{imp.source} imports private {imp.name} from {target}: `{imp.statement}`"
        return message, (imp.source, f"{target}.{imp.name}")
    # A private module is its package's business: importing it from outside is an offence.
    parts = target.split(".")
    for depth in range(1, len(parts)):
        if parts[depth].startswith("_") and not parts[depth].startswith("__"):
            package = ".".join(parts[:depth])
            if _within(imp.source, package):
                return None
            message = f"{imp.source} imports {target}, private to {package}: `{imp.statement}`"
            return message, (imp.source, target)
    return None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m xlapy.testing.layers",
        description="Check the layer table, import cycles, module length, function-local and "
        "private imports of the xlapy source (read with ast, nothing is imported).",
    )
    parser.add_argument("root", nargs="?", type=Path, help="the package folder (default: xlapy's)")
    parser.add_argument("--rule", choices=RULES, action="append", help="only these rules")
    args = parser.parse_args(argv)
    report = check(args.root)
    rules = args.rule or RULES
    sys.stdout.write(report.text(rules))
    return 1 if any(o.rule in rules for o in report.offences) else 0


__all__ = [
    "INDEPENDENT",
    "LAYERS",
    "MAX_LINES",
    "RULES",
    "Import",
    "Module",
    "Offence",
    "Report",
    "check",
    "layer_of",
    "local_import_allowed",
    "main",
    "package_root",
    "strongly_connected",
]

if __name__ == "__main__":
    sys.exit(main())
