"""Every client replica, in the order views and ``analyze`` list them.

Invariants:
- :data:`REPLICAS` is the one list; ``analyze --client NAME`` and the Clients view take names
  from it. A replica is listed as verified only when its goldens (``tests/clients/goldens``,
  written by ``make verify-clients`` from the real library) exist and pass: see
  :data:`VERIFIED`; every other replica shows ``(unverified)``.
- :data:`LITERAL_MATCHES` names a replica of :data:`REPLICAS`.
"""

from __future__ import annotations

from typing import Final

from inspector.core.clients.anthropic_sdk.replica import AnthropicSdk
from inspector.core.clients.base import Replica
from inspector.core.clients.google_genai.replica import GoogleGenai
from inspector.core.clients.handwritten.loops import ById, ByIndex
from inspector.core.clients.langchain.merge import LangChainReplica
from inspector.core.clients.litellm.builder import LiteLLMReplica
from inspector.core.clients.openai_python.replica import OpenAIPython
from inspector.core.clients.vercel_ai.replica import VercelAi

REPLICAS: Final[tuple[Replica, ...]] = (
    OpenAIPython(),
    LiteLLMReplica(),
    LangChainReplica(),
    VercelAi(),
    AnthropicSdk(),
    GoogleGenai(),
    ById(),
    ByIndex(),
)
"""openai-python, litellm, langchain, vercel-ai, anthropic-sdk, google-genai, by-id, by-index."""

VERIFIED: Final[frozenset[str]] = frozenset(
    {
        "openai-python",
        "litellm",
        "langchain",
        "by-id",
        "by-index",
        "vercel-ai",
        "anthropic-sdk",
        "google-genai",
    }
)
"""Replicas held to goldens from their real library (the tests check each name here has them)."""

LITERAL_MATCHES: Final[str] = ById.name
"""The replica the empty-id ``literal`` policy reproduces: looking a ``""`` id up as an id is
what the ``by-id`` loop does (the toolbar and the status line name it)."""


def replica(name: str) -> Replica:
    """The replica called ``name``; KeyError naming the known ones otherwise."""
    for r in REPLICAS:
        if r.name == name:
            return r
    known = ", ".join(r.name for r in REPLICAS)
    raise KeyError(f"no client replica called {name!r} (known: {known})")
