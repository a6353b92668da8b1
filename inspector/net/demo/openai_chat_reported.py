"""OpenAI chat streams for the tool-call quirks agents, gateways and inference servers reported
in 2025-2026 (the issue threads are cited in docs/quirks.md), and the dialect's renderer.

Invariants:
- Each variant differs from :func:`~.openai_chat.stream` only in what the report describes, so
  the inspector names exactly the codes :mod:`.scenarios` lists for it.
- :data:`VARIANTS` holds every openai-chat rendering: :data:`.openai_chat.VARIANTS` (read when
  this module is imported) plus these. :func:`render` is the dialect's renderer.
"""

from __future__ import annotations

from collections.abc import Callable

from . import openai_chat
from .openai_chat import Chat, Entry, _each, frag, fragments, opener, stream
from .wire import DONE, Call, Frame, Turn


def _args_before_id(c: Chat) -> list[Frame]:
    """Zoo-Code #695: the first argument fragments reach the index before the id and name."""

    def make(i: int, call: Call, ps: list[str]) -> list[list[Entry]]:
        return [[frag(i, ps[0])], [opener(i, call, ps[1])], *([frag(i, p)] for p in ps[2:])]

    return stream(c, _each(c, make))


def _replayed(c: Chat) -> list[Frame]:
    """elizaOS #16973, Cerebras in elizaOS #9766: after the deltas, a consolidated entry
    (id, name and the complete arguments) sends the whole arguments again."""

    def make(i: int, call: Call, ps: list[str]) -> list[list[Entry]]:
        return [[opener(i, call)], *([frag(i, p)] for p in ps), [opener(i, call, call.spaced())]]

    return stream(c, _each(c, make))


def _call_every_delta(c: Chat) -> list[Frame]:
    """hermes-agent #5384: every delta repeats the whole call, id, name and arguments so far."""

    def make(i: int, call: Call, ps: list[str]) -> list[list[Entry]]:
        return [[opener(i, call, "".join(ps[:n]))] for n in range(1, len(ps) + 1)]

    return stream(c, _each(c, make))


def _finish_per_call(c: Chat) -> list[Frame]:
    """sglang #8417: one finish_reason chunk per call index."""
    out = stream(c, done=False, usage=False)
    finish = out[-1]
    return [*out, *([finish] * (len(c.turn.calls) - 1)), *_tail(c)]


def _finish_every_chunk(c: Chat) -> list[Frame]:
    """jcode #1326 (OpenWebUI in front of vLLM): a ``finish_reason: "stop"`` chunk after every
    chunk while the arguments still stream; the real finish comes last."""
    body: list[Frame] = []
    for frame in openai_chat.clean_calls(c, c.turn.calls):
        body += [frame, c.chunk({}, "stop")]
    return stream(c, body)


def _no_id_empty_finish(c: Chat) -> list[Frame]:
    """cc-switch #5093: named calls without an id, closed by ``finish_reason: ""``."""

    def make(i: int, call: Call, ps: list[str]) -> list[list[Entry]]:
        head = {k: v for k, v in opener(i, call).items() if k != "id"}
        return [[head], *([frag(i, p)] for p in ps)]

    out = stream(c, _each(c, make), usage=False, done=False)
    return [*out[:-1], c.chunk({}, ""), *_tail(c)]


def _opener_replayed(c: Chat) -> list[Frame]:
    """qwen-code #5107 (the guard #6250 keeps): each call's opener arrives again after its
    arguments, same id and name, no argument text."""

    def make(i: int, call: Call, ps: list[str]) -> list[list[Entry]]:
        return [[opener(i, call)], *([frag(i, p)] for p in ps), [opener(i, call)]]

    return stream(c, _each(c, make))


def _null_parameters(c: Chat) -> list[Frame]:
    """A3S-Lab Code #139: continuations carry ``"name": ""`` and ``"parameters": null``."""

    def make(i: int, call: Call, ps: list[str]) -> list[list[Entry]]:
        fn = {"name": "", "parameters": None}
        return [
            [opener(i, call)],
            *([{"index": i, "function": {**fn, "arguments": p}}] for p in ps),
        ]

    return stream(c, _each(c, make))


def _cut_at_stop(c: Chat) -> list[Frame]:
    """hermes-agent #75179: the arguments stop halfway, and the finish reason says ``stop``."""
    call = c.turn.calls[0]
    ps = fragments(call)
    sent = ps[: max(1, len(ps) // 2)]
    return stream(c, [c.calls([opener(0, call)]), *(c.calls([frag(0, p)]) for p in sent)],
                  finish="stop")  # fmt: skip


def _duplicate_id(c: Chat) -> list[Frame]:
    """oh-my-pi #2055, nanobot #3943: parallel calls carry the same id."""
    calls = c.turn.calls
    first = calls[0].id if calls else ""

    def make(i: int, call: Call, ps: list[str]) -> list[list[Entry]]:
        head = {**opener(i, call), "id": first}
        return [[head], *([frag(i, p)] for p in ps)]

    return stream(c, _each(c, make))


def _name_every_chunk(c: Chat) -> list[Frame]:
    """hermes-agent #8259 (MiniMax via NVIDIA NIM), #8094 (Fireworks/Kimi): every continuation
    repeats the full name (without the id)."""

    def make(i: int, call: Call, ps: list[str]) -> list[list[Entry]]:
        conts = [{"index": i, "function": {"name": call.name, "arguments": p}} for p in ps]
        return [[opener(i, call)], *([e] for e in conts)]

    return stream(c, _each(c, make))


def _not_separated(c: Chat) -> list[Frame]:
    """opencode #27365 (GLM-4.7 on Baseten): two chunks' ``data:`` lines with no blank line
    between them, so they arrive as one event."""
    out = stream(c)
    k = next(n for n, f in enumerate(out) if isinstance(f, bytes) and b'"arguments":"' in f) + 1
    first, second = out[k], out[k + 1]
    assert isinstance(first, bytes) and isinstance(second, bytes)
    return [*out[:k], first[:-1] + second, *out[k + 2 :]]


def _tail(c: Chat) -> list[Frame]:
    """What :func:`stream` ends with after the finish: the usage chunk if asked, ``[DONE]``."""
    return [*([c.usage()] if c.turn.include_usage else []), DONE]


REPORTED: dict[str, Callable[[Chat], list[Frame]]] = {
    "demo-args-before-id": _args_before_id,
    "demo-args-replayed": _replayed,
    "demo-call-every-delta": _call_every_delta,
    "demo-finish-per-call": _finish_per_call,
    "demo-finish-every-chunk": _finish_every_chunk,
    "demo-no-id-empty-finish": _no_id_empty_finish,
    "demo-opener-replayed": _opener_replayed,
    "demo-null-parameters": _null_parameters,
    "demo-cut-at-stop": _cut_at_stop,
    "demo-duplicate-call-id": _duplicate_id,
    "demo-name-every-chunk": _name_every_chunk,
    "demo-events-not-separated": _not_separated,
}
"""The reported quirks' renderings by scenario name."""

VARIANTS: dict[str, Callable[[Chat], list[Frame]]] = {**openai_chat.VARIANTS, **REPORTED}
"""Every openai-chat quirk rendering by scenario name; anything else streams conformingly."""


def render(turn: Turn) -> list[Frame]:
    """The frames for ``turn`` in this dialect."""
    c = Chat(turn)
    variant = VARIANTS.get(turn.variant)
    return variant(c) if variant is not None and turn.calls else stream(c)
