"""Helpers for testing xlapy and programs built with it (needs the ``test`` extra)."""
