"""``@ai-sdk/amazon-bedrock`` 5.0.139's ConverseStream transform (``doStream`` of
``bedrock-chat-language-model.ts``), for the ``tool-call`` parts it emits.

The SDK decodes the binary AWS event-stream frames and reads each event as
``{<:event-type>: payload}``. The inspector's events come in two forms, read alike: a real
frame (``event`` the ``:event-type``, ``data`` the payload) and the fixtures' JSON lines
(``data`` already ``{"contentBlockDelta": …}``).

What the SDK does, modelled here:
- An exception event (``internalServerException``, ``modelStreamErrorException``,
  ``serviceUnavailableException``, ``throttlingException``, ``validationException``) is an
  ``error`` part (``StreamProviderError`` with its ``message``); the stream goes on.
- ``contentBlockStart`` with ``start.toolUse`` opens a call at its ``contentBlockIndex``
  (``toolUseId``, ``name``, empty text); ``contentBlockDelta`` with ``delta.toolUse`` appends
  ``input`` to the call open at its index; ``contentBlockStop`` emits the ``tool-call`` part
  of the call open at its index, input its text (``"{}"`` when empty), and closes it.
- A status that is not 2xx: ``APICallError`` with the body's ``message`` (as Cohere's
  handler: :func:`~.cohere.cohere_status_error`). A body cut short: ``TypeError:
  terminated``; a body of no frames: the decoder's ``Error`` (:meth:`BedrockRun.finish`).
- Ids are the wire's own (``normalizeToolCallId`` only rewrites them for Mistral models).

Not modelled: the JSON response tool (``json``, only with ``responseFormat``), Mistral id
rewriting, and the chunk schema's ``TypeValidationError`` parts.
"""

from __future__ import annotations

from typing import Any, Final

from inspector.core.base.model import SSEEvent
from inspector.core.clients.base import ClientRaised, Exchange, HandedCall
from inspector.core.clients.vercel_ai.parts import PartsRun, provider_stream_error
from inspector.core.providers.bedrock_converse.eventstream import prelude_ok

_EXCEPTIONS: Final = (
    "internalServerException",
    "modelStreamErrorException",
    "serviceUnavailableException",
    "throttlingException",
    "validationException",
)
_SSE: Final = "text/event-stream"
_EVENTS: Final = frozenset(
    {"messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop",
     "messageStop", "metadata", *_EXCEPTIONS}
)  # fmt: skip


class BedrockRun(PartsRun):
    """One ConverseStream through ``@ai-sdk/amazon-bedrock`` (see the module)."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.blocks: dict[Any, list[Any]] = {}
        """Open calls by content block index: ``[id, name, text so far]``."""
        self.kind: str | None = None

    def feed(self, event: SSEEvent) -> None:
        self.kind = event.event if event.event in _EVENTS else None
        super().feed(event)

    def chunk(self, value: dict[str, Any]) -> None:
        if self.kind is not None:  # a real frame: the payload of its :event-type
            value = {self.kind: value}
        for name in _EXCEPTIONS:
            if value.get(name):
                self.error_part(provider_stream_error(value[name]))
                return
        start = value.get("contentBlockStart")
        if isinstance(start, dict):
            begun = start.get("start")
            tool = begun.get("toolUse") if isinstance(begun, dict) else None
            if isinstance(tool, dict):
                index = start.get("contentBlockIndex")
                self.blocks[index] = [tool.get("toolUseId"), tool.get("name"), ""]
        delta = value.get("contentBlockDelta")
        if isinstance(delta, dict):
            inner = delta.get("delta")
            tool = inner.get("toolUse") if isinstance(inner, dict) else None
            block = self.blocks.get(delta.get("contentBlockIndex"))
            if isinstance(tool, dict) and tool and block is not None:
                text = tool.get("input")
                block[2] += text if isinstance(text, str) else ""
        stop = value.get("contentBlockStop")
        if isinstance(stop, dict) and stop.get("contentBlockIndex") is not None:
            block = self.blocks.pop(stop["contentBlockIndex"], None)
            if block is not None:
                id_, name, text = block
                self.emit(id_, name, text or "{}")

    def finish(self) -> list[HandedCall]:
        """A body cut short throws undici's ``TypeError: terminated`` (not ``APICallError``);
        a body that is no frames at all (another content type, not the fixtures' JSON lines)
        is one incomplete frame: the decoder's ``Error`` with its length."""
        raised = frames_ended(self.exchange)
        if raised is not None:
            self.throw(raised)
        return super().finish()


def frames_ended(exchange: Exchange) -> ClientRaised | None:
    """How the AI SDK's fetch of an event-stream body ends, where it throws: undici's
    ``TypeError: terminated`` for a body cut short, else the event-stream decoder's ``Error``
    for a body that is no frames at all (another content type, not the fixtures' JSON lines);
    None for a clean end."""
    if exchange.transport_error:
        return ClientRaised("TypeError", "terminated")
    body, ctype = exchange.body, exchange.content_type
    if body and ctype not in (None, _SSE) and not prelude_ok(body):
        return ClientRaised("Error", _INCOMPLETE.format(len(body)))
    return None


_INCOMPLETE: Final = (
    "Incomplete Amazon Bedrock event-stream frame: {} buffered bytes remain at end of stream."
)
