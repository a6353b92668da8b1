"""Amazon Bedrock ConverseStream streams (binary AWS event-stream frames), clean and quirky (a
Converse request is read by :mod:`.conversation`, as every dialect's is).

``/model/{id}/invoke-with-response-stream`` (what ``AnthropicBedrock`` calls) answers an
Anthropic Messages request with the anthropic renderer's events, each in a ``chunk`` frame
(:func:`invoke_chunks`).

The conforming stream copies the API's shape: ``messageStart`` (role), an optional text block
at index 0 (``contentBlockDelta`` text, ``contentBlockStop``), then one block per call:
``contentBlockStart`` with ``toolUse`` (``tooluse_…`` id, name), ``contentBlockDelta``
``toolUse.input`` string fragments, ``contentBlockStop``; then ``messageStop`` (stopReason
``tool_use`` or ``end_turn``) and ``metadata`` (usage, metrics). Each event is one frame:
``:event-type``, ``:content-type: application/json``, ``:message-type: event``.

Invariants:
- :func:`render` is pure: a :class:`~.wire.Turn` in, frames out; every ``bytes`` frame is one
  whole event-stream frame with correct CRCs (:func:`reframe` restores them after a byte
  fault rewrote a payload, as a server that sends bad text in a good frame would).
- :data:`VARIANTS` keys are scenario names (or ``demo-truncated``); each changes only its quirk.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import orjson

from inspector.core.base.model import EventKind
from inspector.core.events.sse import SSE
from inspector.core.providers.bedrock_converse.eventstream import (
    PRELUDE,
    encode_frame,
    event_frame,
    exception_frame,
    prelude_ok,
    read_headers,
)

from .wire import Call, Frame, Split, Turn, at_least, pieces, taking_turns, words

CONTENT_TYPE = "application/vnd.amazon.eventstream"
"""What the endpoint streams as."""


class Converse:
    """Builds one ConverseStream response's frames."""

    def __init__(self, turn: Turn) -> None:
        self.turn = turn
        self.first_tool = 1 if turn.text else 0

    @staticmethod
    def event(kind: str, **fields: Any) -> bytes:
        return event_frame(kind, orjson.dumps(fields))

    def start(self) -> bytes:
        return self.event("messageStart", role="assistant")

    def text(self) -> list[Frame]:
        if not self.turn.text:
            return []
        out: list[Frame] = [
            self.event("contentBlockDelta", contentBlockIndex=0, delta={"text": w})
            for w in words(self.turn.text)
        ]
        return [*out, self.stop(0)]

    def tool_start(self, index: int, call: Call) -> bytes:
        start = {"toolUse": {"toolUseId": call.id, "name": call.name}}
        return self.event("contentBlockStart", contentBlockIndex=index, start=start)

    def input(self, index: int, value: Any) -> bytes:
        delta = {"toolUse": {"input": value}}
        return self.event("contentBlockDelta", contentBlockIndex=index, delta=delta)

    def stop(self, index: int) -> bytes:
        return self.event("contentBlockStop", contentBlockIndex=index)

    def tool(self, index: int, call: Call) -> list[Frame]:
        parts = pieces(call.compact())
        return [self.tool_start(index, call), *(self.input(index, p) for p in parts),
                self.stop(index)]  # fmt: skip

    def end(self, reason: str | None = None) -> list[Frame]:
        t = self.turn
        reason = reason or ("tool_use" if t.calls else "end_turn")
        usage = {"inputTokens": t.prompt_tokens, "outputTokens": t.output_tokens,
                 "totalTokens": t.prompt_tokens + t.output_tokens}  # fmt: skip
        return [
            self.event("messageStop", stopReason=reason),
            self.event("metadata", usage=usage, metrics={"latencyMs": 120}),
        ]


def stream(
    c: Converse, body: list[Frame] | None = None, *, reason: str | None = None
) -> list[Frame]:
    """The conforming response around ``body`` (default: the turn's tool blocks, in order)."""
    if body is None:
        body = []
        for i, call in enumerate(c.turn.calls, c.first_tool):
            body += c.tool(i, call)
    return [c.start(), *c.text(), *body, *c.end(reason)]


def render(turn: Turn) -> list[Frame]:
    """The frames for ``turn`` in this dialect."""
    c = Converse(turn)
    variant = VARIANTS.get(turn.variant)
    return variant(c) if variant is not None and turn.calls else stream(c)


def reframe(frames: list[Frame]) -> list[Frame]:
    """``frames`` with each frame whose payload a byte fault rewrote framed again around it
    (its headers kept): the bytes are bad, the frame that carries them is whole."""
    out: list[Frame] = []
    for frame in frames:
        if isinstance(frame, bytes) and prelude_ok(frame):
            total, hlen = int.from_bytes(frame[:4], "big"), int.from_bytes(frame[4:8], "big")
            if total != len(frame):
                headers = read_headers(frame[PRELUDE : PRELUDE + hlen])
                payload = frame[PRELUDE + hlen : -4]
                frame = encode_frame([(k, str(v)) for k, v in headers], payload)
        elif isinstance(frame, Split):
            whole = reframe([b"".join(frame.parts)])[0]
            assert isinstance(whole, bytes)
            cut = len(frame.parts[0])
            frame = Split((whole[:cut], whole[cut:]), frame.gap)
        out.append(frame)
    return out


# -- variants ---------------------------------------------------------------------------------


def _args_object(c: Converse) -> list[Frame]:
    body: list[Frame] = []
    for i, call in enumerate(c.turn.calls, c.first_tool):
        body += [c.tool_start(i, call), c.input(i, call.args), c.stop(i)]
    return stream(c, body)


def _zero(c: Converse) -> list[Frame]:
    body: list[Frame] = []
    for i, call in enumerate(c.turn.calls, c.first_tool):
        body += [c.tool_start(i, call), c.input(i, ""), c.stop(i)]
    return stream(c, body)


def _interleaved(c: Converse) -> list[Frame]:
    if len(c.turn.calls) < 2:
        return stream(c)
    (a, b), i = c.turn.calls[:2], c.first_tool
    turns = taking_turns(pieces(a.compact()), pieces(b.compact()), c.input, i)
    return stream(c, [c.tool_start(i, a), c.tool_start(i + 1, b), *turns, c.stop(i), c.stop(i + 1)])


def _cut(c: Converse) -> list[Frame]:
    i, call = c.first_tool, c.turn.calls[0]
    ps = at_least(pieces(call.compact()), 2)
    return [c.tool_start(i, call), *(c.input(i, p) for p in ps[: len(ps) // 2])]


def _error(c: Converse) -> list[Frame]:
    message = orjson.dumps({"message": "The model stream failed (demo-error-after-200)."})
    return [c.start(), *c.text(), *_cut(c), exception_frame("modelStreamErrorException", message)]


def _truncated(c: Converse) -> list[Frame]:
    return stream(c, _cut(c), reason="max_tokens")


VARIANTS: dict[str, Callable[[Converse], list[Frame]]] = {
    "demo-args-object": _args_object,
    "demo-zero-arg": _zero,
    "demo-interleaved": _interleaved,
    "demo-error-after-200": _error,
    "demo-truncated": _truncated,
}
"""Quirk renderings by scenario name; anything else streams conformingly."""


def invoke_chunks(frames: list[Frame]) -> list[Frame]:
    """Anthropic Messages frames (SSE) as InvokeModelWithResponseStream sends them: each event
    one ``chunk`` frame whose payload is ``{"bytes": base64 of the event's JSON}``. Comments
    have no place in that wire and are left out; pauses and resets stay."""
    decoder = SSE.decoder()
    out: list[Frame] = []
    for frame in frames:
        if not isinstance(frame, bytes | Split):
            out.append(frame)
            continue
        raw = frame if isinstance(frame, bytes) else b"".join(frame.parts)
        for ev in decoder.feed(raw):
            if ev.kind == EventKind.EVENT:
                data = base64.b64encode(ev.data.encode()).decode()
                out.append(event_frame("chunk", orjson.dumps({"bytes": data})))
    return out


def call_id(ids: Any) -> str:
    """A Converse tool-use id (``tooluse_`` and 22 characters)."""
    return "tooluse_" + str(ids.token(22))


ERROR_TYPES = {400: "ValidationException", 401: "UnrecognizedClientException",
               403: "AccessDeniedException", 404: "ResourceNotFoundException",
               429: "ThrottlingException", 500: "InternalServerException"}  # fmt: skip
"""The exception type (``x-amzn-errortype``) Bedrock answers a status with."""


def error(status: int, message: str) -> tuple[dict[str, Any], dict[str, str]]:
    """Bedrock's error answer: ``{"message"}`` and its type in ``x-amzn-errortype``."""
    kind = ERROR_TYPES.get(status, "InternalServerException")
    return {"message": message}, {"x-amzn-errortype": f"{kind}:http://internal.amazon.com/"}
