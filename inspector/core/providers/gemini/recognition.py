"""How a Gemini stream and request are recognised.

Proof: a ``GenerateContentResponse`` (an object with ``candidates`` or ``usageMetadata``) that
is, as Gemini sends it, untyped (no ``type`` key) on an unnamed event; the same keys on a named
or typed event are only likely. A request to ``:streamGenerateContent`` or
``:generateContent`` proves it.
"""

from __future__ import annotations

from inspector.core.base.provider import LIKELY, NO, PROVES, Head, Recognition
from inspector.core.providers.wire.recognition import objects, url_path

KEYS = ("candidates", "usageMetadata")
"""The keys of a ``GenerateContentResponse`` every chunk has one of."""


def recognises(head: Head, content_type: str | None, url: str | None) -> Recognition:
    """See the module docstring."""
    if url is not None and url_path(url).endswith((":streamGenerateContent", ":generateContent")):
        return PROVES
    found = NO
    for ev, obj in objects(head):
        if obj is not None and (KEYS[0] in obj or KEYS[1] in obj):
            if ev.event == "message" and "type" not in obj:
                return PROVES
            found = LIKELY
    return found
