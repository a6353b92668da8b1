"""What the pipeline knows of a provider: one explicit protocol, and nothing provider-specific.

A :class:`Provider` is everything the inspector knows about one wire API (OpenAI Chat,
Anthropic Messages …): how its stream decodes into deltas, when its calls close, which quirk
checks apply to it, how a request and the next round's continuation look, its error body and
its key header. Each one is implemented in one module of :mod:`inspector.core.providers`,
which sits above the pipeline stages; a stage never imports that package, it is handed a
:class:`Providers` lookup (or one :class:`Dialect`) by the layer above.

Invariants:
- Providers are stateless and shared; the per-stream state lives in the :class:`Dialect` that
  :meth:`Provider.dialect` makes fresh for each response body.
- A dialect's ``provider`` is known before it appends its first delta and after ``finish``
  (an ``auto`` dialect sniffs first, then names the provider it chose); until then it is None.
- Only the registry maps a name to a provider; stages ask the provider, never compare names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from inspector.core.base.model import AnyDelta, SSEEvent


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
        """The API version path segment a base URL ends with (``/v1``)."""

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
