"""The CPU capability table agrees with the tables the compiler really dispatches through."""

from __future__ import annotations

import inspect

from xlapy.backends.cpu.capabilities import CPU_PATHS, EXPANDED, pipeline_passes
from xlapy.backends.cpu.codegen import NO_CODE, THUNK_EMITTERS
from xlapy.backends.cpu.emit.loops import is_loop_opcode
from xlapy.backends.cpu.pipeline import cpu_pipeline
from xlapy.backends.cpu.runtime.executable import CpuOptions
from xlapy.opcode import HloOpcode


def test_every_opcode_has_a_path():
    assert set(CPU_PATHS) == set(HloOpcode)
    for opcode, path in CPU_PATHS.items():
        assert path.kind in ("native", "expander", "none"), opcode
        assert path.handler is not None, opcode
        assert (path.predicate is None) == (path.via is None), opcode


def test_native_paths_are_the_codegen_dispatch():
    for opcode, emitter in THUNK_EMITTERS.items():
        path = CPU_PATHS[opcode]
        assert path.kind == "native" and path.handler is emitter, opcode
    for opcode, path in CPU_PATHS.items():
        if path.kind == "native":
            assert opcode in THUNK_EMITTERS or is_loop_opcode(opcode) or opcode in NO_CODE
        else:
            assert opcode not in THUNK_EMITTERS, opcode
        if path.kind == "none":
            assert not is_loop_opcode(opcode) and opcode not in NO_CODE, opcode


def test_expanders_and_predicates_are_the_pipeline():
    passes = pipeline_passes(cpu_pipeline(CpuOptions()))
    classes = {type(p) for p in passes}
    for opcode, path in CPU_PATHS.items():
        if path.kind == "expander":
            assert path.handler is EXPANDED[opcode] and path.handler in classes, opcode
        if path.predicate is not None:
            expanders = [p for p in passes if type(p) is path.via]
            assert expanders, opcode
            assert any(path.predicate in vars(p).values() for p in expanders), opcode
            assert opcode in expanders[0].opcodes


def test_handlers_have_a_source_line():
    # The op atlas prints file:line of each handler, predicate and expander.
    for path in CPU_PATHS.values():
        for thing in (path.handler, path.predicate, path.via):
            if thing is not None:
                assert inspect.getsourcefile(thing) and inspect.getsourcelines(thing)[1] > 0
