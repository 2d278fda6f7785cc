"""The compiler engineer's tools behind ``xlapy run/opt/explain/profile/bisect``.

Each command is one module with ``register(commands)``, which adds its parser to the
``xlapy`` command line (``xlapy.cli``), and a Python API beside it.
"""
