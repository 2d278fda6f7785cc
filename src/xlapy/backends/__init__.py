"""Backends: what turns an ``HloModule`` into something that runs.

``interpreter`` evaluates HLO with numpy (the reference); ``cpu`` (planned)
compiles it through LLVM. The client picks one by platform name.
"""
