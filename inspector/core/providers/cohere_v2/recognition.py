"""How a Cohere v2 chat stream and request are recognised.

Proof: an event named, or typed, with one of Cohere's hyphenated stream event types
(``message-start``, ``content-delta``, ``tool-plan-delta``, ``tool-call-start`` …: no other wire
spells an event type with hyphens); a request to ``…/v2/chat``. Nothing is only likely.
"""

from __future__ import annotations

from typing import Final

from inspector.core.base.provider import NO, PROVES, Head, Recognition
from inspector.core.providers.wire.recognition import objects, url_path

TYPES: Final = frozenset(
    {
        "message-start", "message-end", "content-start", "content-delta", "content-end",
        "tool-plan-delta", "tool-call-start", "tool-call-delta", "tool-call-end",
        "citation-start", "citation-end", "debug",
    }
)  # fmt: skip
"""Its stream event types (the cohere SDK's ``StreamedChatResponseV2`` union)."""
OWN: Final = frozenset(TYPES - {"debug"})
"""The types that prove it on their own (``debug`` is too plain a word)."""


def recognises(head: Head, content_type: str | None, url: str | None) -> Recognition:
    """See the module docstring."""
    if url is not None and url_path(url).endswith("/v2/chat"):
        return PROVES
    for ev, obj in objects(head):
        if ev.event in OWN:
            return PROVES
        if obj is not None:
            kind = obj.get("type")
            if type(kind) is str and kind in OWN:
                return PROVES
    return NO
