"""How an Anthropic Messages stream and request are recognised.

Proof: an event named, or typed, ``message_*`` / ``content_block_*`` (its own event types; a
gateway may drop the ``event:`` lines, so the data's ``type`` counts alike); a request to
``…/messages`` or Vertex's ``:streamRawPredict``. Nothing is only likely.
"""

from __future__ import annotations

from inspector.core.base.provider import NO, PROVES, Head, Recognition
from inspector.core.providers.wire.recognition import objects, typed, url_path

TYPES = ("message_", "content_block_")
"""The prefixes of its event types."""


def recognises(head: Head, content_type: str | None, url: str | None) -> Recognition:
    """See the module docstring."""
    if url is not None:
        path = url_path(url)
        if path.endswith("/messages") or path.endswith(":streamRawPredict"):
            return PROVES
    for ev, obj in objects(head):
        if typed(ev.event, TYPES) or (obj is not None and typed(obj.get("type"), TYPES)):
            return PROVES
    return NO
