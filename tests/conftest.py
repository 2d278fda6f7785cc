"""Test-suite wide hooks, and the hypothesis profiles.

``make test`` runs the profile ``ci``: derandomized (the examples follow from each test's
name) and without the example database, so a red run always means a regression and a
rerun shows the same examples. ``HYPOTHESIS_PROFILE=explore`` draws fresh random
examples and remembers failures in ``.hypothesis/`` (``make fuzz`` explores on its own,
see ``xlapy.testing.fuzz``).
"""

import os

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    """A program that makes the real XLA abort (a CHECK failure inside XLA) says nothing
    about xlapy: report it as a skip naming the reason, not as a failure or a crash."""
    outcome = yield
    error = outcome.excinfo[1] if outcome.excinfo else None
    from xlapy.testing.xla_oracle import XlaCrashedError

    if isinstance(error, XlaCrashedError):
        outcome.force_exception(pytest.skip.Exception(f"the XLA oracle crashed: {error}"))
