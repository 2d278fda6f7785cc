"""The public API imports the way users write it."""

import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    "expression",
    [
        "xlapy.hlo.parse_module",
        "xlapy.stablehlo.parse_module",
        "xlapy.lib.math",
        "xlapy.passes",
        "xlapy.local_client",
        "xlapy.unregister_custom_call",
    ],
)
def test_submodules_are_reachable_after_a_plain_import(expression: str) -> None:
    # A fresh interpreter: in this one the test suite has imported everything already.
    code = f"import xlapy\nprint({expression} is not None)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stdout.strip() == "True", run.stderr


def test_an_unknown_attribute_is_an_attribute_error() -> None:
    import xlapy

    with pytest.raises(AttributeError, match="no attribute 'nonexistent'"):
        xlapy.nonexistent  # noqa: B018
    assert "stablehlo" in dir(xlapy)
