"""The sniffer: which registered provider a stream (or a request URL) is, asked of each one.

No provider's evidence is here: each provider says how sure it is
(:meth:`~inspector.core.base.provider.Provider.recognises`), and :func:`recognise` applies
one rule: the one provider that proves it, else the only one that finds it likely, else none
("unknown"). Several that prove, or several likely ones and none that proves, decide nothing.

Invariants:
- Decisions are made on positive evidence, at the first event that makes the rule name a
  provider, within ``SNIFF_LIMIT`` EVENT events; comments, wire errors, ``[DONE]``,
  undecodable data and ambiguous objects (``{"error": …}``, ``{"type": "ping"}``) never
  decide anything. A dialect read from the request URL counts as proved.
- ``AutoDialect`` buffers events until a decision (or ``SNIFF_LIMIT`` EVENT events, or the end
  of the stream, after which it falls back to ``openai-chat`` and sets ``fallback``: a stream
  no provider recognises is refused as "unknown dialect" before it is judged, by
  :mod:`inspector.core.reports.gate`, so that fallback only gives a forced or partial read a
  provider), then
  replays every buffered event, in order, into the chosen provider's dialect. Its output is
  therefore exactly that dialect's output, only delayed; ``provider`` is set before any delta
  is appended.
- Every provider of the lookup it is handed is asked, a registered one as much as a built-in
  one; the order of registration decides nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from weakref import WeakMethod

from inspector.core.base.model import AnyDelta, EventKind, SSEEvent
from inspector.core.base.provider import LIKELY, NO, PROVES, Dialect, Head, Provider, Providers
from inspector.core.providers.framesniff import SniffingFraming
from inspector.core.providers.openai_chat.provider import NAME as FALLBACK

SNIFF_LIMIT = 16
"""How many EVENT events ``sniff`` and ``AutoDialect`` look at before giving up."""

__all__ = ["FALLBACK", "SNIFF_LIMIT", "AutoDialect", "recognise", "recognised", "sniff_events"]


def recognise(
    providers: Providers, head: Head, content_type: str | None = None, url: str | None = None
) -> Provider | None:
    """The provider ``head`` (and ``content_type``, ``url``) is, by the rule (see the module
    docstring), or None: unknown."""
    proving: list[Provider] = []
    likely: list[Provider] = []
    for name in providers.names():
        provider = providers.get(name)
        answer = provider.recognises(head, content_type, url)
        if answer == PROVES:
            proving.append(provider)
        elif answer == LIKELY:
            likely.append(provider)
    if proving:
        return proving[0] if len(proving) == 1 else None
    return likely[0] if len(likely) == 1 else None


def recognised(providers: Providers, head: Head) -> bool:
    """Some provider finds ``head`` at least likely its own (a stream of some dialect)."""
    return any(providers.get(n).recognises(head, None, None) != NO for n in providers.names())


def sniff_events(providers: Providers, events: Sequence[SSEEvent]) -> Provider | None:
    """The provider of a stream from its first ``SNIFF_LIMIT`` EVENT events, or None."""
    head: list[SSEEvent] = []
    looked = Head(head)
    seen = 0
    for ev in events:
        head.append(ev)
        if ev.kind != EventKind.EVENT:
            continue
        found = recognise(providers, looked)
        if found is not None:
            return found
        seen += 1
        if seen >= SNIFF_LIMIT:
            break
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
        self._head: Head | None = Head(self._buffer)
        self._seen = 0
        self.framing = SniffingFraming(providers, WeakMethod(self._chose), recognise)
        """The body's framing: picked from its first bytes (:mod:`.framesniff`)."""
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
        self._head = None  # what the providers decoded of it goes with it
        return inner

    def _chose(self, provider: Provider) -> None:
        """The framing picked ``provider`` from the body's first bytes, before any event."""
        if self._inner is None:
            self._choose(provider.name)

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
        if ev.kind != EventKind.EVENT or self._head is None:
            return
        self._seen += 1
        provider = recognise(self._providers, self._head)
        found = provider.name if provider is not None else None
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
