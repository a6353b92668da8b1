"""LangChain: ``ChatOpenAI`` streaming, the chunks merged with ``+``, then ``.tool_calls``
followed by ``.invalid_tool_calls``.

Follows langchain-openai 1.7.4 (``langchain_openai/chat_models/base.py``: ``_astream``,
``_convert_chunk_to_generation_chunk``, ``_convert_delta_to_message_chunk``,
``_handle_openai_api_error``) over langchain-core 1.8.3 (``messages/ai.py``:
``add_ai_message_chunks``, ``init_tool_calls``; ``utils/_merge.py``: ``merge_lists``,
``merge_dicts``; ``utils/json.py``: ``parse_partial_json``; ``language_models/chat_models.py``:
``astream``), reading the openai SDK's chunks (:mod:`inspector.core.clients.openai_sdk.sse`).

What it does, modelled here:
- Each chunk becomes a message chunk as :mod:`.message` says (pydantic's checks
  included: object arguments raise ``ValidationError``).
- The agent folds the chunks left to right with ``+``: contents, ``additional_kwargs`` and
  ``response_metadata`` merge with langchain-core's own rules (:mod:`.dicts`: a
  value whose type changes raises ``TypeError``). Tool-call chunks merge by ``index``
  (``merge_lists``): a chunk merges into the first held one with the same integer index whose
  id does not conflict (either is None or ``""``, or both equal); strings are concatenated
  (so a name repeated on every chunk is doubled), an equal id is kept once. A chunk with no
  index, or with a conflicting id, is a new call: the phantom calls. The first chunk's own
  entries are never merged with each other.
- A user message chunk added to the assistant message drops the calls held so far; a stream
  that starts with one has no ``.tool_calls`` at all (AttributeError).
- At the end each merged call's args go through ``parse_partial_json``: an object makes a
  tool call (handed over as its JSON, compact, keys in order; an empty args string is
  ``{}``), anything else an invalid tool call (handed over as the raw args string).
- Errors: the SDK's status and stream errors become langchain-openai's own classes
  (``OpenAIAuthenticationError``, ``OpenAIRateLimitError``, ``OpenAIAPIError`` for 5xx,
  ``OpenAIConnectionError`` …, same message); ``JSONDecodeError``, ``UnicodeDecodeError`` and
  a mid-stream ``APIError`` pass through; a stream that yields nothing raises
  ``ValueError: No generation chunks were returned``.

Not modelled: usage of odd types on a chunk that has a choice (LangChain checks it only
when it adds it to the next chunk's).
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, ClassVar, Final, NoReturn

from inspector.core.base.model import SSEEvent
from inspector.core.clients.base import (
    LONG_TEXT,
    ClientRaised,
    Exchange,
    HandedCall,
    Partial,
    Replica,
    ReplicaRun,
)
from inspector.core.clients.langchain.dicts import merge_content, merge_dicts
from inspector.core.clients.langchain.message import AI, Message, message_of
from inspector.core.clients.langchain.partial_json import parse_partial_json
from inspector.core.clients.openai_sdk.sse import SdkChunkRun
from inspector.core.clients.plain.compact import rewritten
from inspector.core.providers import OPENAI_CHAT

_SDK_CLASSES: Final = {
    "AuthenticationError": "OpenAIAuthenticationError",
    "PermissionDeniedError": "OpenAIPermissionDeniedError",
    "NotFoundError": "OpenAIModelNotFoundError",
    "RateLimitError": "OpenAIRateLimitError",
    "InternalServerError": "OpenAIAPIError",
    "APITimeoutError": "OpenAITimeoutError",
    "APIConnectionError": "OpenAIConnectionError",
}
_SDK_ERRORS: Final = frozenset(
    {*_SDK_CLASSES, "BadRequestError", "APIError", "APIStatusError", "ConflictError",
     "UnprocessableEntityError"}
)  # fmt: skip
_OVERFLOW: Final = (
    "context_length_exceeded",
    "Input tokens exceed the configured limit",
    "prompt is too long",
    "ContextWindowExceededError",
)


def langchain_error(raised: ClientRaised) -> ClientRaised:
    """What ``_handle_openai_bad_request`` / ``_handle_openai_api_error`` make of an SDK
    error (anything else passes through)."""
    kind, message = raised.type, raised.message
    if kind == "BadRequestError":
        overflow = any(s in message for s in _OVERFLOW)
        return ClientRaised(
            "OpenAIContextOverflowError" if overflow else "OpenAIInvalidRequestError", message
        )
    if kind not in _SDK_ERRORS:
        return raised
    if "exceeds the context window" in message:
        return ClientRaised("OpenAIAPIContextOverflowError", message)
    return ClientRaised(_SDK_CLASSES.get(kind, kind), message)


# -- one chunk, as langchain-openai converts it ---------------------------------------------


class _Run(SdkChunkRun):
    def __init__(self, exchange: Exchange) -> None:
        super().__init__(exchange)
        self.kind: str | None = None
        """The class of the merged message (None before the first chunk)."""
        self.default = AI
        """The class of the last chunk: a chunk without a role gets it."""
        self.held: list[_Held] = []
        """The merged message's tool-call chunks, in order (the very Partials of
        ``self.calls``)."""
        self.content: Any = ""
        self.meta: dict[str, Any] = {}
        self.kwargs: dict[str, Any] = {}
        self.own: ClientRaised | None = None
        self.dropped = 0
        """How many times the held calls were dropped (their Partials' ``rewritten``)."""
        self.names: dict[str, str] = {}
        """Each tool name once (a name comes again with every call of its tool)."""
        self.lookup = _Lookup(self.held)

    def feed(self, event: SSEEvent) -> None:
        try:  # (:meth:`_guard`, written out: once per event)
            SdkChunkRun.feed(self, event)
        except ClientRaised as raised:
            if raised is self.own:
                raise
            raise langchain_error(raised) from None

    def finish(self) -> list[HandedCall]:
        out: list[HandedCall] = []
        self._guard(lambda: out.extend(SdkChunkRun.finish(self)))
        return out

    def _guard(self, step: Any) -> None:
        try:
            step()
        except ClientRaised as raised:
            if raised is self.own:
                raise
            raise langchain_error(raised) from None

    def _raise(self, raised: ClientRaised) -> NoReturn:
        self.own = raised
        raise raised

    def chunk(self, data: Any) -> None:
        try:
            message = message_of(data, self.default)
            if message is not None:
                self._add(message)
        except ClientRaised as raised:
            self._raise(raised)
        except (AttributeError, TypeError, KeyError, IndexError, ValueError) as exc:
            self._raise(ClientRaised(type(exc).__name__, str(exc)))

    def _add(self, message: Message) -> None:
        """``merged = message if merged is None else merged + message``."""
        self.default = message.kind
        if self.kind is None:
            self.kind, self.content = message.kind, message.content
            self.meta, self.kwargs = message.meta, message.kwargs
            for tc in message.tool_calls:
                self._append(tc)
            return
        content, more = self.content, message.content
        if isinstance(more, str) and isinstance(content, str | _Text):  # str + str, in pieces
            self.content = _Text(content, more) if isinstance(content, str) else content.add(more)
        else:
            self.content = merge_content(_str(content), more)
        self.kwargs = merge_dicts(self.kwargs, message.kwargs)
        self.meta = merge_dicts(self.meta, message.meta)
        if self.kind != AI or message.kind != AI:
            if self.kind == AI and self.held:  # BaseMessageChunk.__add__ keeps no tool calls
                self.held.clear()
                self.calls.clear()
                self.lookup = _Lookup(self.held)
                self.dropped += 1
            return
        for tc in message.tool_calls:
            self._merge(tc)

    def _append(self, tc: dict[str, Any]) -> None:
        """A new held chunk; its id and args the inspector's equal strings, its name the
        run's one object per name (no second copy while the run lives)."""
        pos, index = len(self.held), tc["index"]
        pos = index if type(index) is int and index == pos else pos  # (one int for both)
        tc["id"], tc["args"] = self.same_id(pos, tc["id"]), self.same_text(pos, tc["args"])
        name = tc["name"]
        if type(name) is str:
            tc["name"] = self.names.setdefault(name, name)
        self.lookup.add(pos, tc["index"], tc["id"])
        held = _Held(tc, self.dropped)
        self.held.append(held)
        self.calls.append(held)
        self.touched.add(len(self.calls) - 1)

    def _merge(self, tc: dict[str, Any]) -> None:
        """Into the first held chunk with the same index whose id does not conflict (either
        is None or ``""``, or both are equal), else appended."""
        index, cid = tc["index"], tc["id"]
        pos = None if index is None else self.lookup.find(self.held, index, cid)
        if pos is None:
            self._append(tc)
            return
        left = self.held[pos]
        was = left.id
        left.merge(tc)
        if was in (None, "") and left.id not in (None, ""):
            self.lookup.named(pos, index, left.id)
        self.touched.add(pos)

    def handed(self) -> list[HandedCall]:
        if self.kind is None:
            self._raise(ClientRaised("ValueError", "No generation chunks were returned"))
        if self.kind != AI:
            self._raise(ClientRaised(
                "AttributeError", f"'{self.kind}' object has no attribute 'tool_calls'"
            ))  # fmt: skip
        valid, invalid = [], []
        for tc in self.held:
            raw = tc.args()
            args = _parsed(raw)
            if isinstance(args, dict):
                tc.parts = ""
                raw = raw if raw is not None and len(raw) < LONG_TEXT else None  # (dropped if long)
                text = json.dumps(args, separators=(",", ":"), ensure_ascii=False)
                valid.append(HandedCall(tc.id, tc.name or "", raw if text == raw else text))
            else:
                invalid.append(HandedCall(tc.id, tc.name, raw or ""))  # (None parses as {})
        return valid + invalid


class _Held(Partial):
    """One merged tool-call chunk as ``merge_lists`` holds it, and the very :class:`Partial`
    the driver reads: ``id``, ``name`` and ``index`` as merged; its args, when it has any
    (``has_args``: ``"args"`` is not None), are ``parts`` joined (``+`` copies the whole string
    on every chunk: quadratic in its size). ``rewritten`` is how many times the held calls
    were dropped before it was appended (a position is only ever appended to, or all are
    dropped)."""

    __slots__ = ("has_args", "index")

    def __init__(self, tc: dict[str, Any], dropped: int) -> None:
        args = tc["args"]
        super().__init__(tc["id"], tc["name"], args or "", dropped)
        self.index, self.has_args = tc["index"], args is not None

    def merge(self, tc: dict[str, Any]) -> None:
        """``merge_dicts`` of a chunk into this one: strings concatenated, an equal id kept
        once, the index replaced (None never overwrites)."""
        name, args, cid, index = tc["name"], tc["args"], tc["id"], tc["index"]
        if name is not None:
            self.name = name if self.name is None else self.name + name
        if args is not None:
            self.has_args = True
            if args:
                self.add(args)
        if cid is not None and self.id != cid:
            self.id = cid if self.id is None else self.id + cid
        if index is not None:
            self.index = index

    def args(self) -> str | None:
        """The args as LangChain holds them."""
        return self.arguments if self.has_args else None


class _Lookup:
    """Where :meth:`_Run._merge` merges a chunk, found without scanning every held chunk
    (``merge_lists`` does: quadratic when every delta brings a new id). Held chunks are only
    appended (or all dropped), their index never changes, and an id only ever goes from empty
    (None or ``""``) to set: so the first held chunk of an index, the ones of an index whose id
    is empty (stale ones dropped as found) and the first of each (index, id) say it."""

    def __init__(self, held: list[_Held]) -> None:
        self.held = held
        self.first: dict[Any, int] = {}
        self.empty: dict[Any, deque[int]] = {}
        self.by_id: dict[Any, int | dict[Any, int]] = {}
        """The first chunk of each (index, id), by id: its position when the id came with one
        index (the chunk there says which; no key tuple per chunk), else by index."""

    def add(self, pos: int, index: Any, cid: Any) -> None:
        """Chunk ``pos`` is being appended (with ``index`` and id ``cid``)."""
        if index is None:
            return
        self.first.setdefault(index, pos)
        if cid in (None, ""):
            self.empty.setdefault(index, deque()).append(pos)
        elif self._get(index, cid) is None:
            self._set(index, cid, pos)

    def named(self, pos: int, index: Any, cid: Any) -> None:
        """Chunk ``pos``'s empty id was set to ``cid`` by a merge."""
        was = self._get(index, cid)
        self._set(index, cid, pos if was is None else min(was, pos))

    def find(self, held: list[_Held], index: Any, cid: Any) -> int | None:
        """The first held chunk with ``index`` whose id does not conflict with ``cid``."""
        first = self.first.get(index)
        if first is None or cid in (None, ""):
            return first
        empty = self.empty.get(index)
        while empty and held[empty[0]].id not in (None, ""):
            empty.popleft()
        found = [p for p in (empty[0] if empty else None, self._get(index, cid)) if p is not None]
        return min(found) if found else None

    def _get(self, index: Any, cid: Any) -> int | None:
        """``by_id[(index, cid)]`` (None when absent)."""
        at = self.by_id.get(cid)
        if at is None or isinstance(at, dict):
            return None if at is None else at.get(index)
        there = self.held[at].index
        return at if there is index or there == index else None

    def _set(self, index: Any, cid: Any, pos: int) -> None:
        """``by_id[(index, cid)] = pos``."""
        at = self.by_id.get(cid)
        if at is None:
            self.by_id[cid] = pos
        elif isinstance(at, dict):
            at[index] = pos
        else:
            there = self.held[at].index
            same = there is index or there == index
            self.by_id[cid] = pos if same else {there: at, index: pos}


class _Text:
    """A string LangChain grows with ``+`` (a call's args, the message's content), held as its
    pieces: ``+`` copies the whole string on every chunk (quadratic in its size)."""

    __slots__ = ("parts",)

    def __init__(self, *parts: str) -> None:
        self.parts = list(parts)

    def add(self, more: str) -> _Text:
        self.parts.append(more)
        return self

    def text(self) -> str:
        return "".join(self.parts)


def _str(value: Any) -> Any:
    """The value as LangChain holds it (a :class:`_Text` joined)."""
    return value.text() if isinstance(value, _Text) else value


def _parsed(args: str | None) -> Any:
    """``parse_partial_json(args) if args else {}``; None where LangChain's parse raises."""
    if not args:
        return {}
    try:
        return parse_partial_json(args)
    except Exception:  # LangChain catches every exception here
        return None


class LangChainReplica(Replica):
    """langchain-openai's ChatOpenAI stream merged with ``+`` (see the module docstring)."""

    name: ClassVar[str] = "langchain"
    library: ClassVar[str] = "langchain-openai"
    version: ClassVar[str] = "1.7.4"
    follows: ClassVar[str] = (
        "langchain_openai/chat_models/base.py; langchain_core/messages/ai.py, "
        "utils/_merge.py, utils/json.py (langchain-core 1.8.3)"
    )
    dialects: ClassVar[frozenset[str]] = frozenset({OPENAI_CHAT})
    plain: ClassVar[frozenset[str]] = frozenset({OPENAI_CHAT})

    def plain_calls(
        self, calls: Sequence[HandedCall], tools: frozenset[str] | None
    ) -> Sequence[HandedCall] | None:
        """Each call with its arguments parsed and written again as LangChain hands them
        over (compact JSON, as ``_Run.handed`` writes them), None should one not
        parse to an object."""
        out = []
        for call in calls:
            text = rewritten(call.arguments, js=False)  # the same, at C speed, where it can
            if text is None:
                args = _parsed(call.arguments)
                if not isinstance(args, dict):
                    return None
                text = json.dumps(args, separators=(",", ":"), ensure_ascii=False)
            out.append(call if text == call.arguments else replace(call, arguments=text))
        return out

    summary: ClassVar[str] = (
        "AIMessageChunk + merge by index, then .tool_calls and .invalid_tool_calls"
    )

    def open(self, exchange: Exchange) -> ReplicaRun:
        try:
            return _Run(exchange)
        except ClientRaised as raised:
            raise langchain_error(raised) from None
