"""Quirks one non-tool delta shows on its own, whatever came before it.

Invariants: pure functions of the delta; the wire scan
(:class:`~inspector.core.verdicts.quirkscan.WireScan`) calls :func:`delta_quirks` once per
delta it reads.
"""

from __future__ import annotations

from typing import Any

import orjson

from inspector.core.base.model import Delta, DeltaKind
from inspector.core.verdicts.seen import Seen


def delta_quirks(d: Delta, seen: Seen) -> None:
    """What one non-tool delta shows by itself (an error in a 200 stream, a usage-only chunk,
    an empty role, a keep-alive re-wrapped as data, undecodable or joined events)."""
    kind = d.kind
    if kind == DeltaKind.ERROR:
        raw = d.raw if isinstance(d.raw, dict) else {}
        if raw.get("wire") != "decode":
            seen.add("error_after_200", d.seq, str(d.value)[:120])
    elif kind == DeltaKind.USAGE:
        if isinstance(d.raw, dict) and d.raw.get("choices") == []:
            seen.add("usage_only_chunk", d.seq)
    elif kind == DeltaKind.META:
        if isinstance(d.value, dict) and d.value.get("role") == "":
            seen.add("empty_role", d.seq)
    elif kind == DeltaKind.KEEPALIVE:
        if isinstance(d.raw, str) and d.raw.lstrip().startswith(":"):
            seen.add("keepalive_in_data", d.seq, repr(d.raw[:40]))
    elif kind == DeltaKind.UNKNOWN and isinstance(d.value, dict) and "undecodable" in d.value:
        joined = _joined_events(d.raw)
        if joined:
            seen.add("events_not_separated", d.seq, f"{joined} JSON values in one event")
        else:
            seen.add("undecodable_data", d.seq, str(d.value["undecodable"])[:80])


def _joined_events(data: Any) -> int:
    """How many whole events ``data`` holds when it is several JSON values on lines of their own
    (``data:`` lines with no blank line between them, joined by the SSE decoder); else 0."""
    if not isinstance(data, str) or "\n" not in data:
        return 0
    lines = [line for line in data.split("\n") if line.strip()]
    for line in lines:
        if line.strip() == "[DONE]":
            continue
        try:
            orjson.loads(line)
        except orjson.JSONDecodeError:
            return 0
    return len(lines) if len(lines) > 1 else 0
