"""The Gemini dialect: ``streamGenerateContent?alt=sse`` events -> deltas.

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
- Gemini 3 streamed arguments (Vertex ``partialArgs``, :mod:`.partial`): a
  ``functionCall`` part with ``partialArgs`` or ``willContinue`` is a fragment of the call
  being streamed; its ``arguments`` are the JSON text its leaf updates append (OMITTED when
  none), ``extra`` keeps ``partialArgs`` and ``willContinue`` verbatim and adds ``jsonPaths``
  (each update's normalised path, in order) and ``reopened`` (a path that went back into what
  was closed). The part that ends the call (``willContinue`` not true on the call and on its
  updates; an empty ``functionCall: {}`` too) appends the closing brackets and is followed by
  the CLOSE. A named part while a streamed call is still open first closes that one (its text
  stays as it is: incomplete). A part that also carries ``args`` is read by its ``args``.
- Kinds: a ``functionCall`` is the agent's (``function``, item type ``functionCall``); an
  ``executableCode`` part is code the provider runs (``hosted``, item type ``executableCode``,
  its ``code`` the lane's text, opened and closed at once); a ``codeExecutionResult`` part is
  a RESULT ``{"id": None, "item_type": "codeExecutionResult", …}`` beside the latest code, and
  a candidate's ``groundingMetadata`` (what a hosted Google Search found) a RESULT too.
- ``promptFeedback.blockReason`` and ``{"error": …}`` become ERROR; other non-text parts
  (inline data …) become META; unknown shapes become UNKNOWN.
- A field of the wrong type (``candidates`` that is not an array, a part that is not an
  object, ``args`` that is not an object …) is flagged with its path
  (:mod:`inspector.core.quirks.events.wrongtype`) and the rest mapped: what is not an object is left
  out, identity fields and a finish reason pass as received.
"""

from __future__ import annotations

from typing import Any

from inspector.core.base.kinds import CallKind, ItemDelta
from inspector.core.base.model import OMITTED, AnyDelta, Delta, DeltaKind, SSEEvent
from inspector.core.base.provider import Provider
from inspector.core.providers.gemini.partial import PartialArgs, normal_path, updates_of
from inspector.core.providers.wire.errors import wrapped_error
from inspector.core.providers.wire.events import OwnDialect, decode_object
from inspector.core.providers.wire.fields import (
    compact_json,
    error_at,
    identity_at,
    index_at,
    object_at,
    string_at,
)
from inspector.core.quirks.events.wrongtype import wrong_type

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


class GeminiDialect(OwnDialect):
    """Maps Gemini ``GenerateContentResponse`` chunks to deltas."""

    def __init__(self, provider: Provider) -> None:
        super().__init__(provider)
        self._streaming: PartialArgs | None = None
        """The call whose arguments arrive as ``partialArgs``, while it is open."""

    def feed(self, ev: SSEEvent, out: list[AnyDelta]) -> None:
        """Append the deltas for one wire event, in wire order."""
        obj = decode_object(ev, out)
        if obj is None:
            return
        seq = ev.seq
        data = ev.data

        mapped = False
        if obj.get("error") is not None:
            error_at(obj, "error", seq, out)
            out.append(Delta(seq, DeltaKind.ERROR, wrapped_error(obj), obj))
            mapped = True
        if obj.get("promptFeedback") is not None:
            mapped = True
            feedback = object_at(obj, "promptFeedback", seq, out)
            block = feedback.get("blockReason") if feedback is not None else None
            if block is not None:
                out.append(Delta(seq, DeltaKind.ERROR, f"prompt blocked: {block}", obj))
        candidates = obj.get("candidates")
        if type(candidates) is list:
            mapped = True
            pos = 0
            for ci, cand in enumerate(candidates):
                where = f"candidates[{ci}]"
                if type(cand) is not dict:
                    out.append(wrong_type(seq, where, "object", cand, obj))
                    continue
                n = index_at(cand, "index", seq, out, where + ".")
                n = ci if n is OMITTED else n
                pos = self._parts(seq, cand, n, pos, where, data, out)
                grounding = cand.get("groundingMetadata")
                if type(grounding) is dict:
                    found = {**grounding, "id": None, "item_type": "groundingMetadata"}
                    out.append(Delta(seq, DeltaKind.RESULT, found, cand))
                reason = string_at(cand, "finishReason", seq, out, where + ".")
                if reason is not None and reason is not OMITTED:  # kept as received
                    out.append(Delta(seq, DeltaKind.FINISH, reason, cand))
        elif candidates is not None:
            out.append(wrong_type(seq, "candidates", "array", candidates, obj))
            mapped = True
        if obj.get("usageMetadata") is not None:
            mapped = True
            usage = object_at(obj, "usageMetadata", seq, out)
            if usage is not None:
                out.append(Delta(seq, DeltaKind.USAGE, usage, obj))
        if not mapped:
            out.append(Delta(seq, _UNKNOWN, obj, data))

    def _parts(
        self,
        seq: int, cand: dict[str, Any], n: Any, pos: int, where: str, data: str,
        out: list[AnyDelta],
    ) -> int:  # fmt: skip
        """Map one candidate's parts; returns the next function-call position."""
        content = object_at(cand, "content", seq, out, where + ".")
        if content is None:
            return pos
        parts = content.get("parts")
        if type(parts) is not list:
            if parts is not None:
                out.append(wrong_type(seq, f"{where}.content.parts", "array", parts, content))
            elif "parts" in content:
                out.append(Delta(seq, _UNKNOWN, cand, data))
            return pos
        craw = None if n == 0 else cand
        for pi, part in enumerate(parts):
            path = f"{where}.content.parts[{pi}]"
            if type(part) is not dict:
                out.append(wrong_type(seq, path, "object", part, content))
                continue
            if "functionCall" in part:
                fc = object_at(part, "functionCall", seq, out, path + ".")
                if fc is None:
                    if part["functionCall"] is None:
                        out.append(Delta(seq, _UNKNOWN, part, data))
                    continue
                pos = self._call(seq, fc, part, n, pos, path + ".functionCall.", out)
                continue
            if type(part.get("executableCode")) is dict:
                code = part["executableCode"]
                args = code.get("code") if type(code.get("code")) is str else OMITTED
                out.append(ItemDelta(seq, pos, OMITTED, OMITTED, OMITTED, args, OMITTED, False,
                                     False, {"executableCode": code}, call_kind=CallKind.HOSTED,
                                     item_type="executableCode"))  # fmt: skip
                out.append(Delta(seq, DeltaKind.CLOSE, OMITTED, part))
                pos += 1
                continue
            if type(part.get("codeExecutionResult")) is dict:
                ran = {**part["codeExecutionResult"], "id": None,
                       "item_type": "codeExecutionResult"}  # fmt: skip
                out.append(Delta(seq, DeltaKind.RESULT, ran, part))
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
                    out.append(wrong_type(seq, path + ".text", "string", text, part))
                if "thoughtSignature" in part:
                    out.append(
                        Delta(seq, _META, {"thoughtSignature": part["thoughtSignature"]}, part)
                    )
            elif any(k in part for k in KNOWN_PARTS) or "thoughtSignature" in part:
                out.append(Delta(seq, _META, {"part": part}, craw))
            else:
                out.append(Delta(seq, _UNKNOWN, part, data))
        return pos

    def _call(
        self, seq: int, fc: dict[str, Any], part: dict[str, Any], n: Any, pos: int, path: str,
        out: list[AnyDelta],
    ) -> int:  # fmt: skip
        """Map one ``functionCall`` part (and its CLOSE); returns the next position."""
        extra: dict[str, Any] | None = None
        sig = part.get("thoughtSignature", OMITTED)
        if sig is not OMITTED:
            extra = {"thoughtSignature": sig}
        if n != 0:
            extra = extra or {}
            extra["candidate"] = n
        args = fc.get("args", OMITTED)
        obj_args = False
        if type(args) is dict or type(args) is list:
            args = compact_json(args)
            obj_args = True
        elif args is not OMITTED and args is not None:
            out.append(wrong_type(seq, path + "args", "object", args, fc))
        call_id = identity_at(fc, "id", seq, out, path)
        name = identity_at(fc, "name", seq, out, path)
        streamed = "partialArgs" in fc or "willContinue" in fc
        named = type(name) is str and name != ""
        if self._streaming is not None and named:
            self._streaming = None  # a new call while one is streaming: that one stays cut
            out.append(Delta(seq, DeltaKind.CLOSE, OMITTED, part))
        ends = True
        if streamed or (self._streaming is not None and args is OMITTED and not named):
            extra = extra or {}
            if streamed:
                extra["partialArgs"] = fc.get("partialArgs", OMITTED)
                extra["willContinue"] = fc.get("willContinue", OMITTED)
            if args is OMITTED:
                args, ends = self._stream(seq, fc, path, extra, out)
        out.append(ItemDelta(seq, pos, OMITTED, call_id, name, args, OMITTED, obj_args,
                             False, extra or None, item_type="functionCall"))  # fmt: skip
        if ends:
            out.append(Delta(seq, DeltaKind.CLOSE, OMITTED, part))
        return pos + 1

    def _stream(
        self, seq: int, fc: dict[str, Any], path: str, extra: dict[str, Any],
        out: list[AnyDelta],
    ) -> tuple[Any, bool]:  # fmt: skip
        """A streamed call's part: (the argument text its updates append, OMITTED for none;
        whether it ends the call)."""
        assembler = self._streaming
        if assembler is None:
            assembler = self._streaming = PartialArgs()
        updates = updates_of(fc, seq, path, out)
        text, paths, reopened = [], [], []
        for steps, value, string, more in updates:
            piece, again = assembler.add(steps, value, string, more)
            text.append(piece)
            paths.append(normal_path(steps))
            if again:
                reopened.append(normal_path(steps))
        ends = fc.get("willContinue") is not True and not any(u[3] for u in updates)
        if ends:
            text.append(assembler.end())
            self._streaming = None
        if paths:
            extra["jsonPaths"] = paths
        if reopened:
            extra["reopened"] = reopened
        joined = "".join(text)
        return (joined if joined else OMITTED), ends
