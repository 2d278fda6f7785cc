"""Passes over an ``HloModule`` and pipelines that run them.

A pass rewrites a module in place and says whether it changed anything; a
pipeline runs passes in order, optionally repeating a group until none of them
changes the module (XLA's ``HloPassFix``). In debug mode the module is verified
after every pass so that a broken rewrite is blamed on the pass that made it;
with a dump folder the module is written after every pass as HLO text, so one
can read what each pass did.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from ..errors import InternalError, InvalidArgumentError, XlaError
from ..hlo.module import HloModule


class HloPass:
    """One rewrite of a module. Subclasses set ``name`` and implement ``run``."""

    name = "pass"

    def run(self, module: HloModule) -> bool:
        """Rewrite ``module`` in place; return True if anything changed."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


@dataclass
class PassStats:
    """What one pass did in one pipeline run: how often it ran and changed, and its time."""

    runs: int = 0
    changes: int = 0
    seconds: float = 0.0


@dataclass
class PipelineOptions:
    """``verify``: check the module after every pass (debug mode); ``dump_dir``: write
    the module as HLO text after every pass that changed it (``NN-pass.hlo``);
    ``observer(pass_name, module, changed)``: called after every run of a pass, for
    tools that watch a compile (``xlapy opt --until``, ``xlapy explain``'s diffs)."""

    verify: bool = False
    dump_dir: str | None = None
    max_iterations: int = 25
    observer: Callable[[str, HloModule, bool], None] | None = None


@dataclass
class PassPipeline(HloPass):
    """Passes run in order; a nested ``PassPipeline(fixed_point=True)`` repeats until stable."""

    name: str = "pipeline"
    passes: list[HloPass] = field(default_factory=list)
    fixed_point: bool = False
    options: PipelineOptions = field(default_factory=PipelineOptions)
    stats: dict[str, PassStats] = field(default_factory=dict)
    _dump_counter: list[int] = field(default_factory=lambda: [0])

    def add(self, *passes: HloPass) -> PassPipeline:
        self.passes.extend(passes)
        return self

    def add_fixed_point(self, name: str, passes: Iterable[HloPass]) -> PassPipeline:
        """Add a sub-pipeline that repeats ``passes`` until none of them changes anything."""
        self.passes.append(
            PassPipeline(
                name=name,
                passes=list(passes),
                fixed_point=True,
                options=self.options,
                stats=self.stats,
                _dump_counter=self._dump_counter,
            )
        )
        return self

    def pass_names(self) -> set[str]:
        """The names of every pass in this pipeline and its sub-pipelines."""
        names: set[str] = set()
        for p in self.passes:
            names |= p.pass_names() if isinstance(p, PassPipeline) else {p.name}
        return names

    def walk(self, prefix: str = "") -> Iterator[tuple[str, HloPass]]:
        """Every pass in the order the pipeline runs it (one run each), with the path of the
        sub-pipeline it sits in (``cpu/simplify``); a pass shared by two sub-pipelines is
        yielded once per place. For tools that name passes (``xlapy opt --list``)."""
        path = f"{prefix}/{self.name}" if prefix else self.name
        for p in self.passes:
            if isinstance(p, PassPipeline):
                yield from p.walk(path)
            else:
                yield path, p

    def find(self, name: str) -> HloPass | None:
        """The first pass called ``name``, in run order (None when there is none)."""
        return next((p for _, p in self.walk() if p.name == name), None)

    def disable(self, disabled: Iterable[str] | str, required: dict[str, str]) -> None:
        """Leave the passes named in ``disabled`` out (XLA's --xla_disable_hlo_passes);
        ``required`` maps the passes a backend's code relies on to why."""
        disabled = frozenset([disabled] if isinstance(disabled, str) else disabled)
        refused = sorted(disabled & set(required))
        if refused:
            why = "; ".join(f"{name}: {required[name]}" for name in refused)
            raise InvalidArgumentError(
                f"disabled_passes: {refused} cannot be disabled in the {self.name.upper()} pipeline ({why})"
            )
        unknown = disabled - self.pass_names()
        if unknown:
            raise InvalidArgumentError(
                f"disabled_passes names no pass of the {self.name.upper()} pipeline: "
                f"{sorted(unknown)}; the passes are {sorted(self.pass_names())}"
            )
        self.passes = [q for q in self.passes if q.name not in disabled]
        for q in self.passes:
            if isinstance(q, PassPipeline):
                q.disable(disabled & q.pass_names(), {})

    def run(self, module: HloModule) -> bool:
        changed_any = False
        for _iteration in range(self.options.max_iterations if self.fixed_point else 1):
            changed = False
            for hlo_pass in self.passes:
                changed |= self._run_one(hlo_pass, module)
            changed_any |= changed
            if not changed:
                break
        else:
            if self.fixed_point:
                raise InternalError(
                    f"pass pipeline {self.name} did not reach a fixed point after "
                    f"{self.options.max_iterations} iterations (passes: "
                    f"{', '.join(p.name for p in self.passes)})"
                )
        return changed_any

    def _run_one(self, hlo_pass: HloPass, module: HloModule) -> bool:
        if isinstance(hlo_pass, PassPipeline):
            return hlo_pass.run(module)
        stats = self.stats.setdefault(hlo_pass.name, PassStats())
        start = time.perf_counter()
        changed = bool(hlo_pass.run(module))
        stats.seconds += time.perf_counter() - start
        stats.runs += 1
        stats.changes += changed
        if changed and self.options.verify:
            try:
                module.verify()
            except XlaError as e:
                raise InternalError(
                    f"pass {hlo_pass.name} left module {module.name} invalid: {e}"
                ) from e
        if changed and self.options.dump_dir:
            self._dump(module, hlo_pass.name)
        if self.options.observer is not None:
            self.options.observer(hlo_pass.name, module, changed)
        return changed

    def _dump(self, module: HloModule, pass_name: str) -> None:
        os.makedirs(self.options.dump_dir, exist_ok=True)
        self._dump_counter[0] += 1
        path = os.path.join(
            self.options.dump_dir, f"{module.name}.{self._dump_counter[0]:03d}-{pass_name}.hlo"
        )
        with open(path, "w") as f:
            f.write(module.to_text())


def run_passes(module: HloModule, passes: Sequence[HloPass], **options: object) -> bool:
    """Run ``passes`` once, in order (a convenience for tests)."""
    return PassPipeline(passes=list(passes), options=PipelineOptions(**options)).run(module)
