"""Guess a stream's dialect from its first events (or from the request URL).

Invariants:
- ``sniff`` only decides on positive evidence and looks at no more than ``SNIFF_LIMIT`` EVENT
  events; comments, wire errors, ``[DONE]``, undecodable data and ambiguous objects
  (``{"error": …}``, ``{"type": "ping"}``) never decide anything.
- ``AutoDialect`` buffers events until a decision (or ``SNIFF_LIMIT`` EVENT events, or the end
  of the stream, after which it falls back to ``openai-chat`` and sets ``fallback``), then
  replays every buffered event, in order, into the chosen provider's dialect. Its output is
  therefore exactly that dialect's output, only delayed; ``provider`` is set before any delta
  is appended.
- The evidence is the built-in providers' (their event types and object keys); a provider
  registered from outside is never sniffed, only chosen by name.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlsplit

from orjson import JSONDecodeError, loads

from inspector.core.base.model import AnyDelta, EventKind, SSEEvent
from inspector.core.base.provider import Dialect, Provider, Providers

SNIFF_LIMIT = 16
"""How many EVENT events ``sniff`` and ``AutoDialect`` look at before giving up."""

FALLBACK = "openai-chat"
"""The provider assumed when sniffing cannot decide."""


def _by_type(t: object) -> str | None:
    if type(t) is not str:
        return None
    if t.startswith(("message_", "content_block_")):
        return "anthropic"
    if t.startswith("response."):
        return "openai-responses"
    return None


def sniff_event(ev: SSEEvent) -> str | None:
    """The dialect one event proves, or None."""
    if ev.kind != EventKind.EVENT:
        return None
    found = _by_type(ev.event)
    if found is not None:
        return found
    try:
        obj = loads(ev.data)
    except JSONDecodeError:
        return None
    if type(obj) is not dict:
        return None
    found = _by_type(obj.get("type"))
    if found is not None:
        return found
    if "candidates" in obj or "usageMetadata" in obj:
        return "gemini"
    if "choices" in obj or obj.get("object") == "chat.completion.chunk":
        return "openai-chat"
    return None


def sniff(events: Sequence[SSEEvent]) -> str | None:
    """The dialect of a stream from its first ``SNIFF_LIMIT`` EVENT events, or None."""
    seen = 0
    for ev in events:
        if ev.kind != EventKind.EVENT:
            continue
        found = sniff_event(ev)
        if found is not None:
            return found
        seen += 1
        if seen >= SNIFF_LIMIT:
            break
    return None


def sniff_url(url: str) -> str | None:
    """The dialect a request URL implies, from its path, or None.

    ``…/chat/completions`` -> openai-chat, ``…/responses`` (and ``…/responses/resp_…``) ->
    openai-responses, ``…/messages`` and Vertex ``:streamRawPredict`` -> anthropic,
    ``:streamGenerateContent`` and ``:generateContent`` -> gemini.
    """
    path = urlsplit(url).path.rstrip("/")
    if path.endswith("/chat/completions"):
        return "openai-chat"
    if path.endswith("/responses"):
        return "openai-responses"
    head, _, last = path.rpartition("/")
    if head.endswith("/responses") and last.startswith("resp_"):
        return "openai-responses"
    if path.endswith("/messages") or path.endswith(":streamRawPredict"):
        return "anthropic"
    if path.endswith((":streamGenerateContent", ":generateContent")):
        return "gemini"
    return None


class AutoDialect:
    """A dialect that sniffs the stream, then delegates to the chosen provider's dialect."""

    def __init__(self, providers: Providers, hint: str | None = None) -> None:
        self.provider: Provider | None = None
        """The provider in force, None while still sniffing."""
        self.fallback = False
        """True when sniffing could not decide and ``openai-chat`` was assumed."""
        self._providers = providers
        self._inner: Dialect | None = None
        self._buffer: list[SSEEvent] = []
        self._seen = 0
        if hint is not None:
            self._choose(hint)

    @property
    def chosen(self) -> str | None:
        """The name of the provider in force, None while still sniffing."""
        return self.provider.name if self.provider is not None else None

    @property
    def direct(self) -> Dialect:
        """The chosen provider's dialect once decided (feeding it skips this wrapper)."""
        return self._inner if self._inner is not None else self

    def _choose(self, name: str) -> Dialect:
        self.provider = self._providers.get(name)
        self._inner = inner = self.provider.dialect()
        return inner

    def _replay(self, inner: Dialect, out: list[AnyDelta]) -> None:
        feed = inner.feed
        for ev in self._buffer:
            feed(ev, out)
        self._buffer.clear()

    def feed(self, ev: SSEEvent, out: list[AnyDelta]) -> None:
        """Buffer until the dialect is known, then pass through."""
        inner = self._inner
        if inner is not None:
            inner.feed(ev, out)
            return
        self._buffer.append(ev)
        if ev.kind != EventKind.EVENT:
            return
        self._seen += 1
        found = sniff_event(ev)
        if found is None and self._seen >= SNIFF_LIMIT:
            found = FALLBACK
            self.fallback = True
        if found is not None:
            self._replay(self._choose(found), out)

    def finish(self, out: list[AnyDelta]) -> None:
        """End of stream: decide now if still undecided, replay, and finish the inner dialect."""
        inner = self._inner
        if inner is None:
            self.fallback = True
            inner = self._choose(FALLBACK)
            self._replay(inner, out)
        inner.finish(out)
