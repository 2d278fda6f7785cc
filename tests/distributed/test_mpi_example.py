"""examples/spmd_mlp.py under ``mpiexec -n 2``: the data- and tensor-parallel MLP steps
partitioned over the devices of two processes match the one-device step in each process
(the example asserts it), and the chained steps agree on every device of both."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MPIEXEC = shutil.which("mpiexec", path=str(Path(sys.executable).parent)) or shutil.which("mpiexec")
EXAMPLE = ROOT / "examples" / "spmd_mlp.py"


@pytest.mark.skipif(MPIEXEC is None, reason="mpiexec is not installed (pip install mpich)")
@pytest.mark.parametrize("devices", [1, 2])
def test_spmd_mlp_example_runs_on_two_processes(devices):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), XLAPY_COLLECTIVE_TIMEOUT="30")
    done = subprocess.run(
        [MPIEXEC, "-n", "2", sys.executable, str(EXAMPLE), "--steps", "2",
         "--devices", str(devices)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    n = 2 * devices
    for rank in (0, 1):
        assert f"[{rank}] OK" in output, output
        assert f"[{rank}] == data parallel on {n} cpu devices ({devices} in this process)" in output
        assert f"[{rank}] == chained data parallel" in output
    # Data and tensor parallel, in both processes (their lines may run together): the
    # same losses, each the one-device step's.
    steps = re.findall(r"\[(\d)\] step 1: loss ([-\d.]+) \(one device: ([-\d.]+)\)", output)
    assert len(steps) == 4, output
    for rank in (0, 1):
        assert [s[1:] for s in steps if s[0] == str(rank)] == [s[1:] for s in steps if s[0] == "0"]
