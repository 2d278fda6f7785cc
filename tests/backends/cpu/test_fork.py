"""A forked child can run executables after the parent has used the thread pool.

The pool's threads do not survive ``fork``, but its state did: a child that
called a parallel kernel waited forever for workers it did not have. The
runtime forgets the pool in the child (``runtime_ir``). The programs run in a
subprocess with a hard timeout, since a failure here is a hang.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(
    """
    import multiprocessing, os, sys
    import numpy as np
    import xlapy
    from xlapy.backends.cpu.emit.loops import PARALLEL_MIN_ELEMENTS
    from xlapy.hlo import parse_module

    n = 8 * PARALLEL_MIN_ELEMENTS  # split across the pool
    HLO = f'''
    HloModule twice
    ENTRY main {{
      x = f32[{n}] parameter(0)
      y = f32[{n}] parameter(1)
      s = f32[{n}] add(x, y)
      ROOT m = f32[{n}] multiply(s, s)
    }}
    '''
    executable = xlapy.local_client("cpu").compile(parse_module(HLO))
    x = np.arange(n, dtype=np.float32) % 7
    y = np.ones(n, np.float32)
    expected = (x + y) * (x + y)
    assert np.array_equal(executable(x, y), expected)  # the pool has started

    def child() -> int:
        for _ in range(3):
            if not np.array_equal(executable(x, y), expected):
                return 1
        return 0

    if sys.argv[1] == "fork":
        pid = os.fork()
        if pid == 0:
            os._exit(child())
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
    else:
        process = multiprocessing.get_context("fork").Process(target=lambda: sys.exit(child()))
        process.start()
        process.join()
        code = process.exitcode
    assert np.array_equal(executable(x, y), expected)  # and the parent's pool still works
    print("CHILD EXIT", code)
    """
)


@pytest.mark.parametrize("how", ["fork", "multiprocessing"])
def test_child_runs_parallel_kernel_after_fork(how: str) -> None:
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, how], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert "CHILD EXIT 0" in result.stdout, result.stdout + result.stderr
