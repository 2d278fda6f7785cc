"""The seed's client-server design out of process: ``xlapy serve`` and ``xlapy.connect``.

``server`` runs :class:`~xlapy.service.service.XlaService` over gRPC (``command`` is the
``xlapy serve`` command); ``remote_client`` is the client with ``LocalClient``'s methods.
Messages are tables (``messages``) next to XLA's own protos. Nothing here imports
``grpc`` or ``google.protobuf`` until it is used. See docs/service.md.
"""
