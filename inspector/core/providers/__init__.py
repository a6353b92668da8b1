"""Dialects: map one provider's wire events to normalized deltas.

A dialect is fed the decoded SSE events of one response body in order and appends
:class:`~inspector.core.base.model.Delta` / :class:`~inspector.core.base.model.ToolCallDelta`
objects.

Invariants (every dialect):
- Tool-call identity fields are kept exactly as received: ``OMITTED`` when the key is absent,
  otherwise the value itself (``None``, ``""``, ``"null"`` …). No dialect normalises them; the
  accumulator applies the user's policy and the UI shows them verbatim.
- Every delta carries the ``seq`` of the wire event it came from, and deltas are appended in
  wire order.
- Comments become KEEPALIVE, wire decode errors ERROR (``raw={"wire": "decode"}``), data that
  is not JSON UNKNOWN (``{"undecodable": …}``) or KEEPALIVE for a comment re-wrapped as data
  (``data: : …``); provider errors after HTTP 200 become ERROR with a one-line message and the
  object in ``raw``; recognised-but-unmapped objects become UNKNOWN, kept verbatim.
- Dialects are pure (no I/O) and hold only the little state their protocol needs (the
  Responses item-id -> output_index map, the auto dialect's sniff buffer).
"""

from __future__ import annotations

from typing import Protocol

from inspector.core.base.model import AnyDelta, SSEEvent
from inspector.core.providers.anthropic import Anthropic
from inspector.core.providers.gemini import Gemini
from inspector.core.providers.openai_chat import OpenAIChat
from inspector.core.providers.responses import Responses
from inspector.core.providers.sniff import CLASSES, AutoDialect, sniff, sniff_url


class Dialect(Protocol):
    """What a dialect provides: a name, ``feed`` per wire event, ``finish`` at end of stream."""

    name: str

    def feed(self, ev: SSEEvent, out: list[AnyDelta]) -> None:
        """Append the deltas for one wire event, in wire order."""

    def finish(self, out: list[AnyDelta]) -> None:
        """End of stream (may append nothing)."""


DIALECTS: dict[str, type[Dialect]] = CLASSES
"""The concrete dialects by name (``auto`` is not one: it sniffs, then delegates); the table
lives in :mod:`.sniff`, which needs it and is imported by this module."""


def make_dialect(name: str) -> Dialect:
    """A fresh dialect for ``name``: one of :data:`DIALECTS` or ``"auto"``."""
    if name == "auto":
        return AutoDialect()
    try:
        cls = DIALECTS[name]
    except KeyError:
        known = ", ".join(["auto", *DIALECTS])
        raise ValueError(f"unknown dialect {name!r} (known: {known})") from None
    return cls()


__all__ = [
    "DIALECTS",
    "Anthropic",
    "AutoDialect",
    "Dialect",
    "Gemini",
    "OpenAIChat",
    "Responses",
    "make_dialect",
    "sniff",
    "sniff_url",
]
