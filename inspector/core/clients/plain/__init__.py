"""Clients judged without a replay where none can differ: the *plain stream*.

A plain stream is one whose every byte is in the one shape every client library of its
dialect reads alike (standard framing, every event valid UTF-8 JSON of the dialect's
well-formed shape, each call started once with its id and name and then only appended to,
complete JSON-object arguments, the end marker, no error). On such a stream a replica's
reading is a pure function of the inspector's own calls, so a replica that declares it
(:attr:`~inspector.core.clients.base.Replica.plain`) is judged from that function instead of
being fed every event again (:mod:`.reading`); one dialect's predicate is one module
(:mod:`.chat`) and one line in :data:`.reading.READERS`.

This is proven, not assumed: ``tests/core/clients/plain/`` runs every golden, generated and
mutated stream through both the shortcut and the real replica code and asserts the same
outcome wherever the predicate says plain (and that it says so on the bench stream and the
recorded plain streams, and refuses the streams a library reads differently).
"""
