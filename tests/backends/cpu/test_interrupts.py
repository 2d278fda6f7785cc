"""A native while loop that never ends can be interrupted, as the interpreter can.

Native code runs with the GIL released and never returns to Python by itself,
so Python's SIGINT handler could not run until the loop ended: Ctrl-C was
ignored. Loops poll for pending signals (``emit.control``, ``runtime.native_runtime``), and
the exception a handler raises comes out of the call. The programs run in a
subprocess with a hard timeout, since a failure here is a hang.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import os, signal, sys, threading, time
    import numpy as np
    import xlapy
    from xlapy.hlo import parse_module

    HLO = '''
    HloModule forever
    cond {
      s = (s64[], s64[]) parameter(0)
      i = s64[] get-tuple-element(s), index=0
      n = s64[] get-tuple-element(s), index=1
      ROOT lt = pred[] compare(i, n), direction=LT
    }
    body {
      s = (s64[], s64[]) parameter(0)
      i = s64[] get-tuple-element(s), index=0
      n = s64[] get-tuple-element(s), index=1
      a = s64[] constant(6364136223846793005)
      c = s64[] constant(1442695040888963407)
      ia = s64[] multiply(i, a)
      j = s64[] add(ia, c)
      zero = s64[] constant(0)
      neg = pred[] compare(j, zero), direction=LT
      flipped = s64[] negate(j)
      k = s64[] select(neg, flipped, j)
      ROOT t = (s64[], s64[]) tuple(k, n)
    }
    ENTRY main {
      n = s64[] parameter(0)
      zero = s64[] constant(0)
      init = (s64[], s64[]) tuple(zero, n)
      w = (s64[], s64[]) while(init), condition=cond, body=body
      ROOT r = s64[] get-tuple-element(w), index=0
    }
    '''
    # i stays in [0, 2**63) and n is above it: the loop never ends.
    executable = xlapy.local_client("cpu").compile(parse_module(HLO))
    n = np.asarray(np.iinfo(np.int64).max)
    run = {"fast": lambda: executable(n),
           "literal": lambda: executable.execute_literals([xlapy.Literal.from_numpy(n)])}[
        sys.argv[1]
    ]
    # A process started in the background inherits SIGINT ignored, and then Python
    # installs no handler for it: put Python's own back, as an interactive run has it.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
    start = time.perf_counter()
    try:
        run()
    except KeyboardInterrupt:
        print(f"INTERRUPTED after {time.perf_counter() - start:.2f} s")
    """
)


def _interrupt(path: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, path], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def _assert_interrupted_soon(out: str) -> None:
    assert "INTERRUPTED" in out, out
    seconds = float(out.split("after ")[1].split(" s")[0])
    assert seconds < 5, out  # the signal comes at 0.5 s; polls are 50 ms apart


def test_infinite_while_is_interrupted_through_the_fast_call() -> None:
    _assert_interrupted_soon(_interrupt("fast"))


def test_infinite_while_is_interrupted_through_literals() -> None:
    _assert_interrupted_soon(_interrupt("literal"))


_SIGNAL_BEFORE_PYTHON = textwrap.dedent(
    """
    import ctypes, signal, sys
    import numpy as np
    import xlapy
    from xlapy.hlo import parse_module

    signal.signal(signal.SIGINT, signal.default_int_handler)  # (as in SCRIPT)

    # A C target that sends SIGINT to the process: the signal is pending when native
    # code next calls into Python (the Python target below), so Python's handler raises
    # KeyboardInterrupt at the very entry of the callback, before any of its code runs.
    library = ctypes.CDLL(sys.argv[1])
    xlapy.register_custom_call("xlapy_test_send_sigint", library.send_sigint)
    ran = []
    xlapy.register_custom_call(
        "xlapy_test_after_signal", lambda a: (ran.append(1), np.asarray(a) * 2)[1]
    )
    executable = xlapy.local_client("cpu").compile(parse_module('''HloModule s
    ENTRY e { x = f32[4] parameter(0)
      a = f32[4] custom-call(x), custom_call_target="xlapy_test_send_sigint"
      ROOT b = f32[4] custom-call(a), custom_call_target="xlapy_test_after_signal" }'''))
    for call in (
        lambda: executable(np.ones(4, np.float32)),
        lambda: executable.execute_literals([xlapy.Literal.from_numpy(np.ones(4, np.float32))]),
    ):
        try:
            result = call()
            print("no interrupt; python target ran:", bool(ran), result, flush=True)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
    """
)

_SEND_SIGINT_C = """
#include <signal.h>
#include <string.h>
#include <unistd.h>
void send_sigint(void* out, void** in) {
  memcpy(out, in[0], 4 * sizeof(float));
  kill(getpid(), SIGINT);
}
"""


def test_a_signal_pending_as_native_code_calls_python_interrupts(tmp_path):
    # A callback stopped at its entry returned whatever its return register held, so a
    # run could go on as if the call had succeeded; the status now comes through memory
    # the native caller presets to "interrupted".
    import shutil

    import pytest

    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("needs a C compiler to build the signalling custom-call target")
    source = tmp_path / "send_sigint.c"
    source.write_text(_SEND_SIGINT_C)
    library = tmp_path / "libsend_sigint.so"
    subprocess.run([compiler, "-shared", "-fPIC", "-o", str(library), str(source)], check=True)
    run = subprocess.run(
        [sys.executable, "-c", _SIGNAL_BEFORE_PYTHON, str(library)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.stdout.splitlines() == ["interrupted", "interrupted"], (run.stdout, run.stderr)
