"""Anthropic Messages streams (``event:`` / ``data:`` pairs), clean and quirky.

The conforming stream copies the API's shape: ``message_start`` (``msg_…`` id, model, usage),
an optional text block at index 0 with a ``ping`` after its start, then one ``tool_use`` block
per call (``toolu_…`` id, name, ``input: {}``) whose ``input_json_delta`` fragments begin with
``""``, each closed by ``content_block_stop``; then ``message_delta`` (stop_reason ``tool_use``
or ``end_turn``, output usage) and ``message_stop``.

Invariants:
- :func:`render` is pure: a :class:`~.wire.Turn` in, frames out.
- ``index`` is the content-block index: text (when present) is block 0, tools follow.
- :data:`VARIANTS` keys are scenario names (or ``demo-truncated``); each changes only its quirk.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .wire import Call, Frame, Turn, at_least, comment, pieces, sse, taking_turns, words


class Messages:
    """Builds one message's events."""

    def __init__(self, turn: Turn) -> None:
        self.turn = turn
        self.id = "msg_01" + turn.ids.token(22)
        self.first_tool = 1 if turn.text else 0

    @staticmethod
    def event(kind: str, **fields: Any) -> bytes:
        return sse({"type": kind, **fields}, kind)

    def start(self) -> bytes:
        t = self.turn
        usage = {
            "input_tokens": t.prompt_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": 1,
            "service_tier": "standard",
        }
        message: dict[str, Any] = {
            "id": self.id,
            "type": "message",
            "role": "assistant",
            "model": t.model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": usage,
        }
        return self.event("message_start", message=message)

    def text(self) -> list[Frame]:
        if not self.turn.text:
            return [self.event("ping")]
        out: list[Frame] = [
            self.event("content_block_start", index=0, content_block={"type": "text", "text": ""}),
            self.event("ping"),
        ]
        out += [self.delta(0, {"type": "text_delta", "text": w}) for w in words(self.turn.text)]
        out.append(self.stop(0))
        return out

    def tool_start(self, index: int, call: Call, given: dict[str, Any] | None = None) -> bytes:
        block = {"type": "tool_use", "id": call.id, "name": call.name, "input": given or {}}
        return self.event("content_block_start", index=index, content_block=block)

    def json(self, index: int, partial: str) -> bytes:
        return self.delta(index, {"type": "input_json_delta", "partial_json": partial})

    def delta(self, index: int, delta: dict[str, Any]) -> bytes:
        return self.event("content_block_delta", index=index, delta=delta)

    def stop(self, index: int) -> bytes:
        return self.event("content_block_stop", index=index)

    def tool(self, index: int, call: Call) -> list[Frame]:
        return [
            self.tool_start(index, call),
            self.json(index, ""),
            *(self.json(index, p) for p in pieces(call.spaced())),
            self.stop(index),
        ]

    def end(self, reason: str | None = None) -> list[Frame]:
        t = self.turn
        reason = reason or ("tool_use" if t.calls else "end_turn")
        return [
            self.event(
                "message_delta",
                delta={"stop_reason": reason, "stop_sequence": None},
                usage={"output_tokens": t.output_tokens},
            ),
            self.event("message_stop"),
        ]


def stream(
    m: Messages, body: list[Frame] | None = None, *, reason: str | None = None, stop: bool = True
) -> list[Frame]:
    """The conforming message around ``body`` (default: the turn's tool blocks, in order)."""
    if body is None:
        body = []
        for i, call in enumerate(m.turn.calls, m.first_tool):
            body += m.tool(i, call)
    end = m.end(reason)
    return [m.start(), *m.text(), *body, *(end if stop else end[:1])]


def render(turn: Turn) -> list[Frame]:
    """The frames for ``turn`` in this dialect."""
    m = Messages(turn)
    variant = VARIANTS.get(turn.variant)
    return variant(m) if variant is not None and turn.calls else stream(m)


# -- variants ---------------------------------------------------------------------------------


def _args_object(m: Messages) -> list[Frame]:
    body: list[Frame] = []
    for i, call in enumerate(m.turn.calls, m.first_tool):
        body += [m.tool_start(i, call, call.args), m.stop(i)]
    return stream(m, body)


def _zero(m: Messages) -> list[Frame]:
    body: list[Frame] = []
    for i, call in enumerate(m.turn.calls, m.first_tool):
        body += [m.tool_start(i, call), m.json(i, ""), m.stop(i)]
    return stream(m, body)


def _interleaved(m: Messages) -> list[Frame]:
    if len(m.turn.calls) < 2:
        return stream(m)
    (a, b), i = m.turn.calls[:2], m.first_tool
    turns = taking_turns(pieces(a.spaced()), pieces(b.spaced()), m.json, i)
    return stream(m, [m.tool_start(i, a), m.tool_start(i + 1, b), *turns, m.stop(i), m.stop(i + 1)])


def _keepalives(m: Messages) -> list[Frame]:
    out = stream(m)
    keep = comment("OPENROUTER PROCESSING")
    return [keep, out[0], keep, *out[1:4], keep, *out[4:]]


def _cut(m: Messages) -> tuple[int, Call, list[Frame]]:
    i, call = m.first_tool, m.turn.calls[0]
    ps = at_least(pieces(call.spaced()), 2)
    return (
        i,
        call,
        [m.tool_start(i, call), m.json(i, ""), *(m.json(i, p) for p in ps[: len(ps) // 2])],
    )


def _error(m: Messages) -> list[Frame]:
    _, _, body = _cut(m)
    err = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    return [m.start(), *m.text(), *body, sse(err, "error")]


def _truncated(m: Messages) -> list[Frame]:
    _, _, body = _cut(m)
    return stream(m, body, reason="max_tokens")


def _cut_at_stop(m: Messages) -> list[Frame]:
    """A converter closing a cut-off block with ``end_turn`` (dynamo #13791, hermes #75179)."""
    i, _, body = _cut(m)
    return stream(m, [*body, m.stop(i)], reason="end_turn")


def _not_separated(m: Messages) -> list[Frame]:
    """Two events with no blank line between them (opencode #27365): one event on the wire."""
    out = stream(m)
    k = next(n for n, f in enumerate(out) if isinstance(f, bytes) and b"input_json_delta" in f)
    first, second = out[k + 1], out[k + 2]
    assert isinstance(first, bytes) and isinstance(second, bytes)
    return [*out[: k + 1], first[:-1] + second, *out[k + 3 :]]


VARIANTS: dict[str, Callable[[Messages], list[Frame]]] = {
    "demo-args-object": _args_object,
    "demo-zero-arg": _zero,
    "demo-interleaved": _interleaved,
    "demo-keepalives": _keepalives,
    "demo-error-after-200": _error,
    "demo-no-done": lambda m: stream(m, stop=False),
    "demo-truncated": _truncated,
    "demo-cut-at-stop": _cut_at_stop,
    "demo-events-not-separated": _not_separated,
}
"""Quirk renderings by scenario name; anything else streams conformingly."""
