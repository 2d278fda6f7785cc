"""Every test of tests/backends/interpreter/test_collectives.py, run on the CPU backend too:
its replicated ``run`` is replaced by one that runs both backends and checks that they agree
(and that the collectives are native on the CPU backend)."""

import importlib.util
import pathlib

import numpy as np

import xlapy
from xlapy.backends.cpu import CpuBackend, CpuOptions
from xlapy.backends.interpreter import InterpreterBackend, InterpreterOptions
from xlapy.errors import XlaError
from xlapy.hlo import parse_module

_SOURCE = pathlib.Path(__file__).resolve().parent.parent / "interpreter" / "test_collectives.py"


def _execute(backend, options, text, per_device_args):
    executable = backend.compile(parse_module(text), options)
    literals = [[xlapy.Literal.from_value(a) for a in args] for args in per_device_args]
    return executable, [r.to_numpy() for r in executable.execute_replicated(literals)]


def run(text, per_device_args, replicas=1, partitions=1, timeout=10.0):
    interpreter_options = InterpreterOptions(replicas, partitions, collective_timeout=timeout)
    cpu_options = CpuOptions(replicas, partitions, collective_timeout=timeout)
    try:
        _, want = _execute(InterpreterBackend(), interpreter_options, text, per_device_args)
    except XlaError as e:
        try:
            _execute(CpuBackend(), cpu_options, text, per_device_args)
        except type(e):
            raise e from None
        raise AssertionError("the interpreter failed but the CPU backend ran") from e
    executable, got = _execute(CpuBackend(), cpu_options, text, per_device_args)
    assert executable.fallback_ops == [], executable.fallback_ops
    for g, w in zip(got, want, strict=True):
        if isinstance(w, tuple):
            for a, b in zip(g, w, strict=True):
                np.testing.assert_array_equal(a, b)
        else:
            np.testing.assert_array_equal(g, w)
    return want


_spec = importlib.util.spec_from_file_location("cpu_mirror_of_test_collectives", _SOURCE)
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)
_module.run = run
for _key, _value in vars(_module).items():
    if not _key.startswith("__") and _key not in ("run", "annotations"):
        globals().setdefault(_key, _value)
