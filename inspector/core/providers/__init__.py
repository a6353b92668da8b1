"""Providers: one package per wire API, and the registry, the only place a name maps to one.

Each dialect's package (:mod:`.openai_chat`, :mod:`.openai_responses`, :mod:`.anthropic`,
:mod:`.gemini`) holds everything about it and implements
:class:`~inspector.core.base.provider.Provider` whole: its dialect (wire events -> deltas),
closing rule, quirk checks, requests, continuations, error bodies and key header. What
dialects share is in :mod:`.wire` (event handling, fields, errors, request pieces) and
:mod:`.shapememo` (the shape memo of the two OpenAI dialects). :mod:`.sniff` holds the
``auto`` dialect, which recognises a built-in provider from the first events. The pipeline
stages below never import this package: the layers above hand them :data:`REGISTRY` (or
another :class:`~inspector.core.base.provider.Providers`).

A new dialect is a package here plus one line in :data:`REGISTRY`.

Invariants (every dialect):
- Tool-call identity fields are kept exactly as received: ``OMITTED`` when the key is absent,
  otherwise the value itself (``None``, ``""``, ``"null"`` …). No dialect normalises them; the
  accumulator applies the user's policy and the UI shows them verbatim.
- Every delta carries the ``seq`` of the wire event it came from, and deltas are appended in
  wire order.
- Comments, wire decode errors and undecodable data map the same everywhere
  (:mod:`.wire.events`); provider errors after HTTP 200 become ERROR with a one-line message
  and the object in ``raw``; recognised-but-unmapped objects become UNKNOWN, kept verbatim.
- Dialects are pure (no I/O) and hold only the little state their protocol needs (the
  Responses item-id -> output_index map, Gemini's call whose ``partialArgs`` are streaming,
  the auto dialect's sniff buffer).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Final

from inspector.core.base.model import SSEEvent
from inspector.core.base.provider import Dialect, Head, Provider, Providers
from inspector.core.base.settings import ABSENT, AUTO, EmptyIdPolicy
from inspector.core.calls.stream import StreamState
from inspector.core.providers import (
    anthropic,
    bedrock_converse,
    cohere_v2,
    gemini,
    gemini_interactions,
    openai_chat,
    openai_completions,
    openai_responses,
)
from inspector.core.providers.sniff import AutoDialect, recognise, sniff_events


class Registry:
    """Providers by name, in registration order (a :class:`Providers` lookup)."""

    def __init__(self, providers: Iterable[Provider] = ()) -> None:
        self._by_name: dict[str, Provider] = {}
        for provider in providers:
            self.register(provider)

    def register(self, provider: Provider) -> None:
        """Add ``provider`` under its name (which must be new, and not ``auto``)."""
        if provider.name == AUTO or provider.name in self._by_name:
            raise ValueError(f"a provider called {provider.name!r} cannot be registered again")
        self._by_name[provider.name] = provider

    def get(self, name: str) -> Provider:
        """The provider called ``name``; ValueError listing the known names."""
        try:
            return self._by_name[name]
        except KeyError:
            known = ", ".join([AUTO, *self._by_name])
            raise ValueError(f"unknown dialect {name!r} (known: {known})") from None

    def names(self) -> tuple[str, ...]:
        """Every provider's name, in registration order."""
        return tuple(self._by_name)

    def dialect(self, name: str) -> Dialect:
        """A fresh dialect for ``name``: a provider's, or ``auto``'s, which sniffs."""
        if name == AUTO:
            return AutoDialect(self)
        return self.get(name).dialect()

    def __iter__(self) -> Iterator[Provider]:
        return iter(list(self._by_name.values()))

    def __contains__(self, name: object) -> bool:
        return name in self._by_name


REGISTRY = Registry(
    [
        openai_chat.PROVIDER,
        anthropic.PROVIDER,
        openai_responses.PROVIDER,
        gemini.PROVIDER,
        bedrock_converse.PROVIDER,
        cohere_v2.PROVIDER,
        gemini_interactions.PROVIDER,
        openai_completions.PROVIDER,
    ]
)
"""The built-in providers. A caller that needs another builds its own :class:`Registry`."""

# The built-in providers' names, for what names a dialect as data (a client replica's
# ``dialects``, a profile, a demo scenario's expectations): never to compare or branch on
# outside this package (tests/test_provider_names.py fails on that); ask the provider.
OPENAI_CHAT: Final = openai_chat.PROVIDER.name
OPENAI_RESPONSES: Final = openai_responses.PROVIDER.name
ANTHROPIC: Final = anthropic.PROVIDER.name
GEMINI: Final = gemini.PROVIDER.name
BEDROCK_CONVERSE: Final = bedrock_converse.PROVIDER.name
COHERE_V2: Final = cohere_v2.PROVIDER.name
GEMINI_INTERACTIONS: Final = gemini_interactions.PROVIDER.name
OPENAI_COMPLETIONS: Final = openai_completions.PROVIDER.name


def sniff(events: Sequence[SSEEvent], providers: Providers = REGISTRY) -> str | None:
    """The name of the provider a stream's first events prove (or make the only likely one),
    or None (:func:`~.sniff.sniff_events`)."""
    found = sniff_events(providers, events)
    return found.name if found is not None else None


def sniff_url(url: str, providers: Providers = REGISTRY) -> str | None:
    """The name of the provider a request URL proves, from its path, or None:
    ``…/chat/completions``, ``…/responses`` (and ``…/responses/resp_…``), ``…/messages`` and
    Vertex ``:streamRawPredict``, ``:streamGenerateContent`` and ``:generateContent`` for the
    built-in ones."""
    found = recognise(providers, Head(), url=url)
    return found.name if found is not None else None


def analyze_bytes(
    body: bytes,
    dialect: str = AUTO,
    empty_id: EmptyIdPolicy = ABSENT,
    providers: Providers = REGISTRY,
) -> StreamState:
    """Feed a whole body at once and end it (for tests and one-shot analysis)."""
    state = StreamState(providers.dialect(dialect), empty_id)
    state.feed(body)
    state.end()
    return state


__all__ = [
    "ANTHROPIC",
    "AUTO",
    "BEDROCK_CONVERSE",
    "COHERE_V2",
    "GEMINI",
    "GEMINI_INTERACTIONS",
    "OPENAI_CHAT",
    "OPENAI_COMPLETIONS",
    "OPENAI_RESPONSES",
    "REGISTRY",
    "AutoDialect",
    "Registry",
    "analyze_bytes",
    "sniff",
    "sniff_url",
]
