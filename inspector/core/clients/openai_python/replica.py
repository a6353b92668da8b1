"""openai-python: what ``client.chat.completions.stream()`` then ``get_final_completion()``
hand over (``choices[0].message.tool_calls``: id, function.name, function.arguments); on the
openai-responses dialect, what ``client.responses.stream()`` then ``get_final_response()`` hand
over (:mod:`.responses`). The dialect is the exchange's (read from its events when it
has none: an error page with no events then reads as chat).

Follows openai 3.57.0: ``openai/lib/streaming/chat/_completions.py``
(``ChatCompletionStreamState``, ``ChoiceEventState``), ``openai/lib/streaming/_deltas.py``
(``accumulate_delta``) and ``openai/lib/_parsing/_completions.py`` (``parse_chat_completion``),
over the chunks of :mod:`inspector.core.clients.openai_sdk.sse`. The SDK builds its models
without validation, so the state here is the chunks' own JSON: a field read on a non-object is
``AttributeError``, a list indexed by ``None`` is ``TypeError``, as in the library.

What the library does, modelled here:
- A chunk whose ``object`` is not ``chat.completion.chunk`` is skipped (no chunk kept at all:
  ``get_final_completion`` fails its ``assert``).
- The first chunk becomes the snapshot; every later delta is merged by ``accumulate_delta``:
  strings concatenate (ids and names too: parallel calls on index 0 merge into one call named
  ``get_weatherget_weather`` with arguments ``{…}{…}``; an id sent on every chunk is repeated),
  ``null`` never overwrites, ``index`` and ``type`` are replaced, list entries are merged by
  their ``index``, and an index past the end is *inserted* at the end.
- After each chunk, each tool-call fragment's ``index`` is looked up in the merged list: a
  fragment without an index is ``TypeError: list indices must be integers or slices, not
  NoneType``; a sparse index (2 before 1) is ``IndexError: list index out of range``.
- A fragment typed ``function`` without a ``function`` object fails an ``assert``; a call whose
  ``type`` changes from ``function`` fails one too.
- At the end, a ``length`` finish reason raises ``LengthFinishReasonError``, ``content_filter``
  ``ContentFilterFinishReasonError``; ``custom`` calls are left out.

Not modelled: tools declared ``strict`` (the runner declares the request's tools as sent),
``response_format`` parsing, logprobs beyond their merge, pydantic's lax validation of
fields other than a delta's ``tool_calls``.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar, Final

from inspector.core.base.model import EventKind
from inspector.core.clients.base import ClientRaised, Exchange, HandedCall, Replica, as_text
from inspector.core.clients.openai_python.deltas import (
    accumulate_delta,
    delta_dict,
    fresh,
    model_chunk,
    usage_text,
)
from inspector.core.clients.openai_python.mirror import (
    ChatMirror,
    as_arguments,
    merged_into,
    not_string,
)
from inspector.core.clients.openai_python.responses import ResponsesRun
from inspector.core.clients.openai_sdk.sse import VERSION, SdkChunkRun, attr
from inspector.core.providers import OPENAI_CHAT, OPENAI_RESPONSES

CHAT: Final = OPENAI_CHAT
RESPONSES: Final = OPENAI_RESPONSES
_RESPONSE_TYPE: Final = re.compile(r'"type"\s*:\s*"response\.')


class _Choice:
    """``ChoiceEventState``: which tool call is current, which are done."""

    def __init__(self) -> None:
        self.current: Any = None
        self.done: set[Any] = set()

    def done_events(self, choice: Any, snapshot: dict[str, Any]) -> None:
        if snapshot.get("finish_reason"):
            _logprobs_done(snapshot)
            if self.current is not None and self.current not in self.done:
                self._tool_done(snapshot, self.current)
        for tool_call in attr(attr(choice, "delta"), "tool_calls") or []:
            index = attr(tool_call, "index")
            if self.current != index:
                _logprobs_done(snapshot)
                if self.current is not None:
                    self._tool_done(snapshot, self.current)
            self.current = index

    def _tool_done(self, snapshot: dict[str, Any], index: Any) -> None:
        if index in self.done:
            return
        self.done.add(index)
        calls = attr(snapshot["message"], "tool_calls")
        assert calls is not None
        call = calls[index]
        if attr(call, "type") == "function":
            attr(attr(call, "function"), "name")  # parse_function_tool_arguments reads it


def _logprobs_events(logprobs: Any, held: Any) -> None:
    if logprobs is not None and held is not None:
        if attr(logprobs, "content"):
            attr(held, "content")
        if attr(logprobs, "refusal"):
            attr(held, "refusal")


def _logprobs_done(snapshot: dict[str, Any]) -> None:
    logprobs = snapshot.get("logprobs")
    if logprobs is not None:
        attr(logprobs, "content")
        attr(logprobs, "refusal")


class _ChatRun(SdkChunkRun):
    """``ChatCompletionStreamState`` over the SDK's chunks, mirrored as Partials."""

    def __init__(self, exchange: Exchange) -> None:
        super().__init__(exchange)
        self.snapshot: dict[str, Any] | None = None
        self.states: list[_Choice] = []
        self.mirror = ChatMirror(self.calls, self.touched)
        self._kinds: dict[int, tuple[Any, int, list[Any]]] = {}
        """Per choice snapshot (by ``id``): its tool-call list and length, and each call's
        type, kept while every call is a dict (see :meth:`_types_kept`)."""

    def chunk(self, data: Any) -> None:
        if attr(data, "object") != "chat.completion.chunk":
            return
        data = model_chunk(data)
        self._accumulate(data)
        self._events(data)
        self.mirror.update(_first_calls(self.snapshot), merged_into(data))

    # -- ChatCompletionStreamState._accumulate_chunk --------------------------------------

    def _accumulate(self, chunk: dict[str, Any]) -> None:
        if self.snapshot is None:
            self.snapshot = _initial_snapshot(chunk)
            return
        choices = self.snapshot["choices"]
        for choice in attr(chunk, "choices"):
            index = attr(choice, "index")
            try:
                snapshot = choices[index]
                held = attr(snapshot["message"], "tool_calls") or []
                kept = self._kinds.get(id(snapshot))
                if kept is not None and kept[0] is held and kept[1] == len(held):
                    before = kept[2]
                else:  # (a call that is no dict raises here, as in the library)
                    before = [c.get("type") if type(c) is dict else attr(c, "type") for c in held]
                delta = delta_dict(attr(choice, "delta"))
                merged = _merged_at(delta, len(held))
                message = accumulate_delta(snapshot["message"], delta)
                snapshot["message"] = message
                after = (message.get("tool_calls") or []) if before else []
                self._types_kept(snapshot, before, after, merged if after is held else None)
            except IndexError:
                snapshot = _new_choice(choice)
                choices.append(snapshot)
            reason = attr(choice, "finish_reason")
            if reason:
                snapshot["finish_reason"] = reason
            fragments = attr(attr(choice, "delta"), "tool_calls")
            if fragments:
                held = attr(snapshot["message"], "tool_calls") or []
                for fragment in fragments:
                    call = held[attr(fragment, "index")]
                    if attr(call, "type") == "function":
                        attr(attr(call, "function"), "name")  # get_input_tool_by_name reads it
            _merge_logprobs(snapshot, attr(choice, "logprobs"))
        self.snapshot["usage"] = attr(chunk, "usage")
        moderation = attr(chunk, "moderation")
        if moderation is not None and not isinstance(moderation, dict):
            raise AttributeError(f"'{type(moderation).__name__}' object has no attribute 'to_dict'")

    def _types_kept(
        self, snapshot: dict[str, Any], before: list[Any], after: Any, merged: set[int] | None
    ) -> None:
        """The library's check that no call typed ``function`` changed type in the merge
        (every call; only the ``merged`` ones when the list is the same and as long: no other
        call changed, and every call is a dict, or ``before`` would have raised), then the
        types kept for the next chunk."""
        if merged is not None and len(after) >= len(before):
            count = len(before)
            for i in merged:
                if i < count:
                    kind, now = before[i], after[i].get("type")
                    if kind == "function":
                        assert now == "function"
                    before[i] = now
            before += [c.get("type") for c in after[count:]]  # appended: dicts, as entries are
            self._kinds[id(snapshot)] = (after, len(after), before)
            return
        for i, kind in enumerate(before):
            call = after[i]
            if kind == "function":
                assert (call.get("type") if type(call) is dict else attr(call, "type")) == (
                    "function"
                )
        if type(after) is list and all(type(c) is dict for c in after):
            kinds = [c.get("type") for c in after]
            self._kinds[id(snapshot)] = (after, len(after), kinds)
        else:
            self._kinds.pop(id(snapshot), None)

    # -- ChatCompletionStreamState._build_events -----------------------------------------

    def _events(self, chunk: dict[str, Any]) -> None:
        assert self.snapshot is not None
        for choice in attr(chunk, "choices"):
            index = attr(choice, "index")
            try:
                state = self.states[index]
            except IndexError:
                state = _Choice()
                self.states.append(state)
            snapshot = self.snapshot["choices"][index]
            delta = attr(choice, "delta")
            if type(delta) is dict:  # (attr's reads, which only raise on other values)
                fragments = delta.get("tool_calls")
            else:
                attr(delta, "content")
                attr(delta, "refusal")
                fragments = attr(delta, "tool_calls")
            if fragments:
                calls = attr(snapshot["message"], "tool_calls")
                assert calls is not None
                for fragment in fragments:
                    call = calls[attr(fragment, "index")]
                    if attr(call, "type") == "function":
                        function = attr(fragment, "function")
                        assert function is not None
                        attr(attr(call, "function"), "name")
                        attr(function, "arguments")
            _logprobs_events(attr(choice, "logprobs"), snapshot.get("logprobs"))
            state.done_events(choice, snapshot)

    # -- get_final_completion --------------------------------------------------------------

    def handed(self) -> list[HandedCall]:
        assert self.snapshot is not None
        choices = self.snapshot["choices"]
        handed: list[HandedCall] = []
        for pos, choice in enumerate(choices):
            reason = attr(choice, "finish_reason")
            if reason == "length":
                usage = self.snapshot.get("usage")
                message = "Could not parse response content as the length limit was reached"
                raise ClientRaised(
                    "LengthFinishReasonError",
                    message + (f" - {usage_text(usage)}" if usage else ""),
                )
            if reason == "content_filter":
                raise ClientRaised(
                    "ContentFilterFinishReasonError",
                    "Could not parse response content as the request was rejected by the "
                    "content filter",
                )
            calls = _parsed_calls(attr(choice, "message"))
            if pos == 0:  # the agent reads completion.choices[0].message.tool_calls
                handed = [_read(call) for call in calls]
        return handed


def _merged_at(delta: dict[Any, Any], count: int) -> set[int] | None:
    """The positions (of a list of ``count`` calls) a delta's tool-call entries merge into,
    an entry past the end being appended there (``accumulate_delta`` inserts it at the end),
    or None when they may do anything else (an index that is no int, or before the start)."""
    entries = delta.get("tool_calls")
    if entries is None:
        return set()
    if type(entries) is not list:
        return None
    out = set()
    for entry in entries:
        at = entry.get("index") if type(entry) is dict else None
        if type(at) is not int or at < -count:
            return None
        if at >= count:
            count += 1  # appended: a new position, read whole
            continue
        out.add(at % count)
    return out


def _initial_snapshot(chunk: dict[str, Any]) -> dict[str, Any]:
    """``_convert_initial_chunk_into_snapshot``."""
    data = dict(chunk)
    data.pop("obfuscation", None)
    choices = data["choices"]
    choices = data["choices"] = list(choices) if isinstance(choices, list) else choices
    for choice in attr(chunk, "choices"):
        choices[attr(choice, "index")] = _new_choice(choice)
    return data


def _new_choice(choice: Any) -> dict[str, Any]:
    """A choice snapshot: the choice's own fields, its delta merged into an empty message."""
    if not isinstance(choice, dict):
        raise AttributeError(f"'{type(choice).__name__}' object has no attribute 'model_dump'")
    fields = {k: fresh(v) for k, v in choice.items() if k != "delta"}  # model_dump: a copy
    delta = delta_dict(attr(choice, "delta"))
    return {**fields, "message": accumulate_delta({}, delta)}


def _merge_logprobs(snapshot: dict[str, Any], logprobs: Any) -> None:
    if logprobs is None:
        return
    content, refusal = attr(logprobs, "content"), attr(logprobs, "refusal")
    held = snapshot.get("logprobs")
    if held is None:
        # (the lists the chunk holds are extended later: copies, so the chunk stays as read)
        snapshot["logprobs"] = {"content": _own(content), "refusal": _own(refusal)}
        return
    for key, more in (("content", content), ("refusal", refusal)):
        if more:
            if attr(held, key) is None:
                held[key] = []
            held[key].extend(more)


def _own(value: Any) -> Any:
    """A list as a copy of its own (a chunk's values are shared, read-only), else itself."""
    return list(value) if type(value) is list else value


def _first_calls(snapshot: dict[str, Any] | None) -> list[Any]:
    if snapshot is None:
        return []
    choices = snapshot.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return []
    message = choices[0].get("message")
    calls = message.get("tool_calls") if isinstance(message, dict) else None
    return calls if isinstance(calls, list) else []


def _parsed_calls(message: Any) -> list[Any]:
    """``parse_chat_completion``'s tool calls for one message (``custom`` ones left out)."""
    out = []
    for call in attr(message, "tool_calls") or []:
        kind = attr(call, "type")
        if kind == "function":
            if "function" not in call:
                raise KeyError("function")
            fn = call["function"]
            if not isinstance(fn, dict):
                raise TypeError(f"'{type(fn).__name__}' object is not a mapping")
            attr(fn, "name")
        elif kind == "custom":
            if "custom" not in call:
                raise AttributeError("'ParsedFunctionToolCall' object has no attribute 'custom'")
            attr(call["custom"], "name")
            continue
        out.append(call)
    return out


def _read(call: Any) -> HandedCall:
    """``tc.id``, ``tc.function.name``, ``tc.function.arguments`` as the agent reads them."""
    fn = attr(call, "function")
    arguments = attr(fn, "arguments")
    return HandedCall(
        as_text(attr(call, "id")),
        as_text(attr(fn, "name")),
        as_arguments(arguments),
        object=not_string(arguments),
    )


class OpenAIPython(Replica):
    """openai-python's ``ChatCompletionStreamState`` (and the Responses stream's final output)."""

    name: ClassVar[str] = "openai-python"
    library: ClassVar[str] = "openai"
    version: ClassVar[str] = VERSION
    follows: ClassVar[str] = (
        "openai/lib/streaming/chat/_completions.py, openai/lib/streaming/_deltas.py, "
        "openai/lib/streaming/responses/_responses.py"
    )
    dialects: ClassVar[frozenset[str]] = frozenset({CHAT, RESPONSES})
    plain: ClassVar[frozenset[str]] = frozenset({CHAT, RESPONSES})
    summary: ClassVar[str] = (
        "client.chat.completions.stream() then get_final_completion(): deltas merged by "
        "accumulate_delta (strings concatenated, entries by index)"
    )

    def open(self, exchange: Exchange) -> SdkChunkRun:
        return _RUNS[dialect_of(exchange)](exchange)


_RUNS: Final[dict[str, type[SdkChunkRun]]] = {CHAT: _ChatRun, RESPONSES: ResponsesRun}
"""The library's stream reader for each dialect it speaks (chat.completions, responses)."""


def dialect_of(exchange: Exchange) -> str:
    """openai-chat or openai-responses: the exchange's own ``dialect`` when it has one, else
    read from its events (a Responses event is named, or typed, ``response.…``); a body with
    neither (an error page) reads as chat."""
    if exchange.dialect in _RUNS:
        return exchange.dialect
    for event in exchange.events[:8]:
        if event.kind != EventKind.EVENT:
            continue
        if event.event.startswith("response.") or _RESPONSE_TYPE.search(event.data[:200]):
            return RESPONSES
        if "chat.completion" in event.data[:400]:
            return CHAT
    return CHAT
