"""The part of a provider that only hands work to its own package's modules, written once.

Every dialect package keeps how it recognises a body (``recognition``), how it reads one
(``dialect``) and its tool-definition shape (``tools``) in modules of its own; its provider
class names them once as :class:`Parts` and inherits the four methods that call them from
:class:`PackagedProvider`. What tells providers apart (closing rule, checks, finish reason,
error bodies, requests, continuations) stays in each provider's own class, which may also
override anything here (Bedrock's framing, the Responses API's error message).

Invariant: nothing here knows a dialect; a package hands only its own modules in.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from inspector.core.base.provider import Dialect, Framing, Head, Recognition, ToolShape
from inspector.core.events.sse import SSE
from inspector.core.providers.wire.errors import wrapped_error


@dataclass(frozen=True)
class Parts:
    """A dialect package's own modules, as its provider hands work to them."""

    recognises: Callable[[Head, str | None, str | None], Recognition]
    """``recognition.recognises``: is a body with this head, type and URL in its format?"""
    dialect: Callable[[Any], Dialect]
    """The dialect class, called with the provider: a fresh dialect for one body."""
    written: Callable[[list[dict[str, Any]]], list[dict[str, Any]]]
    """``tools.written``: neutral tool definitions in the provider's shape."""
    read: Callable[[dict[str, Any], str, str], ToolShape | None]
    """``tools.read``: what the provider's shape reads in one tool entry, or None."""


class PackagedProvider:
    """A provider whose recognition, dialect and tool shapes live in its package
    (:attr:`parts`); SSE framing and the common error message unless it says otherwise."""

    parts: ClassVar[Parts]
    framing: Framing = SSE

    def recognises(self, head: Head, content_type: str | None, url: str | None) -> Recognition:
        """See its package's ``recognition``."""
        return self.parts.recognises(head, content_type, url)

    def dialect(self) -> Dialect:
        """A fresh dialect for one response body."""
        return self.parts.dialect(self)

    def tools(self, neutral: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """See its package's ``tools``."""
        return self.parts.written(neutral)

    def tool_shape(self, entry: dict[str, Any], label: str, listed_as: str) -> ToolShape | None:
        """See its package's ``tools``."""
        return self.parts.read(entry, label, listed_as)

    def error_message(self, body: Any) -> str:
        """The common error shapes (``{"error": {…}}``, a bare error object, a list of one):
        :func:`~inspector.core.providers.wire.errors.wrapped_error`."""
        return wrapped_error(body)
