"""OpenAI Responses API streams (``response.*`` events), clean and quirky.

The conforming stream copies the API's shape: ``response.created`` and ``response.in_progress``
(the response object, tools echoed), an optional message item (``output_text`` deltas and their
done events), then per call ``output_item.added`` (``fc_…`` item id, ``call_…`` call_id, name,
``arguments: ""``), ``function_call_arguments.delta`` events, ``.done`` with the whole
arguments and ``output_item.done``; then ``response.completed`` with the output and usage.
There is no ``[DONE]``.

Invariants:
- :func:`render` is pure: a :class:`~.wire.Turn` in, frames out.
- Every event carries ``sequence_number`` 0, 1, 2 … in stream order; ``output_index`` counts
  output items (the message item, when present, is 0).
- :data:`VARIANTS` keys are scenario names (or ``demo-truncated``); each changes only its quirk.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .wire import Call, Frame, Turn, at_least, comment, dumps, pieces, sse, words


class Resp:
    """Builds one response's events, numbering them."""

    def __init__(self, turn: Turn) -> None:
        self.turn = turn
        self.id = "resp_" + turn.ids.hex(50)
        self.seq = 0
        self.msg_id = "msg_" + turn.ids.hex(50)
        self.first_call = 1 if turn.text else 0

    def event(self, kind: str, **fields: Any) -> bytes:
        obj = {"type": kind, "sequence_number": self.seq, **fields}
        self.seq += 1
        return sse(obj, kind)

    def response(self, status: str, output: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
        t = self.turn
        usage = None
        if status != "in_progress":
            usage = {
                "input_tokens": t.prompt_tokens,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": t.output_tokens,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": t.prompt_tokens + t.output_tokens,
            }
        obj: dict[str, Any] = {
            "id": self.id,
            "object": "response",
            "created_at": t.created,
            "status": status,
            "background": False,
            "error": None,
            "incomplete_details": None,
            "instructions": None,
            "max_output_tokens": None,
            "max_tool_calls": None,
            "model": t.model,
            "output": output,
            "parallel_tool_calls": True,
            "previous_response_id": None,
            "reasoning": {"effort": None, "summary": None},
            "store": False,
            "temperature": 1.0,
            "text": {"format": {"type": "text"}, "verbosity": "medium"},
            "tool_choice": "auto",
            "tools": t.tools,
            "top_logprobs": 0,
            "top_p": 1.0,
            "truncation": "disabled",
            "usage": usage,
            "user": None,
            "metadata": {},
        }
        obj.update(extra)
        return obj

    def head(self) -> list[Frame]:
        return [
            self.event("response.created", response=self.response("in_progress", [])),
            self.event("response.in_progress", response=self.response("in_progress", [])),
        ]

    def message(self) -> list[Frame]:
        text = self.turn.text
        if not text:
            return []
        ref = {"item_id": self.msg_id, "output_index": 0, "content_index": 0}
        item: dict[str, Any] = {
            "id": self.msg_id,
            "type": "message",
            "status": "in_progress",
            "content": [],
            "role": "assistant",
        }
        part: dict[str, Any] = {
            "type": "output_text",
            "annotations": [],
            "logprobs": [],
            "text": "",
        }
        out: list[Frame] = [
            self.event("response.output_item.added", output_index=0, item=item),
            self.event("response.content_part.added", **ref, part=part),
        ]
        out += [
            self.event("response.output_text.delta", **ref, delta=w, logprobs=[])
            for w in words(text)
        ]
        part = {**part, "text": text}
        out += [
            self.event("response.output_text.done", **ref, text=text, logprobs=[]),
            self.event("response.content_part.done", **ref, part=part),
            self.event(
                "response.output_item.done",
                output_index=0,
                item={**item, "status": "completed", "content": [part]},
            ),
        ]
        return out

    def message_item(self) -> list[dict[str, Any]]:
        if not self.turn.text:
            return []
        part = {"type": "output_text", "annotations": [], "logprobs": [], "text": self.turn.text}
        return [
            {
                "id": self.msg_id,
                "type": "message",
                "status": "completed",
                "content": [part],
                "role": "assistant",
            }
        ]

    @staticmethod
    def item(call: Call, status: str = "completed", arguments: str | None = None) -> dict[str, Any]:
        args = call.compact() if arguments is None else arguments
        return {
            "id": call.item_id,
            "type": "function_call",
            "status": status,
            "arguments": args,
            "call_id": call.id,
            "name": call.name,
        }

    def added(self, k: int, call: Call) -> bytes:
        return self.event(
            "response.output_item.added", output_index=k, item=self.item(call, "in_progress", "")
        )

    def delta(self, k: int, call: Call, text: str) -> bytes:
        return self.event(
            "response.function_call_arguments.delta",
            item_id=call.item_id,
            output_index=k,
            delta=text,
        )

    def done(self, k: int, call: Call, arguments: str | None = None) -> list[Frame]:
        args = call.compact() if arguments is None else arguments
        return [
            self.event(
                "response.function_call_arguments.done",
                item_id=call.item_id,
                output_index=k,
                arguments=args,
            ),
            self.event(
                "response.output_item.done", output_index=k, item=self.item(call, arguments=args)
            ),
        ]

    def call(self, k: int, call: Call) -> list[Frame]:
        return [
            self.added(k, call),
            *(self.delta(k, call, p) for p in pieces(call.compact())),
            *self.done(k, call),
        ]

    def completed(self, items: list[dict[str, Any]] | None = None) -> bytes:
        calls = [self.item(c) for c in self.turn.calls] if items is None else items
        return self.event(
            "response.completed",
            response=self.response("completed", [*self.message_item(), *calls]),
        )


Body = Callable[[], list[Frame]]


def _clean(r: Resp) -> list[Frame]:
    out: list[Frame] = []
    for k, call in enumerate(r.turn.calls, r.first_call):
        out += r.call(k, call)
    return out


def stream(
    r: Resp,
    body: Body | None = None,
    *,
    completed: bool = True,
    items: list[dict[str, Any]] | None = None,
) -> list[Frame]:
    """The conforming response around ``body()`` (default: the turn's calls, streamed cleanly).

    ``body`` is called after the head events are built, so sequence numbers stay in order.
    """
    out = [*r.head(), *r.message()]
    out += _clean(r) if body is None else body()
    if completed:
        out.append(r.completed(items))
    return out


def render(turn: Turn) -> list[Frame]:
    """The frames for ``turn`` in this dialect."""
    r = Resp(turn)
    variant = VARIANTS.get(turn.variant)
    return variant(r) if variant is not None and turn.calls else stream(r)


# -- variants ---------------------------------------------------------------------------------


def _no_deltas(r: Resp) -> list[Frame]:
    def body() -> list[Frame]:
        out: list[Frame] = []
        for k, call in enumerate(r.turn.calls, r.first_call):
            out += [r.added(k, call), *r.done(k, call)]
        return out

    return stream(r, body)


def _restated(call: Call) -> str:
    """The call's arguments with one value changed (what a disagreeing done event says)."""
    args = dict(call.args)
    key = next((k for k, v in args.items() if isinstance(v, str)), None)
    if key is None:
        args["restated"] = True
    else:
        args[key] = args[key] + " (restated)"
    return dumps(args)


def _mismatch(r: Resp) -> list[Frame]:
    def body() -> list[Frame]:
        out: list[Frame] = []
        for k, call in enumerate(r.turn.calls, r.first_call):
            out += [
                r.added(k, call),
                *(r.delta(k, call, p) for p in pieces(call.compact())),
                *r.done(k, call, _restated(call)),
            ]
        return out

    items = [r.item(c, arguments=_restated(c)) for c in r.turn.calls]
    return stream(r, body, items=items)


def _partial(r: Resp) -> tuple[Call, str, Body]:
    """The first call, the part of its arguments sent, and a body that stops there."""
    k, call = r.first_call, r.turn.calls[0]
    ps = at_least(pieces(call.compact()), 2)
    sent = ps[: len(ps) // 2]
    return call, "".join(sent), lambda: [r.added(k, call), *(r.delta(k, call, p) for p in sent)]


def _error(r: Resp) -> list[Frame]:
    call, sent, body = _partial(r)
    err = {
        "code": "server_error",
        "message": "The server had an error while processing your request.",
    }
    output = [*r.message_item(), r.item(call, "incomplete", sent)]
    failed = r.event("response.failed", response=r.response("failed", output, error=err))
    return [*stream(r, body, completed=False), failed]


def _truncated(r: Resp) -> list[Frame]:
    call, sent, body = _partial(r)
    output = [*r.message_item(), r.item(call, "incomplete", sent)]
    details = {"reason": "max_output_tokens"}
    incomplete = r.event(
        "response.incomplete", response=r.response("incomplete", output, incomplete_details=details)
    )
    return [*stream(r, body, completed=False), incomplete]


def _cut_at_stop(r: Resp) -> list[Frame]:
    """The arguments stop halfway and the call is done, yet the response completes."""
    call, sent, body = _partial(r)
    k = r.first_call
    items = [r.item(call, arguments=sent)]
    return stream(r, lambda: [*body(), *r.done(k, call, sent)], items=items)


def _id_cleared(r: Resp) -> list[Frame]:
    """cc-switch #4671 (cc-switch-cli #341): output_item.done and response.completed carry
    ``"call_id": ""`` and ``"name": ""``."""

    def body() -> list[Frame]:
        out: list[Frame] = []
        for k, call in enumerate(r.turn.calls, r.first_call):
            done = r.item(call) | {"call_id": "", "name": ""}
            out += [r.added(k, call), *(r.delta(k, call, p) for p in pieces(call.compact()))]
            out += [
                r.event("response.function_call_arguments.done", item_id=call.item_id,
                        output_index=k, arguments=call.compact()),
                r.event("response.output_item.done", output_index=k, item=done),
            ]  # fmt: skip
        return out

    return stream(r, body, items=[r.item(c) | {"call_id": "", "name": ""} for c in r.turn.calls])


def _keepalives(r: Resp) -> list[Frame]:
    out = stream(r)
    keep = comment("OPENROUTER PROCESSING")
    return [keep, *out[:2], keep, *out[2:4], keep, *out[4:]]


VARIANTS: dict[str, Callable[[Resp], list[Frame]]] = {
    "demo-lmstudio-no-deltas": _no_deltas,
    "demo-done-mismatch": _mismatch,
    "demo-keepalives": _keepalives,
    "demo-error-after-200": _error,
    "demo-no-done": lambda r: stream(r, completed=False),
    "demo-truncated": _truncated,
    "demo-cut-at-stop": _cut_at_stop,
    "demo-done-id-cleared": _id_cleared,
}
"""Quirk renderings by scenario name; anything else streams conformingly."""
