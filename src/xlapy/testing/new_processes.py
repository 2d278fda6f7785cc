"""Run a Python snippet in new processes and read what it reports: how tests check what
a second process finds (a persistent compile cache, a runtime library kept on disk)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any


def reports(script: str, runs: int = 2, **environment: str) -> list[dict[str, Any]]:
    """``script`` run ``runs`` times, each in a new interpreter with ``environment``
    added to this one's (and ``XLAPY_CPU_TARGET`` removed: the host's code); each run's
    last line of output, read as JSON."""
    env = dict(os.environ, **environment)
    env.pop("XLAPY_CPU_TARGET", None)
    found = []
    for _ in range(runs):
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                              text=True, timeout=120, check=True)  # fmt: skip
        found.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return found
