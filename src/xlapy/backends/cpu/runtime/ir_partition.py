"""Split one LLVM IR module into independent parts that compile in parallel.

LLVM's time on a program is mostly per function (the O3 pipeline and the code generator
run function by function, with a fixed cost of ~1-2 ms each on llvmlite's build), and one
module compiles on one thread. Kernels reach the runtime only through function pointers
(``xlapy_parallel_for``, the thunk tables): nothing inlines them into their callers, so a
kernel and the functions it calls directly can be compiled in a module of its own, in
another thread, without changing one instruction of the code either side produces.

The rule that keeps the code the same: functions joined by a direct ``call`` stay in one
part (the inliner still sees the whole call tree: ``.body`` helpers, a while loop's
condition and body, the fast entry and the entry); only a reference that is not a call
(a function pointer, a global's address) may cross parts. One exception, where the
caller names it (``kernel_type``): a kernel (a function over a range of rows, the
signature ``xlapy_parallel_for`` takes) called with a range known only at run time, as
a row group calls each of its kernels once per block of rows. Such a call is not inlined
any more: one call per block of thousands of elements, and the kernel's own code is
the same (it never saw its caller's range as constants). A kernel called with a
constant range (a loop body's ``(0, 1)``) stays with its caller, which may specialize it. A definition referenced from
another part loses its ``internal``/``private`` linkage (the engine links the parts'
objects by name; names are unique in the module, and each program has its own engine),
and the other part gets a declaration of it. Declarations, identified types and
metadata are repeated in every part.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from llvmlite import ir

# A reference to a global value in llvmlite's IR text (it always quotes names).
_REFERENCE = re.compile(r'@"((?:[^"\\]|\\.)*)"')
# A direct call of a global: ``call <type> @"name"(arguments)`` (also ``invoke``).
_CALL = re.compile(r'(?:call|invoke)\b[^@\n]*@"((?:[^"\\]|\\.)*)"\(([^\n]*)\)')
# An argument that is a constant integer (``i64 0``).
_CONSTANT_ARGUMENT = re.compile(r"^\s*i\d+ -?\d+\s*$")
# The linkage a definition starts with, where it keeps the name local to its object.
_LOCAL_FUNCTION = re.compile(r"^define (internal|private) ")
_LOCAL_GLOBAL = re.compile(r'^(@"(?:[^"\\]|\\.)*" = )(internal|private) ')


@dataclass
class SplitModule:
    """A module's text, and (where it splits) the texts of its parts."""

    text: str
    parts: list[str]


def _function_declaration(function: ir.Function) -> str:
    kind = function.function_type
    arguments = ", ".join(str(t) for t in kind.args)
    if kind.var_arg:
        arguments += ", ..." if arguments else "..."
    return f'declare {kind.return_type} @"{function.name}"({arguments})'


def _global_declaration(variable: ir.GlobalVariable) -> str:
    return f'@"{variable.name}" = external global {variable.value_type}'


class _Groups:
    """Union-find over the module's definitions."""

    def __init__(self, names: list[str]) -> None:
        self.parent = {name: name for name in names}

    def find(self, name: str) -> str:
        while self.parent[name] != name:
            self.parent[name] = self.parent[self.parent[name]]
            name = self.parent[name]
        return name

    def join(self, a: str, b: str) -> None:
        self.parent[self.find(a)] = self.find(b)


def split_module(
    module: ir.Module,
    max_parts: int,
    min_part_chars: int = 1500,
    kernel_type: ir.FunctionType | None = None,
) -> SplitModule:
    """``module``'s text, rendered once, and up to ``max_parts`` part texts balanced by
    size (no parts where the module does not split, or where a part would be smaller
    than ``min_part_chars``: the parse and pipeline set-up of a part costs ~1 ms).
    ``kernel_type``: the signature of kernels that may be split from a caller passing
    them a run-time range (the module docstring)."""
    header = [
        f'; ModuleID = "{module.name}"',
        f'target triple = "{module.triple}"',
        f'target datalayout = "{module.data_layout}"',
        "",
    ]
    types = [t.get_declaration() for t in module.get_identified_types().values()]
    values = list(module.globals.values())
    texts = {value.name: str(value) for value in values}
    metadata = module._get_metadata_lines()  # noqa: SLF001  (llvmlite's own rendering)
    text = "\n".join(header + types + [texts[v.name] for v in values] + metadata)
    parts: list[str] = []
    if max_parts > 1:
        parts = _parts(
            header, types, values, texts, metadata, max_parts, min_part_chars, kernel_type
        )
    return SplitModule(text, parts)


def _parts(
    header: list[str],
    types: list[str],
    values: list[ir.GlobalValue],
    texts: dict[str, str],
    metadata: list[str],
    max_parts: int,
    min_part_chars: int,
    kernel_type: ir.FunctionType | None,
) -> list[str]:
    defined = [
        v
        for v in values
        if not (isinstance(v, ir.Function) and v.is_declaration)
        and not (isinstance(v, ir.GlobalVariable) and v.initializer is None)
    ]
    if any(v.name.startswith("llvm.") for v in defined):
        return []  # llvm.used, global constructors...: the module stays whole
    names = {v.name for v in defined}
    by_name = {v.name: v for v in defined}
    groups = _Groups([v.name for v in defined])
    references: dict[str, set[str]] = {}
    for value in defined:
        body = texts[value.name]
        references[value.name] = {n for n in _REFERENCE.findall(body) if n in names}
        for callee, arguments in _CALL.findall(body):
            if callee in names and not _separable(by_name[callee], arguments, kernel_type):
                groups.join(value.name, callee)
    members: dict[str, list[ir.GlobalValue]] = {}
    for value in defined:
        if isinstance(value, ir.Function):
            members.setdefault(groups.find(value.name), []).append(value)
    # Global variables go with the first function that uses them.
    for value in defined:
        if isinstance(value, ir.GlobalVariable):
            user = next((n for n in references if value.name in references[n]), None)
            if user is not None and user != value.name:
                groups.join(value.name, user)
            root = groups.find(value.name)
            members.setdefault(root, []).append(value)
    sizes = {root: sum(len(texts[v.name]) for v in group) for root, group in members.items()}
    costs = {root: sum(_cost(texts[v.name]) for v in group) for root, group in members.items()}
    order = sorted(members, key=lambda root: -costs[root])
    count = min(max_parts, len(order))
    if count < 2:
        return []
    bins: list[list[str]] = [[] for _ in range(count)]
    loads, chars = [0] * count, [0] * count
    for root in order:
        k = loads.index(min(loads))
        bins[k].append(root)
        loads[k] += costs[root]
        chars[k] += sizes[root]
    if min(chars) < min_part_chars:
        return []
    home = {v.name: k for k, roots in enumerate(bins) for root in roots for v in members[root]}
    exported = {
        target
        for name, targets in references.items()
        for target in targets
        if home[target] != home[name]
    }
    declarations = [texts[v.name] for v in values if v.name not in names]
    out = []
    for k in range(count):
        lines = header + types + declarations
        for value in values:
            if value.name not in names:
                continue
            if home[value.name] == k:
                lines.append(_exported(texts[value.name]) if value.name in exported else
                             texts[value.name])  # fmt: skip
            elif value.name in exported:
                lines.append(
                    _function_declaration(value)
                    if isinstance(value, ir.Function)
                    else _global_declaration(value)
                )
        out.append("\n".join(lines + metadata))
    return out


def _cost(text: str) -> int:
    """A definition's expected LLVM time, in instructions: each loop (one ``phi`` per
    loop index or accumulator, in our IR) costs as much as ~80 straight-line
    instructions once the vectorizer and the code generator have made its vector body,
    remainder and checks (fitted on the workloads' kernels)."""
    return text.count("\n") + 80 * text.count(" phi ")


def _separable(callee: ir.GlobalValue, arguments: str, kernel_type: ir.FunctionType | None) -> bool:
    """Whether a direct call may cross parts: a kernel called with a run-time range."""
    if kernel_type is None or not isinstance(callee, ir.Function):
        return False
    if callee.function_type != kernel_type or "alwaysinline" in callee.attributes:
        return False
    *_, start, stop = arguments.split(",")
    return not (_CONSTANT_ARGUMENT.match(start) and _CONSTANT_ARGUMENT.match(stop))


def _exported(text: str) -> str:
    """A definition's text with external linkage (its name visible to the other parts)."""
    text = _LOCAL_FUNCTION.sub("define ", text, count=1)
    return _LOCAL_GLOBAL.sub(r"\1", text, count=1)
