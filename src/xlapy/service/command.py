"""Placeholder: ``xlapy serve`` is being written (issue 20)."""

from __future__ import annotations

import argparse


def register(commands: argparse._SubParsersAction) -> None:
    """Nothing registered yet."""
