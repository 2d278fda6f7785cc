"""xlapy's version, in a module of its own so that any layer can read it (the persistent
compile cache's key) without importing the package's top level."""

__version__ = "0.1.0"
