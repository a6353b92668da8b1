"""``@ai-sdk/amazon-bedrock/anthropic`` 5.0.139 (``createAmazonBedrockAnthropic``): Anthropic
models over Bedrock's InvokeModelWithResponseStream, for the ``tool-call`` parts it emits.

The package's fetch (``createAmazonBedrockAnthropicFetch``,
``src/anthropic/amazon-bedrock-anthropic-fetch.ts``) turns the binary event-stream into SSE for
``@ai-sdk/anthropic``'s own stream transform (:class:`~.anthropic.AnthropicRun`), frame by
frame:

- an event frame typed ``chunk``: its payload parsed as JSON; its ``bytes`` (base64) decoded
  and sent as ``data: <the Anthropic event>\n\n``, read back by the SSE parser (a second
  event on its own line inside one chunk is a field it ignores: :func:`sse_datas`); a payload
  that does not parse, or has no ``bytes``, is sent as it is (so the transform's
  ``JSON.parse`` reports it);
- an event frame typed ``messageStop``: ``data: [DONE]`` (ignored by the transform); any other
  event frame: nothing;
- an exception frame: ``data: {"type": "error", "error": {type, message, …}}`` (its
  ``message`` from the payload), an ``error`` part of the transform.

A status that is not 2xx becomes an Anthropic error body with the Bedrock body's ``message``
(``APICallError`` with it: the Cohere-shaped handler, :func:`~.cohere.cohere_status_error`).
The stream is chosen by what it holds: a Bedrock body whose first event is a ``chunk`` is an
InvokeModel stream (:func:`is_invoke`); any other is ConverseStream (:mod:`.bedrock`).

Not modelled: a body served with another content type than the event-stream one (the package
then hands it to the SSE parser untouched).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any, Final

import orjson

from inspector.core.base.model import EventKind, SSEEvent
from inspector.core.clients.base import Exchange, HandedCall
from inspector.core.clients.vercel_ai.anthropic import AnthropicRun
from inspector.core.clients.vercel_ai.bedrock import BedrockRun, frames_ended

CHUNK: Final = "chunk"
"""InvokeModelWithResponseStream's event type."""


def is_invoke(exchange: Exchange) -> bool:
    """Is this Bedrock body an InvokeModel stream (its first event a ``chunk``)?"""
    first = next((e for e in exchange.events if e.kind == EventKind.EVENT), None)
    return first is not None and first.event == CHUNK


def bedrock_run(exchange: Exchange) -> AnthropicRun | BedrockRun:
    """The package's reader of this Bedrock body: InvokeModel or ConverseStream."""
    return BedrockInvokeRun(exchange) if is_invoke(exchange) else BedrockRun(exchange)


def _as_sse(event: SSEEvent, data: str) -> SSEEvent:
    return SSEEvent(event.seq, EventKind.EVENT, "message", data, None, None, event.start, event.end,
                    event.t)  # fmt: skip


class BedrockInvokeRun(AnthropicRun):
    """One InvokeModel stream through ``@ai-sdk/amazon-bedrock/anthropic`` (see the module)."""

    def feed(self, event: SSEEvent) -> None:
        if event.kind != EventKind.EVENT:
            return
        kind = event.event or ""
        if kind == CHUNK:
            for data in sse_datas(_chunk_data(event.data)):
                super().feed(_as_sse(event, data))
        elif kind.endswith(("Exception", "exception")):
            super().feed(_as_sse(event, _exception(kind, event.data)))
        # messageStop is [DONE], any other event frame sends nothing

    def finish(self) -> list[HandedCall]:
        """As ConverseStream's decoder: a body cut short is undici's ``TypeError:
        terminated``; bytes that are no whole frame, the decoder's ``Error``."""
        raised = frames_ended(self.exchange)
        if raised is not None:
            self.throw(raised)
        return super().finish()


def _chunk_data(data: str) -> str:
    """What the fetch sends for a ``chunk`` frame's payload."""
    try:
        payload = orjson.loads(data)
    except orjson.JSONDecodeError:
        return data
    raw = payload.get("bytes") if isinstance(payload, dict) else None
    if not raw:
        return data
    try:
        return base64.b64decode(str(raw)).decode("utf-8", "replace")
    except (binascii.Error, ValueError):
        return data


def sse_datas(text: str) -> list[str]:
    """The data of each event ``eventsource-parser`` dispatches from ``data: {text}\n\n``:
    the text's first line is data; after a line break, an empty line dispatches, a ``data:``
    line adds a line of data, any other line is a field the parser ignores (an Anthropic
    event on a line of its own after another is never read: its ``{"type"`` is a field
    name)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    out: list[str] = []
    data: list[str] = [lines[0]]
    for line in lines[1:]:
        if not line:
            if data:
                out.append("\n".join(data))
            data = []
        elif line.startswith("data:"):
            value = line[5:]
            data.append(value[1:] if value.startswith(" ") else value)
    if data:
        out.append("\n".join(data))
    return out


def _exception(kind: str, data: str) -> str:
    """The Anthropic ``error`` event the fetch sends for an exception frame."""
    try:
        payload: Any = orjson.loads(data)
    except orjson.JSONDecodeError:
        payload = data
    message = payload.get("message") if isinstance(payload, dict) else None
    error = {"type": kind, "message": message if isinstance(message, str) else data}
    return orjson.dumps({"type": "error", "error": error}).decode()
