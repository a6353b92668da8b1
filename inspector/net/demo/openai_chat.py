"""OpenAI-compatible Chat Completions streams (``chat.completion.chunk``), clean and quirky.

The conforming stream copies gpt-4o's shape: a role chunk, per call an opener (index, ``call_…``
id, type, name, ``arguments: ""``) then argument fragments carrying only index and arguments,
a ``finish_reason: "tool_calls"`` chunk, a usage-only chunk when ``stream_options.include_usage``
asked for one, and ``data: [DONE]``.

Invariants:
- :func:`render` is pure: a :class:`~.wire.Turn` in, frames out.
- Every variant differs from the conforming stream only in the quirk it plays back (see
  :mod:`.scenarios` for the codes each one shows), so the inspector's report names exactly that.
- :data:`VARIANTS` keys are scenario names (or ``demo-truncated`` for the cut-off attempt).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .wire import DONE, Call, Frame, Turn, at_least, comment, dumps, pieces, sse, words

Entry = dict[str, Any]


class Chat:
    """Builds chunks with one response's envelope (id, created, model, fingerprint)."""

    def __init__(self, turn: Turn) -> None:
        self.turn = turn
        self.id = "chatcmpl-" + turn.ids.token(29)

    def envelope(self) -> dict[str, Any]:
        t = self.turn
        return {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": t.created,
            "model": t.model,
            "system_fingerprint": "fp_demo",
        }

    def chunk(self, delta: dict[str, Any], finish: str | None = None) -> bytes:
        obj = self.envelope()
        obj["choices"] = [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
        if self.turn.include_usage:
            obj["usage"] = None
        return sse(obj)

    def calls(self, entries: list[Entry]) -> bytes:
        return self.chunk({"tool_calls": entries})

    def usage(self) -> bytes:
        t = self.turn
        obj = self.envelope()
        obj["choices"] = []
        obj["usage"] = {
            "prompt_tokens": t.prompt_tokens,
            "completion_tokens": t.output_tokens,
            "total_tokens": t.prompt_tokens + t.output_tokens,
        }
        return sse(obj)


def opener(i: int, call: Call, arguments: str = "") -> Entry:
    """The first entry of a call: index, id, type, name and (usually empty) arguments."""
    return {
        "index": i,
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": arguments},
    }


def frag(i: int, text: str) -> Entry:
    """A continuation: index and an argument fragment only."""
    return {"index": i, "function": {"arguments": text}}


def fragments(call: Call) -> list[str]:
    """The call's argument text in fragments, at least two (so ``{}`` is ``{`` then ``}``)."""
    return at_least(pieces(call.spaced()), 2)


def clean_calls(c: Chat, calls: list[Call], first: int = 0) -> list[Frame]:
    out: list[Frame] = []
    for i, call in enumerate(calls, first):
        out.append(c.calls([opener(i, call)]))
        out += [c.calls([frag(i, p)]) for p in pieces(call.spaced())]
    return out


def stream(
    c: Chat,
    body: Sequence[Frame] | None = None,
    *,
    role: Any = "assistant",
    finish: str | None = None,
    usage: bool | None = None,
    done: bool = True,
) -> list[Frame]:
    """The conforming stream around ``body`` (default: the turn's calls, streamed cleanly)."""
    t = c.turn
    out: list[Frame] = [c.chunk({"role": role, "content": "" if t.text else None})]
    out += [c.chunk({"content": w}) for w in words(t.text)]
    out += clean_calls(c, t.calls) if body is None else body
    out.append(c.chunk({}, finish or ("tool_calls" if t.calls else "stop")))
    if t.include_usage if usage is None else usage:
        out.append(c.usage())
    if done:
        out.append(DONE)
    return out


def render(turn: Turn) -> list[Frame]:
    """The frames for ``turn`` in this dialect."""
    c = Chat(turn)
    variant = VARIANTS.get(turn.variant)
    return variant(c) if variant is not None and turn.calls else stream(c)


# -- variants (one per quirk) ---------------------------------------------------------------


def _each(c: Chat, make: Callable[[int, Call, list[str]], list[list[Entry]]]) -> list[Frame]:
    """Chunks of tool-call entries: ``make(index, call, fragments)`` lists each chunk's entries."""
    out: list[Frame] = []
    for i, call in enumerate(c.turn.calls):
        out += [c.calls(entries) for entries in make(i, call, fragments(call))]
    return out


def _glm(c: Chat) -> list[Frame]:
    """The empty-id accumulator bug's stream: the opener carries id, name and ``{``; every
    continuation ``"id": ""`` and ``"name": ""`` (an accumulator that looks "" up keeps only
    the ``{``: raw_len=1)."""

    def make(i: int, call: Call, ps: list[str]) -> list[list[Entry]]:
        text = call.spaced()
        rest = [
            {"index": i, "id": "", "type": "function", "function": {"name": "", "arguments": p}}
            for p in at_least(pieces(text[1:]), 1)
        ]
        return [[opener(i, call, text[0])], *([e] for e in rest)]

    return stream(c, _each(c, make))


def _glm_truncated(c: Chat) -> list[Frame]:
    """``demo-glm-retry``'s first attempt: empty-string continuations, the last call cut off
    halfway through its arguments (finish ``length``), so the attempt is invalid."""
    last = len(c.turn.calls) - 1

    def make(i: int, call: Call, ps: list[str]) -> list[list[Entry]]:
        text = call.spaced()
        cut = text[1:] if i < last else text[1 : max(2, len(text) // 2)]
        rest = [
            {"index": i, "id": "", "type": "function", "function": {"name": "", "arguments": p}}
            for p in at_least(pieces(cut), 1)
        ]
        return [[opener(i, call, text[0])], *([e] for e in rest)]

    return stream(c, _each(c, make), finish="length")


def _empty_name(c: Chat) -> list[Frame]:
    def make(i: int, call: Call, ps: list[str]) -> list[list[Entry]]:
        conts = [
            [{"index": i, "type": "function", "function": {"name": "", "arguments": p}}] for p in ps
        ]
        return [[opener(i, call)], *conts]

    return stream(c, _each(c, make))


def _qwen(c: Chat) -> list[Frame]:
    def make(i: int, call: Call, ps: list[str]) -> list[list[Entry]]:
        conts = [
            [{"index": i, "type": "function", "function": {"arguments": p}}] for p in [*ps, ""]
        ]
        return [[opener(i, call)], *conts]

    return stream(c, _each(c, make))


def _missing_index(c: Chat) -> list[Frame]:
    def make(i: int, call: Call, ps: list[str]) -> list[list[Entry]]:
        head = {k: v for k, v in opener(i, call).items() if k != "index"}
        return [[head], *([{"function": {"arguments": p}}] for p in ps)]

    return stream(c, _each(c, make))


def _index_0(c: Chat) -> list[Frame]:
    def make(i: int, call: Call, ps: list[str]) -> list[list[Entry]]:
        return [[opener(0, call)], *([frag(0, p)] for p in ps)]

    return stream(c, _each(c, make))


def _sparse(c: Chat) -> list[Frame]:
    return stream(c, clean_calls(c, c.turn.calls, first=1))


def _with_id(
    ident: Callable[[Call], Any], name: Callable[[Call], Any] | None = None
) -> Callable[[Chat], list[Frame]]:
    """Continuations that carry ``id`` (and ``name`` when given) chosen per fragment."""

    def variant(c: Chat) -> list[Frame]:
        def make(i: int, call: Call, ps: list[str]) -> list[list[Entry]]:
            rows: list[list[Entry]] = [[opener(i, call)]]
            for p in ps:
                fn: Entry = (
                    {"arguments": p} if name is None else {"name": name(call), "arguments": p}
                )
                rows.append([{"index": i, "id": ident(call), "type": "function", "function": fn}])
            return rows

        return stream(c, _each(c, make))

    return variant


def _cumulative(c: Chat) -> list[Frame]:
    def make(i: int, call: Call, ps: list[str]) -> list[list[Entry]]:
        return [[opener(i, call)], *([frag(i, "".join(ps[:n]))] for n in range(1, len(ps) + 1))]

    return stream(c, _each(c, make))


def _args_object(c: Chat) -> list[Frame]:
    def make(i: int, call: Call, ps: list[str]) -> list[list[Entry]]:
        head: Entry = {
            "index": i,
            "id": call.id,
            "type": "function",
            "function": {"name": call.name},
        }
        return [[head], [{"index": i, "function": {"arguments": call.args}}]]

    return stream(c, _each(c, make))


def _whole(c: Chat) -> list[Frame]:
    return stream(
        c, [c.calls([opener(i, call, call.spaced())]) for i, call in enumerate(c.turn.calls)]
    )


def _orphan(c: Chat) -> list[Frame]:
    def make(i: int, call: Call, ps: list[str]) -> list[list[Entry]]:
        prelude: Entry = {"index": i, "id": call.id, "function": {}}
        payload: Entry = {
            "index": i,
            "type": "function",
            "function": {"name": call.name, "arguments": ps[0]},
        }
        return [[prelude], [payload], *([frag(i, p)] for p in ps[1:])]

    body = _each(c, make)
    stray = {"index": len(c.turn.calls), "id": "call_" + c.turn.ids.token(24), "function": {}}
    return stream(c, [*body, c.calls([stray])])


def _duplicate(c: Chat) -> list[Frame]:
    def make(i: int, call: Call, ps: list[str]) -> list[list[Entry]]:
        pair = [frag(i, ps[0]), frag(i, ps[1])]
        return [[opener(i, call)], pair, *([frag(i, p)] for p in ps[2:])]

    return stream(c, _each(c, make))


def _interleaved(c: Chat) -> list[Frame]:
    if len(c.turn.calls) < 2:
        return stream(c)
    a, b = c.turn.calls[:2]
    pa, pb = fragments(a), fragments(b)
    body = [c.calls([opener(0, a)]), c.calls([frag(0, pa[0])]), c.calls([opener(1, b)])]
    body += [c.calls([frag(0, p)]) for p in pa[1:]]
    body += [c.calls([frag(1, p)]) for p in pb]
    return stream(c, body)


def _keepalives(c: Chat) -> list[Frame]:
    out = stream(c)
    keep = comment("OPENROUTER PROCESSING")
    out = [keep, out[0], keep, *out[1:3], b"data: : OPENROUTER PROCESSING\n\n", *out[3:]]
    return out


def _error(c: Chat) -> list[Frame]:
    call = c.turn.calls[0]
    ps = fragments(call)
    body = [c.calls([opener(0, call)]), *(c.calls([frag(0, p)]) for p in ps[:2])]
    err = {"error": {"message": "Provider disconnected", "code": 502}}
    head = stream(c, body, usage=False, done=False)[:-1]  # no finish chunk: the error ends it
    return [*head, sse(err), DONE]


def _data_after_done(c: Chat) -> list[Frame]:
    return [*stream(c), c.chunk({"content": " (sent after [DONE])"})]


def _cut_frame(c: Chat) -> list[Frame]:
    call = c.turn.calls[0]
    ps = fragments(call)
    chunks = [c.calls([opener(0, call)]), *(c.calls([frag(0, p)]) for p in ps)]
    k = min(2, len(chunks) - 2)
    cut = chunks[k][: len(chunks[k]) * 2 // 3]  # the frame cut mid-JSON, no line end ...
    joined = cut + chunks[k + 1]  # ... and the next data: inline
    return stream(c, [*chunks[:k], joined, *chunks[k + 2 :]])


def _text_mode(c: Chat) -> list[Frame]:
    call = c.turn.calls[0]
    tag = "<tool_call>\n" + dumps({"name": call.name, "arguments": call.args}) + "\n</tool_call>"
    text = [c.chunk({"content": p}) for p in pieces(tag)]
    return stream(c, text, finish="stop")


def _zero(c: Chat) -> list[Frame]:
    return stream(c, [c.calls([opener(i, call)]) for i, call in enumerate(c.turn.calls)])


def _truncated(c: Chat) -> list[Frame]:
    call = c.turn.calls[0]
    ps = fragments(call)
    body = [c.calls([opener(0, call)]), *(c.calls([frag(0, p)]) for p in ps[: len(ps) // 2])]
    return stream(c, body, finish="length")


VARIANTS: dict[str, Callable[[Chat], list[Frame]]] = {
    "demo-glm-empty-string": _glm,
    "demo-glm-empty-name": _empty_name,
    "demo-qwen-omitted": _qwen,
    "demo-missing-index": _missing_index,
    "demo-parallel-index-0": _index_0,
    "demo-sparse-index": _sparse,
    "demo-id-every-chunk": _with_id(lambda call: call.id, lambda call: call.name),
    "demo-new-id-every-delta": lambda c: _with_id(lambda _: "call_" + c.turn.ids.token(24))(c),
    "demo-null-string-id": _with_id(lambda _: "null"),
    "demo-null-id": _with_id(lambda _: None, lambda _: None),
    "demo-cumulative-args": _cumulative,
    "demo-args-object": _args_object,
    "demo-whole-call": _whole,
    "demo-orphan-entry": _orphan,
    "demo-duplicate-index": _duplicate,
    "demo-interleaved": _interleaved,
    "demo-finish-mismatch": lambda c: stream(c, finish="stop"),
    "demo-usage-chunk": lambda c: stream(c, usage=True),
    "demo-keepalives": _keepalives,
    "demo-error-after-200": _error,
    "demo-no-done": lambda c: stream(c, done=False),
    "demo-data-after-done": _data_after_done,
    "demo-cut-frame": _cut_frame,
    "demo-text-mode": _text_mode,
    "demo-zero-arg": _zero,
    "demo-empty-role": lambda c: stream(c, role=""),
    "demo-truncated": _truncated,
    "demo-glm-truncated": _glm_truncated,
}
"""Quirk renderings by scenario name; anything else streams conformingly."""
