"""OpenAI legacy completions streams (``/v1/completions``): text only.

The conforming stream copies the API's shape (the realworld ``openai-completion-text``):
``text_completion`` chunks whose ``choices[0].text`` carries the text, the last one with
``finish_reason`` (``stop``), a usage-only chunk when ``stream_options.include_usage`` asked for
it, then ``data: [DONE]``. The API has no tools: a scenario that would call a tool gets a text
answer that says so (never a call).

Invariants: :func:`render` is pure; there are no variants (no quirk of tool calls applies).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .wire import DONE, Frame, Turn, sse, words

NO_TOOLS = (
    "The legacy completions API has no tools, so this is text only. This is the demo provider."
)


def render(turn: Turn) -> list[Frame]:
    """The frames for ``turn`` in this dialect."""
    ident = "cmpl-" + turn.ids.token(29)
    text = turn.text if turn.text and not turn.calls else NO_TOOLS

    def chunk(piece: str, finish: str | None = None) -> bytes:
        choice = {"text": piece, "index": 0, "logprobs": None, "finish_reason": finish}
        obj: dict[str, Any] = {"id": ident, "object": "text_completion", "created": turn.created,
                               "choices": [choice], "model": turn.model}  # fmt: skip
        return sse(obj)

    parts = list(words(text))
    out: list[Frame] = [chunk(p, "stop" if n == len(parts) - 1 else None)
                        for n, p in enumerate(parts)]  # fmt: skip
    if turn.include_usage:
        usage = {"prompt_tokens": turn.prompt_tokens, "completion_tokens": turn.output_tokens,
                 "total_tokens": turn.prompt_tokens + turn.output_tokens}  # fmt: skip
        out.append(sse({"id": ident, "object": "text_completion", "created": turn.created,
                        "model": turn.model, "usage": usage, "choices": []}))  # fmt: skip
    return [*out, DONE]


VARIANTS: dict[str, Callable[..., list[Frame]]] = {}
"""No quirk renderings: every scenario streams text conformingly."""
