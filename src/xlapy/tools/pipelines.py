"""The compilers' own pass pipelines, built as their compile builds them, for the tools
that run passes by hand (``xlapy opt``, ``xlapy bisect``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..backends.cpu import CpuOptions
from ..backends.cpu.pipeline import cpu_pipeline
from ..errors import InvalidArgumentError
from ..hlo.module import HloModule
from ..passes.pass_base import PassPipeline

Observer = Callable[[str, HloModule, bool], None]


# platform -> (pipeline builder, options class). The GPU's is left out: importing its
# back-end costs every ``xlapy`` start-up ~0.15 s, and the layer rules let only the
# client load a back-end lazily.
PIPELINES: dict[str, tuple[Callable[[Any], PassPipeline], type]] = {
    "cpu": (cpu_pipeline, CpuOptions)
}


def backend_options(platform: str, options: dict[str, Any] | None = None) -> Any:
    """The platform's options object (``CpuOptions``...) made from ``options``."""
    if platform not in PIPELINES:
        raise InvalidArgumentError(
            f"no pass pipeline for platform {platform!r}; the pipelines are {sorted(PIPELINES)}"
        )
    _, options_class = PIPELINES[platform]
    try:
        return options_class(**(options or {}))
    except TypeError as e:
        known = ", ".join(sorted(getattr(options_class, "__dataclass_fields__", {})))
        raise InvalidArgumentError(
            f"{platform} backend options {sorted(options or {})}: {e}; the options are {known}"
        ) from None


def build_pipeline(
    platform: str = "cpu",
    options: dict[str, Any] | None = None,
    observer: Observer | None = None,
    module: HloModule | None = None,
) -> PassPipeline:
    """A fresh pipeline of ``platform`` configured by ``options`` (the backend options a
    compile would get; ``passes``, a callable(module, options), replaces the pipeline as
    in a compile), with ``observer(pass_name, module, changed)`` called after every pass
    (its sub-pipelines share the options object that holds it)."""
    config = backend_options(platform, options)
    builder, _ = PIPELINES[platform]
    custom = getattr(config, "passes", None)
    pipeline = custom(module, config) if custom else builder(config)
    if observer is not None:
        pipeline.options.observer = observer
    return pipeline


def _option_value(text: str) -> Any:
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    try:
        return int(text, 0)
    except ValueError:
        return text


def parse_options(pairs: list[str] | None, disabled: str | None = None) -> dict[str, Any]:
    """Backend options from the command line: ``KEY=VALUE`` pairs (true/false, integers,
    else strings: ``allow_excess_precision=false``) and a comma-separated list of passes
    to leave out (``disabled_passes``)."""
    options: dict[str, Any] = {}
    for pair in pairs or ():
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise InvalidArgumentError(f"--option {pair!r}: expected KEY=VALUE")
        options[key.strip()] = _option_value(value.strip())
    if disabled:
        options["disabled_passes"] = frozenset(p.strip() for p in disabled.split(",") if p.strip())
    return options


def add_option_arguments(parser: Any) -> None:
    """``--option KEY=VALUE`` and ``--disable PASSES``, the CPU backend's options."""
    parser.add_argument(
        "--option", action="append", metavar="KEY=VALUE",
        help="a CPU backend option (CpuOptions), e.g. allow_excess_precision=false; repeatable",
    )  # fmt: skip
    parser.add_argument("--disable", metavar="PASSES", help="comma-separated passes to leave out")
