"""An attempt's body as units to remove: its wire events (an SSE event with the blank line that
ends it; a keep-alive comment is one too), or, for a body that has no blank-line framing (a
binary event stream, one JSON document), its recorded chunks.

Invariants: joining every unit gives the body back byte for byte; each unit carries the time
its first byte was recorded, so a candidate is written with the recorded times (and a unit kept
alone arrives when it did).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_BOUNDARY = re.compile(rb"\r\n\r\n|\n\n|\r\r")


@dataclass(frozen=True)
class Unit:
    """One wire event (or chunk) of the body."""

    t: float
    data: bytes


def units_of(chunks: list[tuple[float, bytes]]) -> list[Unit]:
    """The body of ``chunks`` as units (see the module docstring)."""
    body = b"".join(data for _, data in chunks)
    if not _BOUNDARY.search(body):
        return [Unit(t, data) for t, data in chunks if data]
    starts = []  # (offset, t) of each chunk
    offset = 0
    for t, data in chunks:
        starts.append((offset, t))
        offset += len(data)
    units: list[Unit] = []
    at = 0
    k = 0
    for match in _BOUNDARY.finditer(body):
        end = match.end()
        while k + 1 < len(starts) and starts[k + 1][0] <= at:
            k += 1
        units.append(Unit(starts[k][1], body[at:end]))
        at = end
    if at < len(body):
        while k + 1 < len(starts) and starts[k + 1][0] <= at:
            k += 1
        units.append(Unit(starts[k][1], body[at:]))
    return units


def chunks_of(units: list[Unit], flat: bool = False) -> list[tuple[float, bytes]]:
    """The units as recorded chunks, one each (``flat``: every time 0, to test timing)."""
    return [(0.0 if flat else u.t, u.data) for u in units]
