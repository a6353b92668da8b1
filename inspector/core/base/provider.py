"""What the pipeline knows of a provider: one explicit protocol, and nothing provider-specific.

A :class:`Provider` is everything the inspector knows about one wire API (OpenAI Chat,
Anthropic Messages …): how its body is framed into events (:class:`Framing`, SSE by default)
and its events decode into deltas, how its streams and request URLs are recognised
(:meth:`Provider.recognises`), when its calls close, which quirk checks apply to it, how a
request and the next round's continuation look, how its tool definitions read
(:meth:`Provider.tool_shape`), its error body and its key header. Each one is implemented in
one package of :mod:`inspector.core.providers`, which sits above the pipeline stages; a stage
never imports that package, it is handed a :class:`Providers` lookup (or one
:class:`Dialect`) by the layer above.

Invariants:
- Providers are stateless and shared; the per-stream state lives in the :class:`Dialect` that
  :meth:`Provider.dialect` makes fresh for each response body.
- A dialect's ``provider`` is known before it appends its first delta and after ``finish``
  (an ``auto`` dialect sniffs first, then names the provider it chose); until then it is None.
- Only the registry maps a name to a provider; stages ask the provider, never compare names.
- Recognition is evidence, never a guess: a provider answers :data:`PROVES` only for what
  could be no other wire's (an event type of its own, its request URL), :data:`LIKELY` for its
  shape (keys every imitation of it shares), :data:`NO` otherwise; whoever asks applies one
  rule (the one that proves, else the only likely one, else none).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal, Protocol

from inspector.core.base.model import AnyDelta, SSEEvent

Recognition = Literal["proves", "likely", "no"]
"""How sure a provider is that a stream (or a tool definition) is in its wire format."""
PROVES: Final[Recognition] = "proves"
"""Evidence no other wire has: an event type of its own, its request URL."""
LIKELY: Final[Recognition] = "likely"
"""Its shape, which imitations share (OpenAI-compatible chunks, a bare declaration)."""
NO: Final[Recognition] = "no"


class Head:
    """The start of a response body as recognition sees it: its first wire events, as the
    default framing cut them (``events``; the caller may grow the list it handed in and ask
    again), and its first bytes as received when the caller has them (``data``, else
    ``b""``: a binary framing is recognised from those). ``memo`` is the providers' scratch
    space over it (what they decoded once), empty until one writes to it."""

    __slots__ = ("data", "events", "memo")

    def __init__(self, events: Sequence[SSEEvent] = (), data: bytes = b"") -> None:
        self.events = events
        self.data = data
        self.memo: dict[Any, Any] = {}


class FrameDecoder(Protocol):
    """One body's framing at work: bytes in any chunking -> wire events (:class:`SSEEvent`,
    with byte ranges), the same events whatever the chunking. Fed and closed by the events
    stage (:class:`~inspector.core.calls.stream.StreamState`); the event log and the raw pane
    hold what it emits."""

    @property
    def offset(self) -> int:
        """Bytes fed so far."""

    @property
    def fresh(self) -> bool:
        """Nothing decided yet about the body's first bytes (fed alone while it holds)."""

    @property
    def marked(self) -> int:
        """How many events emitted so far are not plain (a plain event: an EVENT of type
        "message" with no id and no retry)."""

    @property
    def plain(self) -> Any:
        """The columns of plain events the last call cut at once
        (:class:`~inspector.core.events.plain.PlainRun`), or None."""

    def feed(self, data: bytes, t: float = 0.0) -> list[SSEEvent]:
        """Consume one chunk arriving at ``t``; return the events it completed."""

    def feed_many(
        self, chunks: Sequence[tuple[float, bytes]], bounds: list[int] | None = None
    ) -> list[SSEEvent]:
        """Consume several ``(t, data)`` chunks: the events feeding them one by one gives."""

    def feed_plain(self, chunks: Sequence[tuple[float, bytes]], bounds: list[int]) -> Any:
        """Take ``chunks`` at once when each is one plain event (their columns, a
        ``PlainRun``); None, taking nothing, otherwise (always, for a framing without such
        runs)."""

    def close(self, t: float | None = None) -> list[SSEEvent]:
        """End of body: the events still pending."""


class Framing(Protocol):
    """How a provider's body bytes become wire events: server-sent events by default
    (:data:`inspector.core.events.sse.SSE`); AWS binary event-stream frames for Bedrock."""

    @property
    def name(self) -> str:
        """``sse`` …"""

    @property
    def reads_back(self) -> bool:
        """A plain event's data can be read back from the chunk bytes it was cut from (SSE's
        ``data:`` lines): the event log then keeps no text of its own for it."""

    def decoder(self) -> FrameDecoder:
        """A fresh decoder for one body."""


@dataclass(frozen=True)
class ToolDefinition:
    """One function tool as a tool-definition shape declares it (values as found: the
    registry that takes it checks them)."""

    label: str
    """Where it sits in the definitions (``tools[2]``, ``tools[0].functionDeclarations[1]``)."""
    name: Any
    description: Any
    schema: Any = field(default=None, hash=False)
    """Its parameters as JSON Schema (a provider's own form already converted); None when it
    declares none."""
    format: Any = field(default=None, hash=False)
    """A custom (free-form input) tool's declared input format as found (``{"type": "text"}``,
    ``{"type": "grammar", "syntax": "lark" | "regex", "definition"}``); None for a function
    tool, whose input is JSON."""


@dataclass(frozen=True)
class ToolShape:
    """What one provider reads in one entry of a tools list: how sure it is that the entry is
    in its shape, and what it found there, in order: a :class:`ToolDefinition` per function
    tool, a one-line warning (a str) per part it cannot read; nothing for a built-in tool."""

    recognition: Recognition
    found: tuple[ToolDefinition | str, ...] = ()


@dataclass(frozen=True)
class Closing:
    """When a provider's calls count as closed (besides an explicit CLOSE delta)."""

    on_finish: bool
    """A finish reason closes every open call."""
    on_next_index: bool
    """A new call at another wire index closes the open ones (calls stream one at a time)."""


IN_ORDER: Final = Closing(on_finish=True, on_next_index=True)
"""Calls stream one after another by wire index; the next index or a finish closes them."""
ON_FINISH: Final = Closing(on_finish=True, on_next_index=False)
"""Calls arrive whole (each followed by a CLOSE); a finish closes whatever is still open."""
EXPLICIT: Final = Closing(on_finish=False, on_next_index=False)
"""The provider closes each call itself (a block stop, an item done); a call open at the end
marker was cut off."""


@dataclass(frozen=True)
class WireRequest:
    """A provider's streaming request, before the caller adds its own headers and options."""

    url: str
    body: dict[str, Any] = field(hash=False)
    headers: Mapping[str, str] = field(default_factory=dict, hash=False)
    """Headers the provider needs besides content-type and accept (never the key)."""


class Dialect(Protocol):
    """One response body's decoder: wire events in, normalized deltas out, in wire order."""

    @property
    def provider(self) -> Provider | None:
        """The provider whose stream this is (None while an ``auto`` dialect still sniffs)."""

    @property
    def fallback(self) -> bool:
        """True when the provider was assumed because sniffing could not recognise it."""

    @property
    def direct(self) -> Dialect:
        """The dialect doing the work right now: itself, or the chosen provider's once an
        ``auto`` dialect has decided (feeding that one skips the sniffing wrapper)."""

    def feed(self, ev: SSEEvent, out: list[AnyDelta]) -> None:
        """Append the deltas for one wire event, in wire order."""

    def finish(self, out: list[AnyDelta]) -> None:
        """End of stream (may append nothing; an ``auto`` dialect decides now at the latest)."""


class TurnCall(Protocol):
    """One call of an assistant turn as a continuation echoes it."""

    @property
    def id(self) -> str:
        """The effective id (as received, or repaired)."""

    @property
    def name(self) -> str: ...

    @property
    def arguments(self) -> str:
        """The assembled argument text, as received."""

    @property
    def input(self) -> dict[str, Any] | None:
        """The arguments parsed as a JSON object; None when they are not one."""

    @property
    def wire_id(self) -> str | None:
        """The id the provider sent (None when it sent none)."""

    @property
    def extra(self) -> Mapping[str, Any]:
        """Provider extras to echo (Gemini's ``thoughtSignature``)."""


class Turn(Protocol):
    """What the assistant said in a round: text, reasoning and its calls in lane order."""

    @property
    def text(self) -> str: ...

    @property
    def reasoning(self) -> str: ...

    @property
    def calls(self) -> Sequence[TurnCall]: ...


class TurnResult(Protocol):
    """One call's result, as the model is sent it."""

    @property
    def call_id(self) -> str: ...

    @property
    def text(self) -> str: ...

    @property
    def is_error(self) -> bool: ...


class Provider(Protocol):
    """Everything the inspector knows about one provider's wire API."""

    @property
    def name(self) -> str:
        """The registry name (``openai-chat`` …), as in settings, profiles and captures."""

    @property
    def title(self) -> str:
        """The API's name as people write it (``OpenAI Chat Completions``), for prose: a
        report says "an OpenAI Chat Completions stream", never "a openai-chat stream"."""

    @property
    def closing(self) -> Closing:
        """When its calls close."""

    @property
    def checks(self) -> frozenset[str]:
        """The provider-dependent quirk checks that apply to its streams (codes from
        :data:`inspector.core.quirks.registry.PROVIDER_CHECKS`); the others always apply."""

    @property
    def end_marker(self) -> str | None:
        """What ends its stream, named in ``missing_done``; None: it has none to miss."""

    @property
    def key_header(self) -> str:
        """The header the key goes in (``authorization`` means ``Bearer {key}``)."""

    @property
    def version_segment(self) -> str:
        """The API version path segment a base URL ends with (``/v1``); "" for an API whose
        paths have none (Bedrock's ``/model/{id}/converse-stream``)."""

    @property
    def framing(self) -> Framing:
        """How its body's bytes become events (:data:`inspector.core.events.sse.SSE` unless
        it says otherwise)."""

    def recognises(self, head: Head, content_type: str | None, url: str | None) -> Recognition:
        """Is a body that starts with ``head`` (served as ``content_type``, for a request to
        ``url``; None when unknown) in this provider's wire format? A URL of its own
        :data:`PROVES` it whatever the head holds; see :data:`Recognition`."""

    def tool_shape(self, entry: dict[str, Any], label: str, listed_as: str) -> ToolShape | None:
        """What its tool-definition shape reads in ``entry`` (at ``label``, from the request
        body's list ``listed_as``: ``tools``, ``functions``, or "" for a bare list), or None
        when the entry is not in its shape."""

    def dialect(self) -> Dialect:
        """A fresh dialect for one response body."""

    def is_tool_finish(self, reason: Any, calls: int) -> bool:
        """Did a turn with ``calls`` assembled calls that ended with ``reason`` ask for tool
        results? (False without calls.)"""

    def error_message(self, body: Any) -> str:
        """A one-line message for an error body in this provider's shape (an HTTP error
        response's JSON, or an error event inside the stream)."""

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        """The JSON error body this provider answers HTTP ``status`` with, saying ``message``
        (what a gateway in front of it sends when it cannot get an answer: a recording proxy's
        502); :meth:`error_message` reads ``message`` back from it."""

    def tools(self, neutral: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Tool definitions in the neutral (OpenAI chat) shape, in this provider's shape."""

    def request(
        self, base_url: str, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> WireRequest:
        """The streaming request for ``messages`` (OpenAI chat form, system messages
        included) offering ``tools`` (neutral shape) to ``model`` at ``base_url``."""

    def append_turn(self, body: dict[str, Any], turn: Turn, results: Sequence[TurnResult]) -> None:
        """Append ``turn`` and its ``results`` (one per call, in call order) to ``body``, the
        next round's request (a copy the caller owns), in this provider's shape."""


class Providers(Protocol):
    """A name -> provider lookup (the registry implements it; a test may pass its own)."""

    def get(self, name: str) -> Provider:
        """The provider called ``name``; ValueError listing the known names."""

    def names(self) -> tuple[str, ...]:
        """Every provider's name, in registration order."""

    def dialect(self, name: str) -> Dialect:
        """A fresh dialect for ``name``: a provider's, or ``auto``'s, which sniffs among them."""
