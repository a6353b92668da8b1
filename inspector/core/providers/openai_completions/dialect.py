"""The legacy completions dialect: ``text_completion`` chunks -> TEXT, FINISH, USAGE, DONE.

Invariants:
- Each chunk's ``choices[].text`` (a non-empty string) is TEXT, its ``finish_reason`` (when
  not null) FINISH, its ``usage`` (when an object) USAGE; ``[DONE]`` is DONE. A chunk that
  says none of these is META (its id and model), never dropped.
- There are no tool calls in this API: nothing here makes a tool-call delta, whatever the
  text holds (a call written in the text is read, as in every dialect, from the TEXT deltas).
- An error object (``{"error": {…}}``) after HTTP 200 is ERROR with a one-line message; a
  field of the wrong type is flagged with its path.
"""

from __future__ import annotations

from inspector.core.base.model import AnyDelta, Delta, DeltaKind, SSEEvent
from inspector.core.providers.wire.errors import wrapped_error
from inspector.core.providers.wire.events import OwnDialect, decode_object
from inspector.core.providers.wire.fields import object_at, string_at
from inspector.core.quirks.events.wrongtype import wrong_type


class CompletionsDialect(OwnDialect):
    """Maps legacy completions chunks to deltas."""

    def feed(self, ev: SSEEvent, out: list[AnyDelta]) -> None:
        """Append the deltas for one wire event, in wire order."""
        obj = decode_object(ev, out)
        if obj is None:
            return
        seq = ev.seq
        if "error" in obj and "choices" not in obj:
            out.append(Delta(seq, DeltaKind.ERROR, wrapped_error(obj), obj))
            return
        before = len(out)
        choices = obj.get("choices")
        if type(choices) is list:
            for n, choice in enumerate(choices):
                if type(choice) is not dict:
                    out.append(wrong_type(seq, f"choices[{n}]", "object", choice, obj))
                    continue
                text = string_at(choice, "text", seq, out, f"choices[{n}].")
                if type(text) is str and text:
                    out.append(Delta(seq, DeltaKind.TEXT, text, obj))
                reason = string_at(choice, "finish_reason", seq, out, f"choices[{n}].")
                if type(reason) is str:
                    out.append(Delta(seq, DeltaKind.FINISH, reason, obj))
        elif choices is not None and "choices" in obj:
            out.append(wrong_type(seq, "choices", "array", choices, obj))
        usage = object_at(obj, "usage", seq, out)
        if usage is not None:
            out.append(Delta(seq, DeltaKind.USAGE, usage, obj))
        if len(out) == before:
            out.append(Delta(seq, DeltaKind.META, {"id": obj.get("id"), "model": obj.get("model")},
                             obj))  # fmt: skip
