"""The Chat Completions dialect: ``choices[].delta`` chunks -> deltas.

This is the hot path: most providers speak it and a stream can carry thousands of chunks.
``OpenAIChatDialect.feed`` does one ``orjson.loads`` per event and otherwise only dict lookups and
object construction; a chunk that differs from a proved one only in its argument text (and
``obfuscation`` padding) is mapped by the shape memo without a decode
(:mod:`inspector.core.providers.shapememo.shape`: same deltas, field for field; while no
shape exists it costs an attribute check and a length check per event).

A tool-call entry with an integer (or absent) index, string (or absent) id and name, whose
``function`` is an object with string (or absent) ``arguments``, is mapped inline; anything
odder goes through :mod:`.fields` (same result, plus a
flag for each field of the wrong type). A delta holding only ``tool_calls``
skips the role/reasoning/content/function_call lookups.

Invariants:
- Tool-call identity fields (``index``, ``id``, ``function.name``, ``type``) and ``arguments``
  are passed on exactly as received: ``OMITTED`` when the key is absent, otherwise the value
  itself (``None``, ``""``, ``"null"`` included). Nothing here tests them for truthiness.
  (One limit is orjson's: an integer wider than 64 bits arrives as a float.)
- Identity strings (id, name, type) are passed on shared (``common.shared`` / ``shared_id``):
  equal values, one object for a name repeated in every call.
- The one rewrite: arguments that arrived as a JSON object/array become their compact JSON text
  with ``args_object=True`` (llama-server / Ollama quirk); other non-strings stay as received.
- A field of the wrong type (``choices`` not an array, an ``index`` that is not an integer, a
  ``finish_reason`` that is not a string …) is flagged where it is read, with its path
  (:func:`~inspector.core.quirks.events.wrongtype.wrong_type`), and the rest of the event is mapped:
  an entry, choice or delta that is not an object is skipped; a value in an identity field or
  a finish reason is passed on as received.
- Per event the deltas come out in a fixed order: ERROR (provider error object), then per
  choice META (role), REASONING, TEXT, tool calls (``pos`` = position in that choice's
  ``tool_calls`` list; the legacy ``function_call`` follows them), FINISH; then USAGE.
- A choice other than 0 is marked: ``extra={"choice": n}`` on its tool calls, ``raw=choice``
  on its META/TEXT/REASONING deltas.
- ``data: [DONE]`` is DONE. A ``choices`` list that is missing or empty, with no usage and no
  error, is UNKNOWN (kept verbatim). Every wire event yields at least one delta, except chunks
  whose choices carry nothing this module maps (empty ``content``, ``logprobs`` only …): those
  are still in the event list, reachable by ``seq``.
"""

from __future__ import annotations

import orjson

from inspector.core.base.model import (
    OMITTED,
    AnyDelta,
    Delta,
    DeltaKind,
    EventKind,
    SSEEvent,
    ToolCallDelta,
)
from inspector.core.base.provider import Provider
from inspector.core.providers.openai_chat.fields import legacy_call, odd_entry, text_field
from inspector.core.providers.shapememo.dialect import MemoDialect
from inspector.core.providers.shapememo.shape import ShapeMemo
from inspector.core.providers.wire.errors import error_message
from inspector.core.providers.wire.events import lenient_loads, non_event, not_object, undecodable
from inspector.core.providers.wire.fields import error_at, shared, shared_id
from inspector.core.quirks.events.wrongtype import wrong_type

_loads = orjson.loads
_JSONDecodeError = orjson.JSONDecodeError

_EVENT = EventKind.EVENT

_META = DeltaKind.META
_TEXT = DeltaKind.TEXT
_REASONING = DeltaKind.REASONING
_FINISH = DeltaKind.FINISH
_USAGE = DeltaKind.USAGE
_ERROR = DeltaKind.ERROR
_DONE = DeltaKind.DONE
_UNKNOWN = DeltaKind.UNKNOWN

# -- the dialect --------------------------------------------------------------------------------


class OpenAIChatDialect(MemoDialect):
    """Maps ``chat.completion.chunk`` events (and their many imitations) to deltas."""

    def __init__(self, provider: Provider, memo: bool = True) -> None:
        # The shape is None most of the time in a stream whose chunks all differ.
        super().__init__(provider, ShapeMemo("arguments", "index", _plain, False) if memo else None)

    def feed(self, ev: SSEEvent, out: list[AnyDelta]) -> None:
        """Append the deltas for one wire event, in wire order."""
        if ev.kind != _EVENT:
            out.append(non_event(ev))
            return
        shape = self._shape
        if shape is not None:
            got = shape.map(ev)
            if got is not None:
                out.append(got)
                return
        data = ev.data
        seq = ev.seq
        n0 = len(out)
        if data == "[DONE]":  # ~20 ns per event; letting loads() raise costs ~3 µs once
            out.append(Delta(seq, _DONE))
            return
        try:
            obj = _loads(data)
        except _JSONDecodeError as exc:
            try:
                obj = lenient_loads(data, exc)  # a lone surrogate escape, as clients read it
            except _JSONDecodeError:
                out.append(undecodable(ev, exc))  # also maps a " [DONE] " with stray spaces
                return
        try:
            choices = obj.get("choices")
        except AttributeError:  # a JSON array, string, number, boolean or null: no chunk at all
            out.append(not_object(ev, obj))
            return
        append = out.append

        err = obj.get("error")
        if err is not None:
            error_at(obj, "error", seq, out)
            append(Delta(seq, _ERROR, error_message(err), obj))
        if type(choices) is list:
            k = 0
            for ch in choices:
                if type(ch) is not dict:
                    append(wrong_type(seq, f"choices[{k}]", "object", ch, obj))
                    k += 1
                    continue
                n = ch.get("index", k)
                if type(n) is not int:
                    append(wrong_type(seq, f"choices[{k}].index", "integer", n, obj))
                delta = ch.get("delta")
                if type(delta) is dict:
                    tcs = delta.get("tool_calls")
                    # Most chunks of a tool stream hold tool_calls and nothing else: they skip
                    # the role / reasoning / content / function_call lookups.
                    rest = tcs is None or len(delta) > 1
                    if rest:
                        craw = None if n == 0 else ch
                        if "role" in delta:
                            role = delta["role"]
                            if role is not None and type(role) is not str:
                                append(wrong_type(seq, f"choices[{k}].delta.role", "string",
                                                  role, obj))  # fmt: skip
                            append(Delta(seq, _META, {"role": role}, craw))
                        r = delta.get("reasoning_content")
                        if r is not None:
                            text_field(seq, _REASONING, f"choices[{k}].delta.reasoning_content",
                                       r, craw, obj, append)  # fmt: skip
                        r2 = delta.get("reasoning")
                        if r2 is not None and r2 != r:
                            text_field(seq, _REASONING, f"choices[{k}].delta.reasoning", r2,
                                       craw, obj, append)  # fmt: skip
                        c = delta.get("content")
                        if c is not None:
                            text_field(
                                seq, _TEXT, f"choices[{k}].delta.content", c, craw, obj, append
                            )
                    pos = 0
                    if tcs is not None:
                        if type(tcs) is not list:
                            append(wrong_type(seq, f"choices[{k}].delta.tool_calls", "array",
                                              tcs, obj))  # fmt: skip
                            tcs = ()
                        for e in tcs:
                            # Fast path: a dict entry with an integer (or absent) index and
                            # string (or absent) id and name, whose function is a dict with
                            # string (or absent) arguments. Anything else: odd_entry().
                            if type(e) is dict:
                                fn = e.get("function", OMITTED)
                                if type(fn) is dict:
                                    a = fn.get("arguments", OMITTED)
                                    index = e.get("index", OMITTED)
                                    id_ = e.get("id", OMITTED)
                                    name = fn.get("name", OMITTED)
                                    if (
                                        (type(a) is str or a is OMITTED)
                                        and (type(index) is int or index is OMITTED)
                                        and (id_ is OMITTED or type(id_) is str)
                                        and (name is OMITTED or type(name) is str)
                                    ):
                                        typ = e.get("type", OMITTED)
                                        if id_ is not OMITTED:  # identity strings: shared
                                            id_ = shared_id(id_)
                                        if name is not OMITTED:
                                            name = shared(name)
                                        if typ is not OMITTED:
                                            typ = shared(typ)
                                        append(
                                            ToolCallDelta(
                                                seq,
                                                pos,
                                                index,
                                                id_,
                                                name,
                                                a,
                                                typ,
                                                False,
                                                False,
                                                None if n == 0 else {"choice": n},
                                            )
                                        )
                                        pos += 1
                                        continue
                            odd_entry(seq, pos, n, e, f"choices[{k}].delta", obj, append)
                            pos += 1
                    if rest:
                        fc = delta.get("function_call")
                        if fc is not None:
                            legacy_call(seq, pos, n, fc, f"choices[{k}].delta", obj, append)
                elif delta is not None:
                    append(wrong_type(seq, f"choices[{k}].delta", "object", delta, obj))
                elif "message" in ch:  # a whole message where a delta belongs
                    append(Delta(seq, _UNKNOWN, ch, data))
                fr = ch.get("finish_reason")
                if fr is not None:
                    if type(fr) is not str:  # kept as received: no known reason
                        append(wrong_type(seq, f"choices[{k}].finish_reason", "string", fr, obj))
                    append(Delta(seq, _FINISH, fr, ch))
                k += 1
        elif choices is None:
            if obj.get("object") == "error":  # vLLM / TGI error object
                append(Delta(seq, _ERROR, error_message(obj), obj))
                return
        else:
            append(wrong_type(seq, "choices", "array", choices, obj))

        usage = obj.get("usage")
        if type(usage) is dict:
            append(Delta(seq, _USAGE, usage, obj))
        elif usage is not None:
            append(wrong_type(seq, "usage", "object", usage, obj))
        elif not choices and err is None:
            # No choices to map and nothing else we know (Azure's prompt_filter_results
            # chunk, an empty object …): keep it visible, verbatim.
            append(Delta(seq, _UNKNOWN, obj, data))
        if len(out) == n0 + 1:  # one delta: a shape candidate if it is a call's fragment
            one = out[n0]
            if type(one) is ToolCallDelta:
                self._offer(ev, one, obj)


def _plain(delta: ToolCallDelta) -> bool:
    """A delta a shape may stand for: a choice-0 call (no ``extra``)."""
    return delta.extra is None
