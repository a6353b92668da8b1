"""The OpenAI-compatible Chat Completions provider: ``choices[].delta`` chunks -> deltas, and
its requests (``/chat/completions``), continuations and error bodies.

This is the hot path: most providers speak it and a stream can carry thousands of chunks.
``OpenAIChat.feed`` does one ``orjson.loads`` per event and otherwise only dict lookups and
object construction. A tool-call entry whose ``function`` is an object with string (or absent)
``arguments`` is mapped inline; anything odder goes through ``_entry`` (same result, slower).
A delta holding only ``tool_calls`` skips the role/reasoning/content/function_call lookups.

Invariants:
- Tool-call identity fields (``index``, ``id``, ``function.name``, ``type``) and ``arguments``
  are passed on exactly as received: ``OMITTED`` when the key is absent, otherwise the value
  itself (``None``, ``""``, ``"null"`` included). Nothing here tests them for truthiness.
  (One limit is orjson's: an integer wider than 64 bits arrives as a float.)
- The one rewrite: arguments that arrived as a JSON object/array become their compact JSON text
  with ``args_object=True`` (llama-server / Ollama quirk); other non-strings stay as received.
- Per event the deltas come out in a fixed order: ERROR (provider error object), then per
  choice META (role), REASONING, TEXT, tool calls (``pos`` = position in that choice's
  ``tool_calls`` list; the legacy ``function_call`` follows them), FINISH; then USAGE.
- A choice other than 0 is marked: ``extra={"choice": n}`` on its tool calls, ``raw=choice``
  on its META/TEXT/REASONING deltas.
- ``data: [DONE]`` is DONE. A ``choices`` list that is missing or empty, with no usage and no
  error, is UNKNOWN (kept verbatim). Every wire event yields at least one delta, except chunks
  whose choices carry nothing this module maps (empty ``content``, ``logprobs`` only …): those
  are still in the event list, reachable by ``seq``.

The provider: calls stream in index order (the next index or a finish closes them), the stream
ends with ``[DONE]``, the wire index checks apply (missing, duplicated, sparse), a continuation
appends an assistant ``tool_calls`` message then one ``role: tool`` message per call
(``tool_call_id``; reasoning echoed as ``reasoning_content``), the key is a Bearer token.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

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
from inspector.core.base.provider import IN_ORDER, Turn, TurnResult, WireRequest
from inspector.core.providers.common import (
    OwnDialect,
    args_text,
    as_list,
    error_message,
    non_event,
    undecodable,
    wrapped_error,
)

_loads = orjson.loads
_dumps = orjson.dumps
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


def _entry(seq: int, pos: int, n: Any, e: Any, data: str) -> AnyDelta:
    """The slow path for one ``tool_calls`` entry: anything but a dict whose ``function`` is a
    dict with string (or absent) ``arguments``."""
    if type(e) is not dict:
        return Delta(seq, _UNKNOWN, e, data)
    extra: dict[str, Any] | None = None
    fn = e.get("function", OMITTED)
    if type(fn) is dict:
        name = fn.get("name", OMITTED)
        a = fn.get("arguments", OMITTED)
    else:
        name = a = OMITTED
        if fn is not OMITTED:
            extra = {"function": fn}
    obj_args = False
    if type(a) is dict or type(a) is list:
        a = _dumps(a).decode()
        obj_args = True
    if n != 0:
        extra = extra or {}
        extra["choice"] = n
    return ToolCallDelta(
        seq,
        pos,
        e.get("index", OMITTED),
        e.get("id", OMITTED),
        name,
        a,
        e.get("type", OMITTED),
        obj_args,
        False,
        extra,
    )


def _legacy(seq: int, pos: int, n: Any, fc: Any, data: str) -> AnyDelta:
    """The pre-tools ``delta.function_call`` {name, arguments}: no index, no id."""
    if type(fc) is not dict:
        return Delta(seq, _UNKNOWN, {"function_call": fc}, data)
    a = fc.get("arguments", OMITTED)
    obj_args = False
    if type(a) is dict or type(a) is list:
        a = _dumps(a).decode()
        obj_args = True
    extra: dict[str, Any] = {"legacy_function_call": True}
    if n != 0:
        extra["choice"] = n
    return ToolCallDelta(
        seq, pos, OMITTED, OMITTED, fc.get("name", OMITTED), a, OMITTED, obj_args, False, extra
    )


class OpenAIChatDialect(OwnDialect):
    """Maps ``chat.completion.chunk`` events (and their many imitations) to deltas."""

    def feed(self, ev: SSEEvent, out: list[AnyDelta]) -> None:
        """Append the deltas for one wire event, in wire order."""
        if ev.kind != _EVENT:
            out.append(non_event(ev))
            return
        data = ev.data
        seq = ev.seq
        if data == "[DONE]":  # ~20 ns per event; letting loads() raise costs ~3 µs once
            out.append(Delta(seq, _DONE))
            return
        try:
            obj = _loads(data)
        except _JSONDecodeError as exc:
            out.append(undecodable(ev, exc))  # also maps a " [DONE] " with stray spaces
            return
        try:
            choices = obj.get("choices")
        except AttributeError:  # a JSON array, string or number: not a chunk at all
            out.append(Delta(seq, _UNKNOWN, obj, data))
            return
        append = out.append

        err = obj.get("error")
        if err is not None:
            append(Delta(seq, _ERROR, error_message(err), obj))
        if choices:
            if type(choices) is not list:
                append(Delta(seq, _UNKNOWN, obj, data))
                return
            ci = 0
            for ch in choices:
                if type(ch) is not dict:
                    append(Delta(seq, _UNKNOWN, ch, data))
                    ci += 1
                    continue
                n = ch.get("index", ci)
                ci += 1
                delta = ch.get("delta")
                if delta:
                    if type(delta) is not dict:
                        append(Delta(seq, _UNKNOWN, ch, data))
                    else:
                        tcs = delta.get("tool_calls")
                        # Most chunks of a tool stream hold tool_calls and nothing else: they
                        # skip the role / reasoning / content / function_call lookups.
                        rest = tcs is None or len(delta) > 1
                        if rest:
                            craw = None if n == 0 else ch
                            if "role" in delta:
                                append(Delta(seq, _META, {"role": delta["role"]}, craw))
                            r = delta.get("reasoning_content")
                            if r and type(r) is str:
                                append(Delta(seq, _REASONING, r, craw))
                            r2 = delta.get("reasoning")
                            if r2 and r2 != r and type(r2) is str:
                                append(Delta(seq, _REASONING, r2, craw))
                            c = delta.get("content")
                            if c and type(c) is str:
                                append(Delta(seq, _TEXT, c, craw))
                        pos = 0
                        if tcs is not None:
                            if type(tcs) is not list:
                                append(Delta(seq, _UNKNOWN, {"tool_calls": tcs}, data))
                                tcs = ()
                            for e in tcs:
                                # Fast path: a dict entry whose function is a dict with string
                                # (or absent) arguments. Anything else goes through _entry().
                                if type(e) is dict:
                                    fn = e.get("function", OMITTED)
                                    if type(fn) is dict:
                                        a = fn.get("arguments", OMITTED)
                                        if type(a) is str or a is OMITTED:
                                            append(
                                                ToolCallDelta(
                                                    seq,
                                                    pos,
                                                    e.get("index", OMITTED),
                                                    e.get("id", OMITTED),
                                                    fn.get("name", OMITTED),
                                                    a,
                                                    e.get("type", OMITTED),
                                                    False,
                                                    False,
                                                    None if n == 0 else {"choice": n},
                                                )
                                            )
                                            pos += 1
                                            continue
                                append(_entry(seq, pos, n, e, data))
                                pos += 1
                        if rest:
                            fc = delta.get("function_call")
                            if fc is not None:
                                append(_legacy(seq, pos, n, fc, data))
                elif delta is None and "message" in ch:  # a whole message where a delta belongs
                    append(Delta(seq, _UNKNOWN, ch, data))
                fr = ch.get("finish_reason")
                if fr is not None:
                    append(Delta(seq, _FINISH, fr, ch))
        elif choices is None and obj.get("object") == "error":  # vLLM / TGI error object
            append(Delta(seq, _ERROR, error_message(obj), obj))
            return

        usage = obj.get("usage")
        if usage is not None and type(usage) is dict:
            append(Delta(seq, _USAGE, usage, obj))
        elif not choices and err is None:
            # No choices to map and nothing else we know (Azure's prompt_filter_results
            # chunk, an empty object …): keep it visible, verbatim.
            append(Delta(seq, _UNKNOWN, obj, data))


# -- the provider --------------------------------------------------------------------------------

_TOOL_FINISH = frozenset({"tool_calls", "function_call"})


class OpenAIChat:
    """The Chat Completions provider (see the module docstring)."""

    name = "openai-chat"
    closing = IN_ORDER
    checks = frozenset(
        {
            "arguments_not_string",
            "missing_index",
            "duplicate_index_in_chunk",
            "sparse_index",
            "whole_call_single_chunk",
        }
    )
    end_marker = "[DONE]"
    key_header = "authorization"
    version_segment = "/v1"

    def dialect(self) -> OpenAIChatDialect:
        """A fresh dialect for one response body."""
        return OpenAIChatDialect(self)

    def is_tool_finish(self, reason: Any, calls: int) -> bool:
        """``tool_calls`` (or the legacy ``function_call``) with at least one call."""
        return calls > 0 and reason in _TOOL_FINISH

    def error_message(self, body: Any) -> str:
        """``{"error": {"message", "type", "param", "code"}}``; vLLM / TGI send the error
        object itself (``{"object": "error", "message": …}``)."""
        return wrapped_error(body)

    def tools(self, neutral: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The neutral shape is this provider's own."""
        return copy.deepcopy(neutral)

    def request(
        self, base_url: str, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> WireRequest:
        """``{base}/chat/completions`` with the messages as they are."""
        body: dict[str, Any] = {"model": model, "messages": messages, "stream": True}
        if tools:
            body["tools"] = self.tools(tools)
        return WireRequest(f"{base_url}/chat/completions", body)

    def append_turn(self, body: dict[str, Any], turn: Turn, results: Sequence[TurnResult]) -> None:
        """``messages`` += the assistant ``tool_calls`` message, then one tool message each."""
        msg: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
        if turn.reasoning:
            msg["reasoning_content"] = turn.reasoning
        msg["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": args_text(c.arguments)},
            }
            for c in turn.calls
        ]
        answers = [{"role": "tool", "tool_call_id": r.call_id, "content": r.text} for r in results]
        body["messages"] = [*as_list(body.get("messages")), msg, *answers]


PROVIDER = OpenAIChat()
"""The one Chat Completions provider."""
