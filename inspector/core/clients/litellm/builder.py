"""LiteLLM: ``litellm.stream_chunk_builder`` over the chunks of
``litellm.acompletion(model="openai/…", api_base=…, stream=True)``.

Follows litellm 1.110.2: ``litellm_core_utils/streaming_handler.py`` (``CustomStreamWrapper``:
``chunk_creator``, ``return_processed_chunk_logic``, ``__anext__``,
``_handle_stream_fallback_error``), ``litellm_core_utils/streaming_chunk_builder_utils.py``
(``stream_chunk_builder``, ``ChunkProcessor.get_combined_tool_content``), ``types/utils.py``
(``Delta``, ``ChatCompletionDeltaToolCall``, ``Function``) and
``litellm_core_utils/exception_mapping_utils.py`` (``exception_type``), over the openai SDK's
``AsyncStream`` (:mod:`inspector.core.clients.openai_sdk.sse`), read by LiteLLM's openai provider.

What it does, modelled here:
- Each chunk's ``choices[0].delta`` is rebuilt as LiteLLM's ``Delta``; a tool call with a
  non-string id, name or type, no ``function`` object, or arguments neither a string, an
  object (``json.dumps``-ed) nor null fails pydantic and the whole delta is dropped, silently.
  A missing index becomes the count of index-less entries before it in that delta.
- ``stream_chunk_builder`` keys calls by (choice index, index) and sorts them; the last non-empty
  id, type and name win (so parallel calls on index 0 merge into one call holding the last id and
  name, and an id that changes every delta ends as the last one); argument fragments are
  concatenated; a call with no id or no name is dropped; empty arguments are ``{}``. The agent reads
  ``choices[0]``: the lowest choice index seen (LiteLLM's own final chunk counts as choice 0).
- A stream that ends (``[DONE]`` or the body's end) without a finish reason in any chunk
  raises; so does ``finish_reason`` ``abort`` (``InternalServerError``) or ``error``.
- Errors go through LiteLLM's ``exception_type``: the class follows the status and the
  message's wording (``RateLimitError`` for "rate limit", ``ContextWindowExceededError``,
  ``Timeout`` …), the message reads ``litellm.<Class>: <Class>: OpenAIException - <message>``.
  Raised mid-stream, anything but a 4xx other than 429 is wrapped in
  ``MidStreamFallbackError`` (``… Original exception: <Class>: <message>``).

Not modelled: ``function_call`` deltas, the chunk's repr in the ``finish_reason: error``
message, a stream error object whose ``message`` is no string, usage details of odd types.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, ClassVar, Final, NoReturn

from inspector.core.base.model import SSEEvent
from inspector.core.clients.base import (
    ClientRaised,
    Exchange,
    HandedCall,
    Partial,
    Replica,
    ReplicaRun,
)
from inspector.core.clients.litellm.delta import (
    Frag,
    Invalid,
    KeyCall,
    attr,
    check_usage,
    delta_empty,
    fragments,
)
from inspector.core.clients.litellm.errors import (
    BUILDER,
    NO_FINISH,
    error,
    fallback,
    request_error,
    stream_error,
)
from inspector.core.clients.openai_sdk.sse import SdkChunkRun
from inspector.core.providers import OPENAI_CHAT

_REPEATS: Final = 100
"""``litellm.REPEATED_STREAMING_CHUNK_LIMIT``."""

# -- one chunk, as CustomStreamWrapper returns it --------------------------------------------


def _choice_index(raw: Any) -> int:
    """``_stream_choice_index``: an integer index, else 0."""
    return raw if isinstance(raw, int) else 0


class _Run(SdkChunkRun):
    def __init__(self, exchange: Exchange) -> None:
        super().__init__(exchange)
        self.dispatched = False
        """A chunk reached LiteLLM's openai handler (``uses_openai_chat_stream``)."""
        self.finish_reason: Any = None
        """The last finish reason a chunk carried (``received_finish_reason``)."""
        self.sent_last = False
        """LiteLLM returned its last chunk already (a chunk after the finish reason)."""
        self.last_id: Any = None
        self.first_sent = False
        self.seen = False
        """A JSON object chunk was read before (LiteLLM then pre-reads choice 0's delta)."""
        self.id_decided = False
        self.fingerprint: Any = None
        """The last chunk's ``system_fingerprint`` (LiteLLM's own last chunk carries it)."""
        self.first_fingerprint: list[Any] | None = None
        """The first returned chunk's ``system_fingerprint`` (boxed: None is a value)."""
        self.keyed: dict[Any, dict[int, KeyCall]] = {}
        """``get_combined_tool_content`` of every fragment returned so far, by choice then
        index, worked out as they come (a key's call depends only on its own fragments)."""
        self.names: dict[str, str] = {}
        """Each name once (a tool's name comes again with every call it makes)."""
        self.unkeyed: list[int] = []
        """``_stream_choice_index`` of each fragment whose choice is no key (unhashable)."""
        self.frag_count = 0
        self.choices: set[int] = {0}
        """The choice indexes the agent's chunks carry (LiteLLM's last chunk is choice 0)."""
        self.broken = False
        """``stream_chunk_builder`` will raise (a choice, a content, an id or a system
        fingerprint it cannot read)."""
        self.said: list[Any] = [None, None]
        """The content of the last two chunks returned (LiteLLM stops a model that repeats)."""
        self.repeats = 0
        self.held: dict[int, Partial] = {}
        self.shown: dict[int, int] = {}
        """Index -> position in ``self.calls`` of the calls shown."""
        """Choice 0's calls by index, as they stand (``self.calls`` shows the handed ones)."""
        self.own: ClientRaised | None = None

    def feed(self, event: SSEEvent) -> None:
        try:  # (:meth:`_guard`, written out: once per event)
            SdkChunkRun.feed(self, event)
        except ClientRaised as raised:
            if raised is self.own:
                raise
            raise stream_error(raised.message) from None

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
            raise stream_error(raised.message) from None

    def _raise(self, raised: ClientRaised) -> NoReturn:
        self.own = raised
        raise raised

    def chunk(self, data: Any) -> None:
        if data is None or data == "None":
            return
        self.dispatched = True
        try:
            self._chunk(data)
        except ClientRaised as raised:
            if raised.type == "ValidationError":  # pydantic's, mapped as any other error
                self._raise(stream_error(raised.message))
            self._raise(raised)
        except (AttributeError, TypeError, KeyError, IndexError, ValueError) as exc:
            self._raise(stream_error(str(exc)))

    def _chunk(self, data: Any) -> None:
        choices = attr(data, "choices")
        if self.seen and choices:  # _prebuilt_plain_delta reads choice 0's delta first
            upstream = attr(choices[0], "delta")
            if upstream is not None:
                attr(upstream, "function_call")
        self.seen = True
        for choice in choices or ():
            if str(attr(choice, "finish_reason")) == "abort":
                aborted = "Upstream generation aborted (finish_reason=abort)"
                raise fallback(error("InternalServerError", aborted))
        delta = text = None
        if choices and len(choices) > 0:
            delta = attr(choices[0], "delta")
            text = attr(delta, "content") if delta is not None else None
            finish = attr(choices[0], "finish_reason")
            if finish:
                self.finish_reason = finish
                if finish == "error":
                    raise stream_error(
                        "openai raised a streaming error - finish_reason: error, no content "
                        "string given. Received Chunk=…"
                    )
        check_usage(data.get("usage"))
        self.fingerprint, self.last_id = data.get("system_fingerprint"), data.get("id")
        if not choices or len(choices) == 0:
            return  # a usage-only chunk
        if not self._non_empty(delta, text):
            if self.finish_reason is not None and not self.sent_last:  # returned as the last
                if delta_empty(delta, text):
                    hash(self.finish_reason)  # map_finish_reason looks it up
                    self.sent_last = True
                self._returned(data)
            return
        self._repetition()
        self.said = [self.said[1], text]
        self.first_sent = True
        self._returned(data)
        for choice in choices:
            if isinstance(choice, dict):
                self._choice(choice)

    def _returned(self, data: dict[str, Any]) -> None:
        """The first chunk returned decides the built response's id (its first truthy one)
        and system fingerprint; ``stream_chunk_builder`` refuses ones of another type."""
        if not self.id_decided:
            cid = data.get("id")
            self.id_decided = cid is None or bool(cid)
            self.broken |= bool(cid) and not isinstance(cid, str)
        if self.first_fingerprint is None:
            self.first_fingerprint = [self.fingerprint]

    def _repetition(self) -> None:
        """``raise_on_model_repetition``: the same content (over two characters) returned
        ``REPEATED_STREAMING_CHUNK_LIMIT`` (100) times in a row raises."""
        before, last = self.said
        if not isinstance(last, str) or len(last) <= 2:
            self.repeats = 1
            return
        self.repeats = self.repeats + 1 if last == before else 1
        if self.repeats >= _REPEATS:
            said = f"The model is repeating the same chunk = {last}."
            raise fallback(error("InternalServerError", said))

    def _non_empty(self, delta: Any, text: Any) -> bool:
        """``is_chunk_non_empty`` on choice 0 (its delta rebuilt as LiteLLM's ``Delta``)."""
        if isinstance(text, str) and text:
            return True
        if delta is None:
            return False
        calls, function_call = attr(delta, "tool_calls"), attr(delta, "function_call")
        if calls is None and function_call is None:
            reasoning = delta.get("reasoning_content", delta.get("reasoning"))
            return reasoning is not None or (not self.first_sent and delta.get("role") is not None)
        if isinstance(calls, list | tuple):
            try:
                calls = fragments(0, calls)
            except Invalid:
                return False
        return (
            function_call is not None
            or (calls is not None and len(calls) > 0)
            or not self.first_sent
        )

    def _choice(self, choice: dict[str, Any]) -> None:
        """One choice of a returned chunk, rebuilt as ``StreamingChoices``."""
        raw, delta = choice.get("index"), choice.get("delta")
        if delta is not None and not isinstance(delta, dict):
            self.broken = True  # no delta attribute at all: the builder cannot read it
            return
        calls, content = (delta or {}).get("tool_calls"), (delta or {}).get("content")
        try:
            frags = fragments(raw, calls) if isinstance(calls, list | tuple) else []
        except Invalid:  # StreamingChoices(): choice 0, an empty delta
            raw, frags, calls, content = 0, [], None, None
        if calls is not None and not isinstance(calls, list | tuple | str | dict):
            self.broken = True  # the builder iterates it
        if content is not None and not isinstance(content, str | list):
            self.broken = True  # the builder joins them (Mistral's lists are read as text)
        self.choices.add(_choice_index(raw))
        for frag in frags:
            self.frag_count += 1
            if type(frag.name) is str:
                frag.name = self.names.setdefault(frag.name, frag.name)
            if type(frag.index) is int:  # the inspector's equal strings: no second copy
                frag.id = self.same_id(frag.index, frag.id)
                frag.arguments = self.same_text(frag.index, frag.arguments)
            call = None
            try:
                call = self.keyed.setdefault(frag.choice, {}).setdefault(frag.index, KeyCall())
            except TypeError:
                self.unkeyed.append(_choice_index(frag.choice))
            tracked = _choice_index(frag.choice) == 0
            merged = self.held.get(frag.index)
            if type(merged) is KeyCall and not (tracked and not frag.custom and merged is call):
                self._split(frag.index, merged)
            if call is not None:
                call.take(frag)
            if tracked:
                self._track(frag, call)

    def _split(self, index: int, merged: KeyCall) -> None:
        """Choice 0's call at ``index`` no longer the builder's own object: a fragment is about
        to reach one and not the other (a custom one, another key's): a copy of it from now on
        (the driver reads the copy at the same position, equal)."""
        parts = merged.parts
        held = Partial(merged.id, merged.name, parts if isinstance(parts, str) else list(parts))
        held.rewritten = merged.rewritten
        self.held[index] = held
        pos = self.shown.get(index)
        if pos is not None:
            self.calls[pos] = held

    def _track(self, frag: Frag, call: KeyCall | None) -> None:
        """Choice 0's calls while the stream arrives (for where it diverges): a call shows
        once it has an id and a name, in index order (a newly shown call is appended, or, when
        it comes before a shown one, rebuilds them). A call's argument pieces are the
        builder's own list for its key while only that key's fragments reach it (``call``:
        where this fragment went), a copy from the first that does not."""
        if frag.custom:
            return
        held = self.held.get(frag.index)
        if held is None:
            if call is not None and call.starts(frag):
                held = call  # the builder's call is what the driver reads
                if len(call.parts) == 1:  # one piece: the piece itself, no list
                    call.parts = call.parts[0]
            else:
                held = Partial()
                if call is not None and frag.choice == 0:  # (its parts hold this one's only)
                    held.parts = call.parts  # appended to by the builder's call from now on
            self.held[frag.index] = held
        merged = held is call  # (taken already: its id or name shows as any change)
        before = (None, None) if merged and (frag.id or frag.name) else (held.id, held.name)
        held.id, held.name = frag.id or held.id, frag.name or held.name
        if call is None or held.parts is not call.parts:
            shared = self._shared(frag.index)
            if frag.arguments and held.parts is shared and isinstance(shared, list):
                held.parts = list(shared)  # another key's fragment: no longer the same
            if frag.arguments:
                held.add(frag.arguments)
        pos = self.shown.get(frag.index)
        if pos is not None:  # shown already: the order stands (an id or name is never unset)
            if frag.arguments or (held.id, held.name) != before:
                self.touched.add(pos)
            return
        if not (held.id and held.name):
            return
        if self.shown and frag.index > next(reversed(self.shown)):  # the last in index order
            pos = len(self.calls)  # after every call shown: appended (its index's int when
            self.shown[frag.index] = (
                frag.index if type(frag.index) is int and frag.index == pos else pos
            )
            self.calls.append(held)
            self.touched.add(len(self.calls) - 1)
            return
        order = sorted(k for k, c in self.held.items() if c.id and c.name)
        self.shown = {k: i for i, k in enumerate(order)}
        self.calls[:] = [self.held[k] for k in order]
        for partial in self.calls:
            partial.rewritten = self.frag_count
        self.touched.update(range(len(self.calls)))

    def _shared(self, index: int) -> list[str] | str | None:
        """The builder's argument list for (choice 0, ``index``), None when it has none."""
        by_index = self.keyed.get(0)
        call = by_index.get(index) if by_index is not None else None
        return call.parts if call is not None else None

    def handed(self) -> list[HandedCall]:
        if self.dispatched and self.finish_reason is None:
            self._raise(stream_error(NO_FINISH))
        if not self.sent_last:  # LiteLLM's own last chunk: the last id and finish reason
            self._returned({"id": self.last_id})
            self.broken |= isinstance(self.finish_reason, list | dict)  # the builder maps it
        fingerprint = (self.first_fingerprint or [self.fingerprint])[0]
        self.broken |= fingerprint is not None and not isinstance(fingerprint, str)
        chosen = min(self.choices) if len(self.choices) > 1 else None
        if any(chosen is None or at == chosen for at in self.unkeyed):
            self.broken = True
        ordered = self._ordered(chosen)
        if self.broken or ordered is None:
            self._raise(error("APIError", BUILDER))
        handed = (call.handed_over() for call in ordered)
        return [c for c in handed if c is not None]

    def _ordered(self, chosen: int | None) -> list[KeyCall] | None:
        """The calls of the chosen choice (every choice when None) sorted by their (choice,
        index) keys, None where the keys do not sort. One choice sorts by index alone (its
        keys' choices are the one same object)."""
        groups = [
            by_index
            for choice, by_index in self.keyed.items()
            if chosen is None or _choice_index(choice) == chosen
        ]
        if len(groups) == 1:
            return [groups[0][index] for index in sorted(groups[0])]
        calls = {
            (choice, index): call
            for choice, by_index in self.keyed.items()
            if chosen is None or _choice_index(choice) == chosen
            for index, call in by_index.items()
        }
        try:
            return [calls[k] for k in sorted(calls)]
        except TypeError:
            return None


class LiteLLMReplica(Replica):
    """LiteLLM's ``stream_chunk_builder`` over ``acompletion`` chunks (module docstring)."""

    name: ClassVar[str] = "litellm"
    library: ClassVar[str] = "litellm"
    version: ClassVar[str] = "1.110.2"
    follows: ClassVar[str] = (
        "litellm/litellm_core_utils/streaming_handler.py, streaming_chunk_builder_utils.py, "
        "exception_mapping_utils.py; litellm/types/utils.py"
    )
    dialects: ClassVar[frozenset[str]] = frozenset({OPENAI_CHAT})
    plain: ClassVar[frozenset[str]] = frozenset({OPENAI_CHAT})
    summary: ClassVar[str] = (
        "stream_chunk_builder: calls by index, the last id and name win, arguments joined"
    )

    def plain_calls(
        self, calls: Sequence[HandedCall], tools: frozenset[str] | None
    ) -> Sequence[HandedCall] | None:
        """The calls themselves, a call without arguments as ``{}`` (``handed_over``'s
        ``arguments or "{}"``)."""
        return [c if c.arguments else replace(c, arguments="{}") for c in calls]

    def open(self, exchange: Exchange) -> ReplicaRun:
        try:
            return _Run(exchange)
        except ClientRaised as raised:
            raise request_error(raised, exchange) from None
