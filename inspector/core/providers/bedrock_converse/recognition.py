"""How a Bedrock stream and request are recognised.

Proof: a request to ``…/converse-stream`` or ``…/invoke-with-response-stream`` (the
bedrock-runtime paths), the content type ``application/vnd.amazon.eventstream``, or a body
that starts with an event-stream prelude whose CRC matches and whose first header block
names a ``:message-type`` (a zero-byte-led prelude with a matching CRC alone is likely).
Likely: a body whose first line is a JSON object of one key, a ConverseStream event type
(``{"messageStart": …}``, ``{"contentBlockDelta": …}``; the SDKs' JSON-lines form).
"""

from __future__ import annotations

import orjson

from inspector.core.base.provider import LIKELY, NO, PROVES, Head, Recognition
from inspector.core.providers.bedrock_converse.dialect import EVENTS
from inspector.core.providers.bedrock_converse.eventstream import (
    CONTENT_TYPE,
    MESSAGE_TYPE,
    PRELUDE,
    HeaderError,
    prelude_ok,
    read_headers,
)
from inspector.core.providers.wire.recognition import url_path

PATHS = ("/converse-stream", "/invoke-with-response-stream")
"""The streaming paths of bedrock-runtime (``/model/{modelId}/…``)."""


def recognises(head: Head, content_type: str | None, url: str | None) -> Recognition:
    """See the module docstring."""
    if url is not None and url_path(url).endswith(PATHS):
        return PROVES
    if content_type is not None and content_type.lower().startswith(CONTENT_TYPE):
        return PROVES
    data = head.data
    if not data:
        return NO
    if data[0] == 0:
        return _frames(data)
    return _lines(data)


def _frames(data: bytes) -> Recognition:
    if not prelude_ok(data):
        return NO
    hlen = int.from_bytes(data[4:8], "big")
    if len(data) < PRELUDE + hlen:
        return LIKELY
    try:
        names = {name for name, _ in read_headers(data[PRELUDE : PRELUDE + hlen])}
    except HeaderError:
        return LIKELY
    return PROVES if MESSAGE_TYPE in names else LIKELY


def _lines(data: bytes) -> Recognition:
    line = data.lstrip().split(b"\n", 1)[0]
    try:
        obj = orjson.loads(line)
    except orjson.JSONDecodeError:
        return NO
    if type(obj) is dict and len(obj) == 1 and next(iter(obj)) in EVENTS:
        return LIKELY
    return NO
