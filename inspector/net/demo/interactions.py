"""Gemini Interactions streams (``POST /v1beta/interactions``, ``stream: true``), clean and
quirky.

The conforming stream copies the API's shape (the realworld recordings in
``../shared/fixtures/realworld/google-interactions``): ``interaction.created`` and
``interaction.status_update`` (``in_progress``); a ``thought`` step carrying its signature; a
``model_output`` step of ``text`` deltas, or per call a ``function_call`` step (``id``,
``name``, ``arguments: {}``) with one ``arguments_delta`` and its ``step.stop``; then
``interaction.completed`` with ``status`` ``requires_action`` (calls) or ``completed``, and
usage. Each event is ``event: TYPE`` + ``data: …`` with ``event_type`` in the data.

Invariants: :func:`render` is pure; ``index`` counts every step from 0; :data:`VARIANTS` keys are
scenario names, each changing only its quirk.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

from .wire import Call, Frame, Turn, sse, words


class Interaction:
    """Builds one interaction's events."""

    def __init__(self, turn: Turn) -> None:
        self.turn = turn
        ids = turn.ids
        self.id = "v1_" + ids.token(60)
        self.signature = base64.b64encode(ids.token(48).encode()).decode()
        for call in turn.calls:
            if not call.id:
                call.id = ids.token(8, "abcdefghijklmnopqrstuvwxyz0123456789")

    @staticmethod
    def event(kind: str, **fields: Any) -> bytes:
        return sse({**fields, "event_type": kind}, kind)

    def start(self) -> list[Frame]:
        head = {"id": self.id, "status": "in_progress", "object": "interaction",
                "model": self.turn.model}  # fmt: skip
        return [
            self.event("interaction.created", interaction=head),
            self.event("interaction.status_update", interaction_id=self.id, status="in_progress"),
            self.event("step.start", index=0, step={"type": "thought"}),
            self.event("step.delta", index=0,
                       delta={"signature": self.signature, "type": "thought_signature"}),
            self.event("step.stop", index=0),
        ]  # fmt: skip

    def text(self, index: int) -> list[Frame]:
        out: list[Frame] = [self.event("step.start", index=index, step={"type": "model_output"})]
        out += [self.event("step.delta", index=index, delta={"text": w, "type": "text"})
                for w in words(self.turn.text, 4)]  # fmt: skip
        return [*out, self.event("step.stop", index=index)]

    def call_start(self, index: int, call: Call) -> bytes:
        step = {"id": call.id, "signature": "", "type": "function_call", "name": call.name,
                "arguments": {}}  # fmt: skip
        return self.event("step.start", index=index, step=step)

    def args(self, index: int, text: str) -> bytes:
        return self.event("step.delta", index=index,
                          delta={"arguments": text, "type": "arguments_delta"})  # fmt: skip

    def stop(self, index: int) -> bytes:
        return self.event("step.stop", index=index)

    def call(self, index: int, call: Call) -> list[Frame]:
        return [self.call_start(index, call), self.args(index, call.compact()), self.stop(index)]

    def end(self, status: str | None = None) -> bytes:
        t = self.turn
        status = status or ("requires_action" if t.calls else "completed")
        usage = {
            "total_tokens": t.prompt_tokens + t.output_tokens,
            "total_input_tokens": t.prompt_tokens,
            "total_output_tokens": t.output_tokens,
        }
        inter = {"id": self.id, "status": status, "usage": usage, "object": "interaction",
                 "model": t.model}  # fmt: skip
        return self.event("interaction.completed", interaction=inter)


def stream(i: Interaction, body: list[Frame] | None = None, *, status: str | None = None
           ) -> list[Frame]:  # fmt: skip
    """The conforming interaction around ``body`` (default: the text, or the calls)."""
    t = i.turn
    if body is None:
        if t.calls:
            body = [f for n, call in enumerate(t.calls, 1) for f in i.call(n, call)]
        else:
            body = i.text(1)
    return [*i.start(), *body, i.end(status)]


def render(turn: Turn) -> list[Frame]:
    """The frames for ``turn`` in this dialect."""
    i = Interaction(turn)
    variant = VARIANTS.get(turn.variant)
    return variant(i) if variant is not None and turn.calls else stream(i)


def _truncated(i: Interaction) -> list[Frame]:
    """Cut off mid-arguments: the call's step never stops, the interaction ``incomplete``."""
    call = i.turn.calls[0]
    text = call.compact()
    return stream(i, [i.call_start(1, call), i.args(1, text[: len(text) // 2])],
                  status="incomplete")  # fmt: skip


def _error(i: Interaction) -> list[Frame]:
    """An ``error`` event inside the 200 stream, mid-call (no ``interaction.completed``)."""
    call = i.turn.calls[0]
    err = {"error": {"code": 500, "message": "Internal error encountered.", "status": "INTERNAL"}}
    return [*i.start(), i.call_start(1, call), i.event("error", **err)]


VARIANTS: dict[str, Callable[[Interaction], list[Frame]]] = {
    "demo-truncated": _truncated,
    "demo-error-after-200": _error,
}
"""Quirk renderings by scenario name; anything else streams conformingly."""
