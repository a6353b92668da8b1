"""Gemini ``streamGenerateContent?alt=sse`` streams, clean and quirky (CRLF framing).

The conforming stream copies Gemini 3's shape: every event is a whole
``GenerateContentResponse`` (``candidates``, ``usageMetadata``, ``modelVersion``,
``responseId``); text arrives as ``parts[].text``; calls arrive whole as
``parts[].functionCall {name, args}`` (args an object, no id) with a ``thoughtSignature`` on
the first; the last event carries ``finishReason: "STOP"`` (also after calls). No end marker.

Invariants:
- :func:`render` is pure: a :class:`~.wire.Turn` in, frames out.
- Every event is framed ``data: …\\r\\n\\r\\n`` (CRLF, as Google's servers send it).
- :data:`VARIANTS` keys are scenario names; each changes only its quirk.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from typing import Any

from .wire import Frame, Turn, comment, sse, words

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""A member name a JSON path writes as ``.name`` (others as ``['name']``)."""


class Generate:
    """Builds one streamed generation's events."""

    def __init__(self, turn: Turn) -> None:
        self.turn = turn
        self.id = turn.ids.token(22)
        self.signature = base64.b64encode(turn.ids.token(96).encode()).decode()

    def event(self, parts: list[dict[str, Any]], finish: str | None = None) -> bytes:
        t = self.turn
        cand: dict[str, Any] = {"content": {"parts": parts, "role": "model"}}
        if finish:
            cand["finishReason"] = finish
        cand["index"] = 0
        usage = {
            "promptTokenCount": t.prompt_tokens,
            "candidatesTokenCount": t.output_tokens,
            "totalTokenCount": t.prompt_tokens + t.output_tokens,
        }
        obj = {
            "candidates": [cand],
            "usageMetadata": usage,
            "modelVersion": t.model,
            "responseId": self.id,
        }
        return sse(obj, crlf=True)

    def text(self) -> list[Frame]:
        return [self.event([{"text": w}]) for w in words(self.turn.text, 4)]

    def calls(self) -> list[Frame]:
        if not self.turn.calls:
            return []
        parts: list[dict[str, Any]] = []
        for n, call in enumerate(self.turn.calls):
            part: dict[str, Any] = {"functionCall": {"name": call.name, "args": call.args}}
            if n == 0:
                part["thoughtSignature"] = self.signature
            parts.append(part)
        return [self.event(parts)]

    def finish(self) -> bytes:
        return self.event([{"text": ""}], "STOP")


def stream(g: Generate) -> list[Frame]:
    """The conforming generation: text, the calls in one event, then STOP."""
    return [*g.text(), *g.calls(), g.finish()]


def render(turn: Turn) -> list[Frame]:
    """The frames for ``turn`` in this dialect."""
    g = Generate(turn)
    variant = VARIANTS.get(turn.variant)
    return variant(g) if variant is not None and turn.calls else stream(g)


def _keepalives(g: Generate) -> list[Frame]:
    keep = comment("OPENROUTER PROCESSING")
    return [keep, *g.text(), keep, *g.calls(), keep, g.finish()]


def _error(g: Generate) -> list[Frame]:
    err = {
        "error": {
            "code": 500,
            "message": "An internal error has occurred. Please retry "
            "or report in https://developers.generativeai.google/guide/troubleshooting",
            "status": "INTERNAL",
        }
    }
    text = g.text() or [g.event([{"text": "Let me look that up."}])]
    return [*text, sse(err, crlf=True)]


def _malformed(g: Generate) -> list[Frame]:
    """Gemini 3 leaking its call as text, then ``MALFORMED_FUNCTION_CALL`` and no call
    (hermes-agent #83886, plexus #748)."""
    call = g.turn.calls[0]
    leaked = f"default_api.{call.name}(" + ", ".join(f"{k}={v!r}" for k, v in call.args.items())
    return [*g.text(), g.event([{"text": leaked}]), g.event([], "MALFORMED_FUNCTION_CALL")]


def _partial_args(g: Generate) -> list[Frame]:
    """Vertex AI with ``streamFunctionCallArguments``: each call is a named part with
    ``willContinue``, one part per leaf update (``partialArgs``; a string in pieces of two
    words, each with ``willContinue``, then an empty piece that ends it, as Vertex sends them),
    and an empty ``functionCall`` part that ends the call (the Vercel AI SDK fixture
    ``google-vertex-stream-tool-call-arguments-nested``)."""
    out = g.text()
    for n, call in enumerate(g.turn.calls):
        first: dict[str, Any] = {"functionCall": {"name": call.name, "willContinue": True}}
        if n == 0:
            first["thoughtSignature"] = g.signature
        out.append(g.event([first]))
        for update in _updates(call.args, "$"):
            fc = {"partialArgs": [update], "willContinue": True}
            out.append(g.event([{"functionCall": fc}]))
        out.append(g.event([{"functionCall": {}}]))
    return [*out, g.finish()]


def _updates(value: Any, path: str) -> list[dict[str, Any]]:
    """The leaf updates that write ``value`` at ``path``, in document order (an empty object
    or array has no leaf, so nothing writes it)."""
    if isinstance(value, dict):
        steps = ((f".{k}" if _NAME.fullmatch(k) else f"['{k}']", v) for k, v in value.items())
        return [u for step, v in steps for u in _updates(v, path + step)]
    if isinstance(value, list):
        return [u for i, v in enumerate(value) for u in _updates(v, f"{path}[{i}]")]
    if isinstance(value, str):
        said = [{"jsonPath": path, "stringValue": w, "willContinue": True} for w in words(value)]
        return [*said, {"jsonPath": path, "stringValue": ""}]
    if value is None:
        return [{"jsonPath": path, "nullValue": "NULL_VALUE"}]
    key = "boolValue" if isinstance(value, bool) else "numberValue"
    return [{"jsonPath": path, key: value}]


VARIANTS: dict[str, Callable[[Generate], list[Frame]]] = {
    "demo-keepalives": _keepalives,
    "demo-error-after-200": _error,
    "demo-malformed-call": _malformed,
    "demo-partial-args": _partial_args,
}
"""Quirk renderings by scenario name; anything else streams conformingly."""
