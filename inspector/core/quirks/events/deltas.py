"""Quirks non-tool deltas show: on its own (:func:`delta_quirks`), or with the few before it
(tags in the text, :class:`TextTags`; fields of the wrong type, :class:`WrongFields`).

Invariants: :func:`delta_quirks` is a pure function of the delta; the events' scan
(:class:`~inspector.core.quirks.events.scan.EventScan`) calls it once per non-tool delta, and
feeds the other two each delta of theirs once, in arrival order.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from inspector.core.base.model import Delta, DeltaKind
from inspector.core.quirks.codes import (
    EMPTY_ROLE,
    ERROR_AFTER_200,
    EVENTS_NOT_SEPARATED,
    KEEPALIVE_IN_DATA,
    TEXT_MODE_TOOL_CALL,
    UNDECODABLE_DATA,
    USAGE_ONLY_CHUNK,
    WIRE_FIELD_TYPE,
)
from inspector.core.quirks.seen import Seen


def delta_quirks(d: Delta, seen: Seen) -> None:
    """What one non-tool delta shows by itself (an error in a 200 stream, a usage-only chunk,
    an empty role, a keep-alive re-wrapped as data, undecodable or joined events)."""
    kind = d.kind
    if kind == DeltaKind.ERROR:
        raw = d.raw if isinstance(d.raw, dict) else {}
        if raw.get("wire") != "decode":
            seen.add(ERROR_AFTER_200, d.seq, str(d.value)[:120])
    elif kind == DeltaKind.USAGE:
        if isinstance(d.raw, dict) and d.raw.get("choices") == []:
            seen.add(USAGE_ONLY_CHUNK, d.seq)
    elif kind == DeltaKind.META:
        if isinstance(d.value, dict) and d.value.get("role") == "":
            seen.add(EMPTY_ROLE, d.seq)
    elif kind == DeltaKind.KEEPALIVE:
        if isinstance(d.raw, str) and d.raw.lstrip().startswith(":"):
            seen.add(KEEPALIVE_IN_DATA, d.seq, repr(d.raw[:40]))
    elif kind == DeltaKind.UNKNOWN and isinstance(d.value, dict) and "undecodable" in d.value:
        joined = _joined_events(d.raw)
        if joined:
            seen.add(EVENTS_NOT_SEPARATED, d.seq, f"{joined} JSON values in one event")
        else:
            seen.add(UNDECODABLE_DATA, d.seq, str(d.value["undecodable"])[:80])


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


FIELDS_NAMED = 4
"""Distinct wrong-type fields the ``wire_field_type`` note names (then counts the rest)."""

_TEXT_CALL = re.compile(r"<tool_call>|<function_call>|<\|tool_call|\[TOOL_CALLS\]")
_TAG_TAIL = 16  # characters of earlier text kept: longer than any _TEXT_CALL match


class WrongFields:
    """Fields of the wrong type, one hit per event; the note names each distinct one (up to
    :data:`FIELDS_NAMED`) with the first chunk showing it."""

    __slots__ = ("fields",)

    def __init__(self) -> None:
        self.fields: dict[str, int] = {}  # wrong-type field description -> its first chunk

    def add(self, seq: int, field: str, seen: Seen) -> None:
        """A field described as ``field`` had the wrong type in chunk ``seq``."""
        seen.add(WIRE_FIELD_TYPE, seq)
        fields = self.fields
        if field in fields:
            return
        fields[field] = seq
        named = [f"{f} (chunk {s})" for f, s in list(fields.items())[:FIELDS_NAMED]]
        more = len(fields) - FIELDS_NAMED
        seen.notes[WIRE_FIELD_TYPE] = "; ".join(named) + (f"; {more} more" if more > 0 else "")


class TextTags:
    """Tool-call tags in the assistant text, as it streams: a tag may straddle deltas, and then
    all their chunks show it (only the last few characters are kept, with their chunks)."""

    __slots__ = ("tail",)

    def __init__(self) -> None:
        self.tail: list[tuple[int, str]] = []  # the last text characters, with their chunks

    def feed(self, seq: int, value: str, seen: Seen) -> None:
        """The text delta ``value`` of chunk ``seq``."""
        pieces = [*self.tail, (seq, value)]
        window = "".join(text for _, text in pieces)
        fresh = len(window) - len(value)
        for m in _TEXT_CALL.finditer(window):
            if m.end() <= fresh:
                continue  # wholly in the tail: reported with an earlier delta
            pos = 0
            for s, text in pieces:
                if pos < m.end() and pos + len(text) > m.start():
                    seen.add(TEXT_MODE_TOOL_CALL, s)
                pos += len(text)
        tail: list[tuple[int, str]] = []
        need = _TAG_TAIL
        for s, text in reversed(pieces):
            if need <= 0:
                break
            tail.insert(0, (s, text[-need:]))
            need -= len(text)
        self.tail = tail
