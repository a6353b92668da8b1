"""Whether a demo model plays its own behaviour on a dialect, said in one line.

Read from a ``GET /v1/models`` entry (:meth:`.scenarios.Scenario.to_model`): ``dialects`` are
where the scenario has its own behaviour, ``quirks_by_dialect`` the codes it shows there; any
other dialect plays the conforming stream. The window (which lists the provider's models) and
``record`` (which has the table) build the same :class:`NotPlayed` from the same entry, so they
say the same words.

Invariants: pure, no dialect named here (everything comes from the entry); an entry without
``dialects`` (another server's model) is never said not to apply.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class NotPlayed:
    """A demo model asked for on a dialect where it plays the conforming stream."""

    model: str
    dialect: str
    """The dialect it was asked for on."""
    dialects: tuple[str, ...]
    """Where it has its own behaviour."""
    codes: tuple[str, ...]
    """The quirk codes it shows there (none for a scenario without quirks)."""

    @classmethod
    def of(cls, entry: Mapping[str, Any], dialect: str) -> NotPlayed | None:
        """The note for ``entry`` on ``dialect``, or None when it plays its own behaviour
        there (or says nothing of its dialects)."""
        dialects = entry.get("dialects")
        if not isinstance(dialects, list) or not dialects or dialect in dialects:
            return None
        by_dialect = entry.get("quirks_by_dialect")
        codes: list[str] = []
        for d in dialects:
            listed = by_dialect.get(d) if isinstance(by_dialect, dict) else None
            for code in listed if isinstance(listed, list) else []:
                if isinstance(code, str) and code not in codes:
                    codes.append(code)
        return cls(str(entry.get("id", "")), dialect, tuple(map(str, dialects)), tuple(codes))

    @property
    def where(self) -> str:
        """``openai-chat only``, ``openai-chat and anthropic only``."""
        return " and ".join(self.dialects) + " only"

    def about(self) -> str:
        """The Live bar's line (and ``record``'s): what the model does on this dialect."""
        what = "its quirks are" if self.codes else "its own behaviour is"
        return (
            f"{self.model}: {what} {self.where} — on {self.dialect} it plays the conforming stream"
        )

    def short(self) -> str:
        """What fits beside a model box: ``⚠ openai-chat only (on anthropic: conforming)``."""
        return f"⚠ {self.where} (on {self.dialect}: conforming)"

    def not_shown(self) -> str:
        """After a run: ``empty_string_continuation_id/_name not shown on anthropic
        (openai-chat only)``."""
        shown = joined(self.codes) if self.codes else f"{self.model}'s own behaviour"
        return f"{shown} not shown on {self.dialect} ({self.where})"


def joined(codes: Sequence[str]) -> str:
    """Codes in one short phrase: a code that shares its head (up to an underscore) with the
    one before gives only the rest (``a_b_id/_name``); others are separated by commas."""
    out, head = "", ""
    for code in codes:
        pairs = zip(head, code, strict=False)
        same = next((i for i, (a, b) in enumerate(pairs) if a != b), min(len(head), len(code)))
        cut = head.rfind("_", 0, same) if head else -1
        if cut > 0:
            out += "/" + code[cut:]
        else:
            out += (", " if out else "") + code
            head = code
    return out
