"""The XLA oracle runs XLA in a worker process, so that an abort inside XLA is survivable."""

import os

import numpy as np
import pytest

pytest.importorskip("jax", reason="the XLA oracle needs jax (the test extra)")

from xlapy.testing import xla_oracle  # noqa: E402

ADD = """HloModule m
ENTRY e {
  x = f32[3] parameter(0)
  ROOT y = f32[3] add(x, x)
}"""


def test_runs_programs_and_reports_parse_errors():
    (out,) = xla_oracle.run_hlo_text(ADD, [np.float32([1, 2, 3])])
    np.testing.assert_array_equal(out, [2, 4, 6])
    with pytest.raises(xla_oracle.InvalidArgumentError, match="XLA cannot parse"):
        xla_oracle.run_hlo_text("HloModule m\nENTRY e {", [])


def test_a_dying_worker_is_an_error_and_is_replaced(monkeypatch):
    worker = xla_oracle._worker or xla_oracle._Worker()
    xla_oracle._worker = worker
    os.kill(worker.process.pid, 9)  # as an XLA CHECK failure would end it
    worker.process.join()
    with pytest.raises(xla_oracle.XlaCrashedError, match="aborted"):
        worker.run(ADD, [np.float32([1, 2, 3])], timeout=30)
    (out,) = xla_oracle.run_hlo_text(ADD, [np.float32([1, 1, 1])])  # a fresh worker
    np.testing.assert_array_equal(out, [2, 2, 2])
