"""How a Gemini Interactions stream and request are recognised.

Proof: an object with an ``event_type`` of its own (``interaction.*``, ``step.*``, or the
earlier ``content.*``): no other wire names its event type in an ``event_type`` key with those
words; an SSE event named so proves it too. A request to ``…/interactions`` proves it. Nothing
is only likely.
"""

from __future__ import annotations

from typing import Final

from inspector.core.base.provider import NO, PROVES, Head, Recognition
from inspector.core.providers.wire.recognition import objects, typed, url_path

TYPES: Final = ("interaction.", "step.", "content.")
"""The prefixes of its event types."""
KEY: Final = "event_type"
"""Where an event names its type."""


def recognises(head: Head, content_type: str | None, url: str | None) -> Recognition:
    """See the module docstring."""
    if url is not None and url_path(url).endswith("/interactions"):
        return PROVES
    for ev, obj in objects(head):
        if obj is not None and typed(obj.get(KEY), TYPES):
            return PROVES
        if ev.event != "message" and typed(ev.event, TYPES) and obj is not None and KEY in obj:
            return PROVES
    return NO
