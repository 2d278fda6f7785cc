"""Load an evaluator test module with its ``run`` replaced by ``dual_run``, so that every
interpreter test also runs on the CPU backend and checks agreement with the interpreter."""

from __future__ import annotations

import importlib.util
import pathlib
from typing import Any

from xlapy.testing.dual_run import dual_run

INTERPRETER_TESTS = pathlib.Path(__file__).resolve().parents[2] / "evaluator"


def mirror(namespace: dict[str, Any], name: str) -> None:
    spec = importlib.util.spec_from_file_location(
        f"cpu_mirror_of_{name}", INTERPRETER_TESTS / f"{name}.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.run = dual_run
    for key, value in vars(module).items():
        if not key.startswith("__") and key not in ("run", "annotations"):
            namespace.setdefault(key, value)
