"""Gemini ``streamGenerateContent?alt=sse`` events -> normalized deltas.

Each event is a whole ``GenerateContentResponse``.

Invariants:
- Parts map in wire order: ``{"text", "thought": true}`` -> REASONING, ``{"text"}`` -> TEXT
  (empty text maps to nothing), ``{"functionCall"}`` -> a ToolCallDelta. Per candidate the
  parts come first, then FINISH; USAGE (``usageMetadata``, repeated by every chunk) comes last.
- A function call has no wire index: ``index`` is OMITTED, ``id`` is ``functionCall.id`` as
  received (usually OMITTED), ``pos`` counts the function-call parts of the event, and ``args``
  (an object) becomes its compact JSON with ``args_object=True`` (OMITTED when absent).
  ``thoughtSignature`` rides in ``extra``; a candidate other than 0 sets ``extra["candidate"]``.
- Calls arrive whole, so each ToolCallDelta is followed at once by ``CLOSE(OMITTED)`` ("close
  the latest open call").
- Gemini 3 streamed arguments (``partialArgs`` / ``willContinue``) have PARTIAL support: the
  fragment carries ``extra={"partialArgs": …, "willContinue": …}`` verbatim, its ``arguments``
  are OMITTED unless ``args`` is also present (the partial args are not re-assembled into JSON
  text here), and the CLOSE is emitted only when ``willContinue`` is not ``true``.
- ``promptFeedback.blockReason`` and ``{"error": …}`` become ERROR; other non-text parts
  (code execution, inline data …) become META; unknown shapes become UNKNOWN.
"""

from __future__ import annotations

from typing import Any

from inspector.core.base.model import OMITTED, AnyDelta, Delta, DeltaKind, SSEEvent, ToolCallDelta
from inspector.core.providers.openai_chat import compact_json, decode_object, error_message

KNOWN_PARTS = frozenset(
    {
        "executableCode",
        "codeExecutionResult",
        "inlineData",
        "fileData",
        "functionResponse",
        "toolCall",
        "toolResponse",
    }
)
"""Part kinds that are known but not text or a function call (shown as META)."""

_UNKNOWN = DeltaKind.UNKNOWN
_META = DeltaKind.META


class Gemini:
    """Maps Gemini ``GenerateContentResponse`` chunks to deltas."""

    name = "gemini"

    def feed(self, ev: SSEEvent, out: list[AnyDelta]) -> None:
        """Append the deltas for one wire event, in wire order."""
        obj = decode_object(ev, out)
        if obj is None:
            return
        seq = ev.seq
        data = ev.data

        mapped = False
        err = obj.get("error")
        if err is not None:
            out.append(Delta(seq, DeltaKind.ERROR, error_message(err), obj))
            mapped = True
        feedback = obj.get("promptFeedback")
        if type(feedback) is dict:
            block = feedback.get("blockReason")
            if block is not None:
                out.append(Delta(seq, DeltaKind.ERROR, f"prompt blocked: {block}", obj))
            mapped = True
        candidates = obj.get("candidates")
        if type(candidates) is list:
            mapped = True
            pos = 0
            for ci, cand in enumerate(candidates):
                if type(cand) is not dict:
                    out.append(Delta(seq, _UNKNOWN, cand, data))
                    continue
                n = cand.get("index", ci)
                pos = self._parts(seq, cand, n, pos, data, out)
                reason = cand.get("finishReason")
                if reason is not None:
                    out.append(Delta(seq, DeltaKind.FINISH, reason, cand))
        elif candidates is not None:
            out.append(Delta(seq, _UNKNOWN, obj, data))
            return
        usage = obj.get("usageMetadata")
        if type(usage) is dict:
            out.append(Delta(seq, DeltaKind.USAGE, usage, obj))
            mapped = True
        if not mapped:
            out.append(Delta(seq, _UNKNOWN, obj, data))

    @staticmethod
    def _parts(
        seq: int, cand: dict[str, Any], n: Any, pos: int, data: str, out: list[AnyDelta]
    ) -> int:
        """Map one candidate's parts; returns the next function-call position."""
        content = cand.get("content")
        if content is None:
            return pos
        parts = content.get("parts") if type(content) is dict else None
        if type(parts) is not list:
            if type(content) is not dict or "parts" in content:
                out.append(Delta(seq, _UNKNOWN, cand, data))
            return pos
        craw = None if n == 0 else cand
        for part in parts:
            if type(part) is not dict:
                out.append(Delta(seq, _UNKNOWN, part, data))
                continue
            fc = part.get("functionCall", OMITTED)
            if fc is not OMITTED:
                if type(fc) is not dict:
                    out.append(Delta(seq, _UNKNOWN, part, data))
                    continue
                extra: dict[str, Any] | None = None
                sig = part.get("thoughtSignature", OMITTED)
                if sig is not OMITTED:
                    extra = {"thoughtSignature": sig}
                if n != 0:
                    extra = extra or {}
                    extra["candidate"] = n
                streamed = "partialArgs" in fc or "willContinue" in fc
                if streamed:
                    extra = extra or {}
                    extra["partialArgs"] = fc.get("partialArgs", OMITTED)
                    extra["willContinue"] = fc.get("willContinue", OMITTED)
                args = fc.get("args", OMITTED)
                obj_args = False
                if type(args) is dict or type(args) is list:
                    args = compact_json(args)
                    obj_args = True
                out.append(
                    ToolCallDelta(
                        seq,
                        pos,
                        OMITTED,
                        fc.get("id", OMITTED),
                        fc.get("name", OMITTED),
                        args,
                        OMITTED,
                        obj_args,
                        False,
                        extra,
                    )
                )
                pos += 1
                if not streamed or fc.get("willContinue") is not True:
                    out.append(Delta(seq, DeltaKind.CLOSE, OMITTED, part))
                continue
            text = part.get("text", OMITTED)
            if text is not OMITTED:
                if type(text) is str:
                    if text:
                        kind = (
                            DeltaKind.REASONING if part.get("thought") is True else DeltaKind.TEXT
                        )
                        out.append(Delta(seq, kind, text, craw))
                else:
                    out.append(Delta(seq, _UNKNOWN, part, data))
                if "thoughtSignature" in part:
                    out.append(
                        Delta(seq, _META, {"thoughtSignature": part["thoughtSignature"]}, part)
                    )
            elif any(k in part for k in KNOWN_PARTS) or "thoughtSignature" in part:
                out.append(Delta(seq, _META, {"part": part}, craw))
            else:
                out.append(Delta(seq, _UNKNOWN, part, data))
        return pos

    def finish(self, out: list[AnyDelta]) -> None:
        """End of stream: nothing is buffered, so nothing to add."""
