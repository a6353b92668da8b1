"""The fragment phase: neighbouring wire events merged into one, dialect-blind.

Two events merge when each is one ``data:`` line holding a JSON object (with the same other
lines, such as ``event:``), and the two objects have the same shape: the same keys and types
everywhere. Where a string differs, the merged event holds the two strings joined (argument
fragments, text deltas); where anything else differs (a sequence number, a padding field),
the first event's value stays. Whether the merged stream still shows the property is the
reducer's question, never this module's: a merge that changes meaning fails that check.

Invariant: no dialect is named or assumed here; the structure of the JSON is all it reads.
"""

from __future__ import annotations

from typing import Any

import orjson

from inspector.core.reduce.units import Unit

_NO = object()


def merged(a: Unit, b: Unit) -> Unit | None:
    """``a`` and ``b`` as one event, or None when they do not merge (module docstring)."""
    pa, pb = _parts(a.data), _parts(b.data)
    if pa is None or pb is None or pa[0] != pb[0] or pa[2] != pb[2]:
        return None
    joined = _join(pa[1], pb[1])
    if joined is _NO or joined == pa[1]:
        return None
    payload = orjson.dumps(joined).decode("utf-8")
    return Unit(a.t, f"{pa[0]}data: {payload}{pa[2]}".encode())


def _parts(data: bytes) -> tuple[str, Any, str] | None:
    """(lines before, the JSON object, what follows) of a one-``data:``-line event."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    lines = text.split("\n")
    data_lines = [i for i, line in enumerate(lines) if line.startswith("data:")]
    if len(data_lines) != 1:
        return None
    i = data_lines[0]
    try:
        value = orjson.loads(lines[i][5:].strip())
    except orjson.JSONDecodeError:
        return None
    if not isinstance(value, dict):
        return None
    return "\n".join(lines[:i]) + ("\n" if i else ""), value, "\n" + "\n".join(lines[i + 1 :])


def _join(x: Any, y: Any) -> Any:
    if isinstance(x, str) and isinstance(y, str):
        return x + y if x != y else x
    if type(x) is not type(y):
        return _NO
    if isinstance(x, dict):
        if list(x) != list(y):
            return _NO
        out = {}
        for key in x:
            value = _join(x[key], y[key])
            if value is _NO:
                return _NO
            out[key] = value
        return out
    if isinstance(x, list):
        if len(x) != len(y):
            return _NO
        items = [_join(p, q) for p, q in zip(x, y, strict=True)]
        return _NO if any(i is _NO for i in items) else items
    return x  # a number, a bool, null: the first event's
