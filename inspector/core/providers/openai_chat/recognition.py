"""How a Chat Completions stream and request are recognised.

Likely: a chunk with ``choices`` (or ``"object": "chat.completion.chunk"``): the shape every
OpenAI-compatible server imitates, so it proves nothing on its own. A request to
``…/chat/completions`` proves it.
"""

from __future__ import annotations

from inspector.core.base.provider import LIKELY, NO, PROVES, Head, Recognition
from inspector.core.providers.wire.recognition import objects, url_path

CHUNK = "chat.completion.chunk"
"""The ``object`` of a streamed chunk."""


def recognises(head: Head, content_type: str | None, url: str | None) -> Recognition:
    """See the module docstring."""
    if url is not None and url_path(url).endswith("/chat/completions"):
        return PROVES
    for _ev, obj in objects(head):
        if obj is not None and ("choices" in obj or obj.get("object") == CHUNK):
            return LIKELY
    return NO
