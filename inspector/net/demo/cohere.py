"""Cohere v2 chat streams (``event:`` / ``data:`` pairs, hyphenated event types), clean and
quirky.

The conforming stream copies the API's shape (the realworld recordings in
``../shared/fixtures/realworld/cohere``): ``message-start`` (a UUID id, an empty message); with
calls, the tool plan in ``tool-plan-delta`` events, then per call ``tool-call-start`` (id
``NAME_xxxxxxxxxxxx``, ``arguments: ""``), ``tool-call-delta`` fragments and ``tool-call-end``;
without calls, one text block (``content-start`` / ``content-delta`` / ``content-end``); then
``message-end`` with ``finish_reason`` ``TOOL_CALL`` or ``COMPLETE`` and usage. No ``[DONE]``.

Invariants:
- :func:`render` is pure: a :class:`~.wire.Turn` in, frames out.
- ``index`` is the call's index (from 0), counted apart from content blocks.
- :data:`VARIANTS` keys are scenario names; each changes only its quirk.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .wire import Call, Frame, Turn, at_least, pieces, sse, words


class Chat:
    """Builds one v2 chat message's events."""

    def __init__(self, turn: Turn) -> None:
        self.turn = turn
        ids = turn.ids
        self.id = "-".join((ids.hex(8), ids.hex(4), ids.hex(4), ids.hex(4), ids.hex(12)))
        for call in turn.calls:
            if not call.id:
                call.id = f"{call.name}_{ids.token(12, 'abcdefghijklmnopqrstuvwxyz0123456789')}"

    @staticmethod
    def event(kind: str, **fields: Any) -> bytes:
        return sse({"type": kind, **fields}, kind)

    def start(self) -> bytes:
        message = {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": [],
                   "citations": []}  # fmt: skip
        return sse({"id": self.id, "type": "message-start", "delta": {"message": message}},
                   "message-start")  # fmt: skip

    def plan(self) -> list[Frame]:
        said = self.turn.text or f"I will use the {self.turn.calls[0].name} tool."
        return [self.event("tool-plan-delta", delta={"message": {"tool_plan": w}})
                for w in words(said, 1)]  # fmt: skip

    def text(self) -> list[Frame]:
        if not self.turn.text:
            return []
        block = {"message": {"content": {"type": "text", "text": ""}}}
        out: list[Frame] = [self.event("content-start", index=0, delta=block)]
        out += [self.event("content-delta", index=0,
                           delta={"message": {"content": {"text": w}}})
                for w in words(self.turn.text)]  # fmt: skip
        out.append(self.event("content-end", index=0))
        return out

    def call_start(self, index: int, call: Call) -> bytes:
        tc = {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": ""}}
        return self.event("tool-call-start", index=index, delta={"message": {"tool_calls": tc}})

    def args(self, index: int, part: str) -> bytes:
        tc = {"function": {"arguments": part}}
        return self.event("tool-call-delta", index=index, delta={"message": {"tool_calls": tc}})

    def call_end(self, index: int) -> bytes:
        return self.event("tool-call-end", index=index)

    def call(self, index: int, call: Call) -> list[Frame]:
        parts = pieces(call.spaced())
        return [self.call_start(index, call), *(self.args(index, p) for p in parts),
                self.call_end(index)]  # fmt: skip

    def end(self, reason: str | None = None, **extra: Any) -> bytes:
        t = self.turn
        reason = reason or ("TOOL_CALL" if t.calls else "COMPLETE")
        usage = {
            "billed_units": {"input_tokens": t.prompt_tokens, "output_tokens": t.output_tokens},
            "tokens": {"input_tokens": t.prompt_tokens, "output_tokens": t.output_tokens},
        }
        delta = {"finish_reason": reason, **extra, "usage": usage}
        return self.event("message-end", delta=delta)


def stream(
    c: Chat, body: list[Frame] | None = None, *, reason: str | None = None, **extra: Any
) -> list[Frame]:
    """The conforming message around ``body`` (default: the turn's calls, in order); ``extra``
    goes into ``message-end``'s delta."""
    if not c.turn.calls:
        return [c.start(), *c.text(), c.end(reason, **extra)]
    if body is None:
        body = [f for i, call in enumerate(c.turn.calls) for f in c.call(i, call)]
    return [c.start(), *c.plan(), *body, c.end(reason, **extra)]


def render(turn: Turn) -> list[Frame]:
    """The frames for ``turn`` in this dialect."""
    c = Chat(turn)
    variant = VARIANTS.get(turn.variant)
    return variant(c) if variant is not None and turn.calls else stream(c)


def _cut(c: Chat) -> list[Frame]:
    call = c.turn.calls[0]
    ps = at_least(pieces(call.spaced()), 2)
    return [c.call_start(0, call), *(c.args(0, p) for p in ps[: len(ps) // 2])]


def _truncated(c: Chat) -> list[Frame]:
    """``MAX_TOKENS`` in the middle of the first call's arguments (no ``tool-call-end``)."""
    return stream(c, _cut(c), reason="MAX_TOKENS")


def _error(c: Chat) -> list[Frame]:
    """A generation that fails after 200: ``finish_reason: ERROR`` with its ``error``."""
    return stream(c, _cut(c), reason="ERROR", error="internal server error, this may be "
                  "transient, please try again")  # fmt: skip


def _zero(c: Chat) -> list[Frame]:
    """Zero-argument calls as Cohere sends them: ``arguments: ""`` and no delta (the realworld
    ``cohere-empty-tool-call``)."""
    body: list[Frame] = []
    for i, call in enumerate(c.turn.calls):
        body += [c.call_start(i, call), c.call_end(i)]
    return stream(c, body)


VARIANTS: dict[str, Callable[[Chat], list[Frame]]] = {
    "demo-truncated": _truncated,
    "demo-error-after-200": _error,
    "demo-zero-arg": _zero,
}
"""Quirk renderings by scenario name; anything else streams conformingly."""
