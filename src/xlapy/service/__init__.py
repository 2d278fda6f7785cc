"""The seed's client-server design out of process: ``xlapy serve`` and ``xlapy.connect``."""
