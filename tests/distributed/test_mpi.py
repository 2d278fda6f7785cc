"""Multi-process execution over MPI: ``mpiexec -n 2`` runs of tests/distributed/programs.

Each run is bounded in time; the program prints one ``OK``/``FAIL`` line per case and
per process (see ``programs/mpi_collectives.py``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import xlapy
from xlapy.backends.cpu import CpuBackend, CpuOptions
from xlapy.backends.interpreter import InterpreterBackend, InterpreterOptions
from xlapy.distributed import allgather_objects, process_info
from xlapy.errors import XlaError
from xlapy.hlo import parse_module

ROOT = Path(__file__).resolve().parents[2]
MPIEXEC = shutil.which("mpiexec", path=str(Path(sys.executable).parent)) or shutil.which("mpiexec")
COLLECTIVES = "tests.distributed.programs.mpi_collectives"
SHARDED = "tests.distributed.programs.mpi_sharded"
CASES = 11  # cases per device count in the program
needs_mpi = pytest.mark.skipif(
    MPIEXEC is None, reason="mpiexec is not installed (pip install mpich)"
)


def _launch(
    tmp_path: Path, program: str, *arguments: str, limit: float = 60.0
) -> tuple[list[list[str]], float]:
    """Rank 0's report lines then rank 1's (``[]`` for a rank that wrote none), and the
    wall time. Each rank writes its own file (``programs/rank_report.py``): mpiexec's
    stdout can cut one rank's line with another's. ``-disable-auto-cleanup``: hydra
    would otherwise kill the survivors of a rank that exits, before they can report."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep + str(ROOT))
    start = time.monotonic()
    done = subprocess.run(
        [MPIEXEC, "-disable-auto-cleanup", "-n", "2", sys.executable, "-m", program,
         "--report", str(tmp_path), *arguments],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=limit,
    )  # fmt: skip
    elapsed = time.monotonic() - start
    lines = []
    for rank in (0, 1):
        path = tmp_path / f"rank{rank}.txt"
        lines.append(path.read_text().splitlines() if path.exists() else [])
    assert any(lines), done.stdout + done.stderr
    return lines, elapsed


@needs_mpi
@pytest.mark.parametrize("backend", ["cpu", "interpreter"])
def test_collectives_across_two_processes_match_one_process(backend, tmp_path):
    reports, _ = _launch(tmp_path, COLLECTIVES, "--backend", backend)
    for rank, lines in enumerate(reports):
        assert not [line for line in lines if line.startswith("FAIL")], lines
        for n in (2, 4):
            passed = [line for line in lines if line.startswith(f"OK {backend} n={n} ")]
            assert len(passed) == CASES, lines  # every case
        assert "OK allgather_objects" in lines and f"DONE {rank} failures=0" in lines, lines


@needs_mpi
@pytest.mark.parametrize("backend", ["cpu", "interpreter"])
def test_a_dead_process_makes_the_other_fail_within_the_deadline(backend, tmp_path):
    deadline = 2.0
    reports, elapsed = _launch(
        tmp_path, COLLECTIVES, "--backend", backend, "--die", "--timeout", str(deadline), limit=40
    )
    output = "\n".join(reports[0])
    assert reports[1] == [], reports  # rank 1 died before printing anything
    match = re.search(r"DEADLINE ([0-9.]+) (.*)", output)
    assert match, output
    waited, message = float(match.group(1)), match.group(2)
    assert deadline - 0.05 <= waited <= deadline + 2.0, output
    assert elapsed < 30, (elapsed, output)
    assert "all-reduce x" in message and "processes [1]" in message, message
    assert "deadline of 2 s" in message and "XLAPY_COLLECTIVE_TIMEOUT" in message, message


# -- one process: the pieces the multi-process run is made of -----------------------------

ADD_ONE = """HloModule m, num_partitions=4
ENTRY e {
  p = f32[3] parameter(0)
  one = f32[] constant(1)
  b = f32[3] broadcast(one), dimensions={}
  ROOT s = f32[3] add(p, b)
}
"""


@pytest.mark.parametrize("backend", ["cpu", "interpreter"])
def test_execute_replicated_runs_only_the_local_devices(backend):
    compiler, options = (
        (CpuBackend(), CpuOptions(1, 4))
        if backend == "cpu"
        else (InterpreterBackend(), InterpreterOptions(1, 4))
    )
    executable = compiler.compile(parse_module(ADD_ONE), options)
    arguments = [[xlapy.Literal.from_value(np.full(3, d, np.float32))] for d in (2, 3)]
    results = executable.execute_replicated(arguments, local_devices=[2, 3])
    assert [r.to_numpy().tolist() for r in results] == [[3.0] * 3, [4.0] * 3]
    with pytest.raises(XlaError, match="got arguments for 1"):
        executable.execute_replicated(arguments[:1], local_devices=[2, 3])


def test_one_process_job_defaults():
    assert process_info().process_count == 1
    assert allgather_objects([1, 2]) == [[1, 2]]


@needs_mpi
@pytest.mark.parametrize("backend", ["cpu", "interpreter"])
def test_a_sharded_program_gives_the_global_result_in_every_process(backend, tmp_path):
    """exe(*global_arrays) under mpiexec -n 2: xlapy partitions the program, each process
    runs its devices, and every process gets the whole result (programs/mpi_sharded.py)."""
    reports, _ = _launch(tmp_path, SHARDED, "--backend", backend, limit=120)
    for rank, lines in enumerate(reports):
        assert not [line for line in lines if line.startswith("FAIL")], lines
        want = [f"OK {backend} n={n} {case}" for n in (2, 4) for case in ("megatron", "rows")]
        assert lines == [*want, f"DONE {rank} failures=0"], lines
