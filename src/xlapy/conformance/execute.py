"""Running one conformance case (one ``// -----`` section) inside a worker process.

The importer lowers every ``check.*`` and ``interpreter.*`` op to an HLO
custom-call whose target is the op's name and whose parameters are JSON in
``backend_config``. A Python custom-call target only receives the operands,
so before compiling, each such instruction gets a target name of its own,
registered for this case only, whose closure knows the instruction's
parameters and the case's state (check results, probe values). That keeps the
interpreter unaware of conformance testing and needs no change outside this
package.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..client import CompileOptions, local_client
from ..custom_call import register_custom_call, unregister_custom_call
from ..errors import UnimplementedError
from ..hlo.lexer import c_unescape
from ..literal import Literal
from ..opcode import HloOpcode
from ..shape import Shape
from ..stablehlo import parse_programs
from . import checks

# The targets the importer emits (xlapy/stablehlo/lower/checks.py). The ``_const``
# forms carry the constant as second operand; the reference judges them exactly
# like the two-operand forms (evalExpectEqConstOp builds a tensor of the constant
# and calls evalExpectEqOp), so they share handlers.
CHECK_TARGETS = (
    "check.expect_eq",
    "check.expect_eq_const",
    "check.expect_almost_eq",
    "check.expect_almost_eq_const",
    "check.expect_close",
    "check.expect_serialized_eq",
)
INTERPRETER_TARGETS = ("interpreter.probe", "interpreter.print", "interpreter.run_parallel")
HANDLED_TARGETS = frozenset(CHECK_TARGETS + INTERPRETER_TARGETS)

_unique = itertools.count()

# Conformance programs compute on constants, so constant folding would evaluate nearly
# every case with the interpreter's kernels at compile time and the CPU backend's own
# code would never run. Folding is off for them: the native kernels compute every result.
BACKEND_OPTIONS: dict[str, dict[str, Any]] = {
    "cpu": {"disabled_passes": frozenset({"constant-folding"})},
}


def compile_options(backend: str, replicas: int = 1, partitions: int = 1) -> CompileOptions:
    return CompileOptions(
        num_replicas=replicas,
        num_partitions=partitions,
        backend_options=dict(BACKEND_OPTIONS.get(backend, {})),
    )


@dataclass
class CheckRecord:
    """One evaluated check: ``tolerance`` says which bound decided it."""

    target: str
    result: checks.CheckResult
    tolerance: str
    override: str | None = None  # set when a per-op tolerance was needed to pass


@dataclass
class CaseOutcome:
    status: str  # "pass", "fail", "error", "unsupported"
    detail: str = ""
    tolerance: str = ""
    checks: int = 0
    printed: list[str] = field(default_factory=list)
    seconds: float = 0.0
    fallbacks: list[str] = field(default_factory=list)  # ops run by interpreter kernels


class CaseState:
    """What the custom-call targets of one case share: check results, probes, printout."""

    def __init__(self, program: Any, backend: str, op: str) -> None:
        self.program = program
        self.backend = backend
        self.op = op
        self.records: list[CheckRecord] = []
        self.probes: dict[str, list[np.ndarray]] = {}
        self.printed: list[str] = []
        self.fallbacks: set[str] = set()  # ops a compiled function ran through the fallback
        self.lock = threading.Lock()  # replicated programs call targets from several threads
        self._registered: list[str] = []

    # -- instrumenting modules ---------------------------------------------------------------
    def instrument(self, module: Any) -> None:
        """Give each check/interpreter custom-call a target bound to its own parameters."""
        for instruction in list(module.instructions()):
            if instruction.opcode is not HloOpcode.CUSTOM_CALL:
                continue
            target = instruction.custom_call_target or ""
            if target not in HANDLED_TARGETS:
                continue
            config = backend_config(instruction)
            name = f"xlapy.conformance/{next(_unique)}/{target}"
            register_custom_call(name, self._target(target, config, instruction.shape))
            self._registered.append(name)
            instruction.set_attribute("custom_call_target", name)

    def release(self) -> None:
        for name in self._registered:
            unregister_custom_call(name)
        self._registered.clear()

    def _target(self, target: str, config: dict[str, Any], shape: Shape) -> Callable[..., Any]:
        kind = target.removesuffix("_const")
        if kind == "check.expect_eq":
            return self._checker(shape, lambda a, e: self._eq(a, e))
        if kind == "check.expect_almost_eq":
            return self._checker(shape, lambda a, e: self._almost_eq(a, e, config))
        if kind == "check.expect_close":
            return self._checker(shape, lambda a, e: self._close(a, e, config))
        if kind == "check.expect_serialized_eq":
            return self._checker(shape, lambda e: self._serialized_eq(e, config))
        if kind == "interpreter.probe":
            return lambda value: self._probe(value, config)
        if kind == "interpreter.print":
            return lambda value: self._print(value, config, shape)
        if kind == "interpreter.run_parallel":
            return lambda *inputs: self._run_parallel(inputs, config, shape)
        raise UnimplementedError(f"custom-call target {target!r}")  # pragma: no cover

    def _checker(self, shape: Shape, check: Callable[..., CheckRecord]) -> Callable[..., Any]:
        def run(*operands: Any) -> Any:
            record = check(*operands)
            with self.lock:
                self.records.append(record)
            return empty_value(shape)

        return run

    # -- checks ------------------------------------------------------------------------------
    def _eq(self, actual: Any, expected: Any) -> CheckRecord:
        return CheckRecord("check.expect_eq", checks.check_eq(actual, expected), "exact")

    def _is_custom_call_form(self, target: str, config: dict[str, Any]) -> bool:
        """JAX's ``stablehlo.custom_call @check.*`` spelling (the lowering marks it)."""
        return config.get("form") == "custom_call"

    def _almost_eq(self, actual: Any, expected: Any, config: dict[str, Any]) -> CheckRecord:
        if self._is_custom_call_form("check.expect_almost_eq", config):
            tolerance = checks.CUSTOM_CALL_ALMOST_EQ_TOLERANCE
        else:
            tolerance = float(config.get("tolerance", checks.DIALECT_ALMOST_EQ_TOLERANCE))
        result = checks.check_almost_eq(actual, expected, tolerance)
        record = CheckRecord("check.expect_almost_eq", result, f"tolerance {tolerance:g}")
        override = checks.tolerance_override(self.op, np.asarray(actual).dtype.name)
        if not result.passed and override is not None and override.tolerance is not None:
            relaxed = checks.check_almost_eq(actual, expected, override.tolerance)
            return self._relaxed(record, relaxed, override)
        return record

    def _close(self, actual: Any, expected: Any, config: dict[str, Any]) -> CheckRecord:
        if self._is_custom_call_form("check.expect_close", config):
            low, high = checks.CUSTOM_CALL_CLOSE_ULPS
        else:
            low = int(config.get("min_ulp_difference", checks.DIALECT_CLOSE_ULPS[0]))
            high = int(config.get("max_ulp_difference", checks.DIALECT_CLOSE_ULPS[1]))
        result = checks.check_close(actual, expected, low, high)
        record = CheckRecord("check.expect_close", result, f"[{low}, {high}] ULP")
        override = checks.tolerance_override(self.op, np.asarray(actual).dtype.name)
        if not result.passed and override is not None and override.max_ulp is not None:
            relaxed = checks.check_close(actual, expected, low, override.max_ulp)
            return self._relaxed(record, relaxed, override)
        return record

    @staticmethod
    def _relaxed(
        record: CheckRecord, relaxed: checks.CheckResult, override: checks.ToleranceOverride
    ) -> CheckRecord:
        if not relaxed.passed:  # report the failure against the file's own bound
            return CheckRecord(
                record.target,
                checks.CheckResult(
                    False,
                    f"{record.result.detail} (fails the {override.describe()} too)",
                    record.result.mismatches,
                ),
                record.tolerance,
            )
        return CheckRecord(record.target, relaxed, override.describe(), override.describe())

    def _serialized_eq(self, expected: Any, config: dict[str, Any]) -> CheckRecord:
        probe_id = str(config.get("probe_id", ""))
        iteration = int(config.get("iteration", config.get("iter", 0)))
        with self.lock:
            recorded = list(self.probes.get(probe_id, []))
        result = checks.check_serialized_eq(expected, recorded, probe_id, iteration)
        return CheckRecord("check.expect_serialized_eq", result, "exact")

    # -- interpreter ops ---------------------------------------------------------------------
    def _probe(self, value: Any, config: dict[str, Any]) -> Any:
        probe_id = str(config.get("probe_id", ""))
        with self.lock:
            self.probes.setdefault(probe_id, []).append(np.array(value, copy=True))
        return np.array(value, copy=True)

    def _print(self, value: Any, config: dict[str, Any], shape: Shape) -> Any:
        text = checks.format_tensor(np.asarray(value))
        name = config.get("name")
        with self.lock:
            self.printed.append(f"{name} = {text}" if name else text)
        return empty_value(shape)

    def _run_parallel(self, inputs: Sequence[Any], config: dict[str, Any], shape: Shape) -> Any:
        """Run ``programs[replica][partition]`` on one replicated executable.

        Inputs are handed out in process order (replica-major, then
        partition), each process taking as many as its function has
        parameters, and results come back concatenated in the same order, as
        in the reference's evalRunParallelOp.
        """
        programs = [[str(name) for name in replica] for replica in config.get("programs", [])]
        if not programs or not programs[0]:
            raise ValueError("interpreter.run_parallel: no programs")
        replicas, partitions = len(programs), len(programs[0])
        if any(len(replica) != partitions for replica in programs):
            raise ValueError("interpreter.run_parallel: every replica needs the same partitions")
        names = {name for replica in programs for name in replica}
        if len(names) != 1:
            raise UnimplementedError(
                "interpreter.run_parallel with different programs per process (MPMD: "
                f"{', '.join(sorted(names))}); only one program replicated is supported"
            )
        (function,) = names
        infeed = [str(name) for name in config.get("infeed", []) or []]
        if infeed and replicas * partitions != 1:
            raise UnimplementedError(
                "interpreter.run_parallel with an infeed and more than one process"
            )
        module = self.program.hlo_module(function=function)
        self.instrument(module)
        executable = local_client(self.backend).compile(
            module, compile_options(self.backend, replicas, partitions)
        )
        if self.backend != "interpreter":
            self.fallbacks.update(executable.fallback_ops)
        for name in infeed:
            executable.infeed[0].put(self.run_function(name))
        arity = len(executable.program_shape.parameters)
        values = [_as_literal(v) for v in inputs]
        devices = replicas * partitions
        if len(values) != arity * devices:
            raise ValueError(
                f"interpreter.run_parallel: {len(values)} inputs for {devices} processes of "
                f"@{function}, which takes {arity}"
            )
        per_device = [values[i * arity : (i + 1) * arity] for i in range(devices)]
        results = executable.execute_replicated(per_device)
        flat: list[Any] = []
        for result in results:
            flat.extend(result if isinstance(result, tuple) else [result])
        if shape.is_tuple:
            return tuple(flat)
        return flat[0]

    def run_function(self, name: str, arguments: Sequence[Any] = ()) -> Any:
        """Compile ``@name`` of the case's module (instrumented) and run it once."""
        module = self.program.hlo_module(function=name)
        self.instrument(module)
        options = compile_options(
            self.backend,
            int(getattr(self.program, "num_replicas", 1) or 1),
            int(getattr(self.program, "num_partitions", 1) or 1),
        )
        executable = local_client(self.backend).compile(module, options)
        if self.backend != "interpreter":
            self.fallbacks.update(executable.fallback_ops)
        if executable.program_shape.parameters and not arguments:
            raise UnimplementedError(
                f"@{name} takes {len(executable.program_shape.parameters)} arguments: entry "
                "arguments (the interpreter's --args) are not passed by the runner"
            )
        return executable(*arguments)


def backend_config(instruction: Any) -> dict[str, Any]:
    """The JSON parameters the importer put on a check/interpreter custom-call."""
    raw = instruction.attribute("backend_config")
    if raw is None:
        return {}
    text = getattr(raw, "text", raw)
    text = str(text).strip()
    if len(text) >= 2 and text[0] == '"' and text[-1] == '"':
        text = c_unescape(text[1:-1])
    if not text:
        return {}
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError(f"backend_config of {instruction.name} is not a JSON object: {text}")
    return value


def empty_value(shape: Shape) -> Any:
    """A value of ``shape`` for a custom-call whose result nobody reads (usually ``()``)."""
    if shape.is_tuple:
        return tuple(empty_value(s) for s in shape.tuple_shapes)
    if shape.is_token:
        return None
    return np.zeros(shape.dimensions, shape.element_type.dtype)


def _as_literal(value: Any) -> Literal:
    if isinstance(value, Literal):
        return value
    if value is None or type(value).__name__ == "Token":
        return Literal.token()
    return Literal.from_value(np.asarray(value))


# -- one case ------------------------------------------------------------------------------


def function_names(program: Any) -> list[str]:
    """The functions a program defines, in source order (whatever the importer exposes)."""
    for attribute in ("function_names", "functions"):
        value = getattr(program, attribute, None)
        if callable(value):
            value = value()
        if value is not None:
            return [getattr(f, "name", f) for f in value]
    module = getattr(program, "module", None) or getattr(program, "ast", None)
    if module is not None and hasattr(module, "functions"):
        return [f.name for f in module.functions]
    return ["main"]


def entry_function(program: Any) -> str | None:
    """``main``, else the only function, as the reference interpreter picks its entry."""
    names = function_names(program)
    if "main" in names:
        return "main"
    if len(names) == 1:
        return names[0]
    if not names:
        return None
    raise ValueError(
        f"the module has no @main and {len(names)} functions ({', '.join(names)}); "
        "the reference interpreter needs an entry function named main"
    )


def run_program(program: Any, backend: str, op: str) -> CaseOutcome:
    """Run a parsed program's entry function and judge its checks."""
    state = CaseState(program, backend, op)
    error: BaseException | None = None
    try:
        entry = entry_function(program)
        if entry is not None:
            state.run_function(entry)
    except BaseException as e:  # noqa: BLE001  (any failure of the program is its verdict)
        if isinstance(e, KeyboardInterrupt):
            raise
        error = e
    finally:
        state.release()
    outcome = judge(state, error)
    outcome.fallbacks = sorted(state.fallbacks)
    return outcome


def judge(state: CaseState, error: BaseException | None) -> CaseOutcome:
    """A failed check decides the case; otherwise an exception; otherwise it passed."""
    records = state.records
    tolerances = sorted({r.tolerance for r in records})
    tolerance = "; ".join(tolerances)
    failed = next((r for r in records if not r.result.passed), None)
    if failed is not None:
        return CaseOutcome(
            "fail",
            f"{failed.target}: {_strip(failed.result.detail)}",
            tolerance,
            len(records),
            state.printed,
        )
    if error is not None:
        status = "unsupported" if isinstance(error, UnimplementedError) else "error"
        return CaseOutcome(status, one_line(error), tolerance, len(records), state.printed)
    overrides = sorted({r.override for r in records if r.override})
    detail = "passed with " + "; ".join(overrides) if overrides else ""
    return CaseOutcome("pass", detail, tolerance, len(records), state.printed)


def _strip(detail: str) -> str:
    for prefix in ("expect_eq: ", "expect_almost_eq: ", "expect_close: "):
        if detail.startswith(prefix):
            return detail[len(prefix) :]
    return detail


def one_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    message = text[0] if text else ""
    if len(message) > 300:
        message = message[:297] + "..."
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def run_section(text: str, backend: str, op: str, source_file: str = "") -> CaseOutcome:
    """Parse, lower, compile and run one section of MLIR text."""
    started = time.perf_counter()
    try:
        programs = parse_programs(text, source_file)
    except BaseException as e:  # noqa: BLE001
        if isinstance(e, KeyboardInterrupt):
            raise
        status = "unsupported" if isinstance(e, UnimplementedError) else "error"
        outcome = CaseOutcome(status, one_line(e))
    else:
        if not programs:
            outcome = CaseOutcome("pass", "empty module: nothing to run")
        elif len(programs) > 1:
            outcome = CaseOutcome(
                "error", f"the section holds {len(programs)} programs; expected one"
            )
        else:
            outcome = run_program(programs[0], backend, op)
    outcome.seconds = time.perf_counter() - started
    return outcome


__all__ = [
    "CHECK_TARGETS",
    "HANDLED_TARGETS",
    "INTERPRETER_TARGETS",
    "CaseOutcome",
    "CaseState",
    "CheckRecord",
    "backend_config",
    "empty_value",
    "entry_function",
    "function_names",
    "judge",
    "run_program",
    "run_section",
]
