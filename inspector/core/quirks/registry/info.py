"""What the registry says of one quirk code (:class:`QuirkInfo`), and the words its fields
take.

Invariants:
- ``family`` is the folder of ``inspector/core/quirks/`` whose detector reports the code, and
  ``detector`` names that module (and any other that reports it too), relative to the quirks
  package: ``lanes.scan`` is :mod:`inspector.core.quirks.lanes.scan`.
- ``scope`` is ``every dialect`` or ``provider-dependent``: a provider-dependent check rests on
  a fact of some wire formats only, and runs only for a provider that lists the code in its
  ``Provider.checks`` (the providers say which apply to them; no provider is named here).
- ``severity`` says what the quirk costs, by the rubric of :data:`SEVERITIES`.
- ``expected`` is what the dialect's own documentation says should have come instead, in a
  sentence naming the dialect(s) or the spec; "" where the documentation says nothing that
  rules the quirk out. ``references`` are the public reports of it (bug reports, pull requests,
  recorded fixtures), as URLs; () when none is known.
- The doc anchor is derived, never typed: docs/quirks.md has a section per code whose heading
  is the code (the tests check every code has one, in report order).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal

Family = Literal["lanes", "events", "calls", "turn"]
Scope = Literal["every dialect", "provider-dependent"]
Severity = Literal["error", "warning", "info"]

EVERY_DIALECT: Final[Scope] = "every dialect"
PROVIDER_DEPENDENT: Final[Scope] = "provider-dependent"

SEVERITIES: Final[Mapping[Severity, str]] = {
    "error": "what was sent cannot be read back whole, by any reader: part of the answer is "
    "lost, cut or contradicted (the inspector shows it, and cannot repair it)",
    "warning": "the stream departs from its dialect's documented format: the inspector "
    "assembles the calls, but a client that follows the documentation to the letter may not",
    "info": "within the format, or harmless: noted because some clients trip over it",
}
"""Each severity, and what it means."""

DOC: Final = "docs/quirks.md"
"""The page that explains every code, a section each."""


@dataclass(frozen=True, slots=True)
class QuirkInfo:
    """One quirk code and everything the inspector knows about it (see the module docstring)."""

    code: str
    """The stable code (a constant of :mod:`inspector.core.quirks.codes`)."""
    family: Family
    """The folder of the quirks package whose detector reports it."""
    scope: Scope
    """``every dialect``, or ``provider-dependent`` (runs where ``Provider.checks`` lists it)."""
    severity: Severity
    """What it costs (:data:`SEVERITIES`)."""
    meaning: str
    """One line: what the stream did (the report's message starts with it)."""
    detector: tuple[str, ...]
    """The modules that report it, relative to the quirks package (``lanes.scan``)."""
    expected: str = ""
    """What the dialect's documentation says should have come instead ("" where it is silent)."""
    references: tuple[str, ...] = ()
    """Public reports of it (URLs)."""

    @property
    def anchor(self) -> str:
        """Where docs/quirks.md explains it: ``docs/quirks.md#<code>``."""
        return f"{DOC}#{self.code}"


def issue(repo: str, number: int) -> str:
    """The URL of issue ``number`` of GitHub repository ``repo`` (GitHub redirects it to the
    pull request when the number is one)."""
    return f"https://github.com/{repo}/issues/{number}"


def pull(repo: str, number: int) -> str:
    """The URL of pull request ``number`` of GitHub repository ``repo``."""
    return f"https://github.com/{repo}/pull/{number}"


def blob(repo: str, path: str) -> str:
    """The URL of the file ``path`` on the default branch of GitHub repository ``repo``."""
    return f"https://github.com/{repo}/blob/HEAD/{path}"
