"""``@ai-sdk/google`` 4.0.121's stream transform (``doStream`` of
``google-generative-ai-language-model.ts``), for the ``tool-call`` parts it emits.

What the SDK does, modelled here: each chunk's first candidate's ``content.parts``, in order:
an ``executableCode`` part with code is a provider-executed ``tool-call`` named
``code_execution`` (input ``JSON.stringify(executableCode)``); a whole ``functionCall`` (a
name, and ``args`` or none, not streaming) is a ``tool-call``: id the part's own or
``generateId()`` (fixed at ``0000000000000000`` by the runner: no suffix, ids may repeat),
input the ``args`` string as sent, else ``JSON.stringify(args ?? {})``. A chunk with an
``error`` is an ``error`` part (``StreamProviderError``).

Gemini 3's streamed calls (a name with ``willContinue``, then ``partialArgs``) are built by
:mod:`.gemini_args` and handed over when the last entry says it will not continue, or at
the empty terminal part. Not modelled: the JSON response tool, and the chunk schema's (zod)
``TypeValidationError`` parts.
"""

from __future__ import annotations

from typing import Any

from inspector.core.clients.vercel_ai.gemini_args import add_partial_args
from inspector.core.clients.vercel_ai.parts import PartsRun, js_stringify, provider_stream_error
from inspector.core.clients.vercel_ai.tracker import GENERATED


def _done(arg: Any) -> bool:
    return not (isinstance(arg, dict) and arg.get("willContinue") is True)


class GeminiRun(PartsRun):
    """One ``streamGenerateContent`` stream through ``@ai-sdk/google``."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.active: list[tuple[str, str, dict[str, Any]]] = []
        """Streamed calls still open (``activeStreamingToolCalls``): id, name, arguments."""

    def chunk(self, value: dict[str, Any]) -> None:
        if "error" in value:
            self.error_part(provider_stream_error(value["error"]))
            return
        candidates = value.get("candidates")
        if not isinstance(candidates, list) or not candidates:
            return
        content = candidates[0].get("content") if isinstance(candidates[0], dict) else None
        if not isinstance(content, dict):
            return
        for part in content.get("parts") or []:
            if not isinstance(part, dict):
                continue
            code = part.get("executableCode")
            if "executableCode" in part and isinstance(code, dict) and code.get("code"):
                self.emit(GENERATED, "code_execution", js_stringify(code), True)
            elif "functionCall" in part:
                self.function_call(part["functionCall"])

    def function_call(self, fc: dict[str, Any]) -> None:
        name, args, partial = fc.get("name"), fc.get("args"), fc.get("partialArgs")
        more = fc.get("willContinue")
        if partial is not None or (name is not None and more is True):  # a streamed call
            if name is not None:
                self.active.append((fc.get("id") or GENERATED, name, {}))
            elif partial is None or not self.active:
                return
            if partial is not None:
                add_partial_args(self.active[-1][2], partial)
                if more is not True and all(_done(a) for a in partial):
                    self.finish_active()
        elif name is None and args is None and more is None:  # the terminal part
            self.finish_active()
        elif name is not None:
            id_ = fc.get("id") or GENERATED
            if args is not None:
                self.emit(id_, name, args if isinstance(args, str) else js_stringify(args))
            elif more is not True:
                self.emit(id_, name, "{}")

    def finish_active(self) -> None:
        """``finishActiveStreamingToolCall``: the last streamed call, its input
        ``JSON.stringify`` of the arguments built so far."""
        if self.active:
            id_, name, args = self.active.pop()
            self.emit(id_, name, js_stringify(args))
