"""The ``lanes`` family: what the tool-call fragments of one wire lane (a wire index of one
choice) show as they arrive, whatever a policy routes where: ids and names as received,
indexes, repeats, arguments before identity, and each lane's argument text (followed as a
JSON state for the ``silent_truncation`` check, :mod:`.text`).
"""
