"""How an OpenAI Responses stream and request are recognised.

Proof: an event named, or typed, ``response.*`` (its own event types); a request to
``…/responses`` (or ``…/responses/resp_…``). Nothing is only likely.
"""

from __future__ import annotations

from inspector.core.base.provider import NO, PROVES, Head, Recognition
from inspector.core.providers.wire.recognition import objects, typed, url_path

TYPES = ("response.",)
"""The prefix of its event types."""


def recognises(head: Head, content_type: str | None, url: str | None) -> Recognition:
    """See the module docstring."""
    if url is not None:
        path = url_path(url)
        before, _, last = path.rpartition("/")
        if path.endswith("/responses") or (
            before.endswith("/responses") and last.startswith("resp_")
        ):
            return PROVES
    for ev, obj in objects(head):
        if typed(ev.event, TYPES) or (obj is not None and typed(obj.get("type"), TYPES)):
            return PROVES
    return NO
