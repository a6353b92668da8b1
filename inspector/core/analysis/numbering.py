"""One numbering everywhere: "round R · attempt N".

A session is a sequence of rounds (one, unless it is a tool loop); within a round attempt N
counts from 1 (a streaming retry is attempt 2). The capture and the Analysis number attempts
across the whole session (1, 2, 3, ...): that is the capture format, and
:func:`attempt_places` maps one onto the other. Every view, the reports and the live session
runner say an attempt's place this way.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class RoundAttempt:
    """An attempt's place: its round, and its number within the round (both from 1; 0 before
    the session's first request)."""

    round: int = 0
    attempt: int = 0

    def __str__(self) -> str:
        if self.round == 0:
            return "not started"
        return f"round {self.round} · attempt {self.attempt}"


class _Numbered(Protocol):
    """What numbering needs of an attempt (``AttemptView`` has it)."""

    @property
    def number(self) -> int: ...
    @property
    def round(self) -> int: ...


def attempt_places(views: Iterable[_Numbered]) -> dict[int, RoundAttempt]:
    """Each attempt's place, keyed by its session-wide number (``AttemptView.number``): a round
    is a run of consecutive attempts with the same ``round`` (as the core groups them)."""
    places: dict[int, RoundAttempt] = {}
    last = RoundAttempt()
    for view in views:
        n = last.attempt + 1 if view.round == last.round else 1
        last = places[view.number] = RoundAttempt(view.round, n)
    return places


def place_names(views: Iterable[_Numbered]) -> dict[int, str]:
    """Each attempt's name in words, keyed by its session-wide number: ``attempt N`` when the
    session has one round (both numberings agree, and "round 1" says nothing), else
    ``round R · attempt N``."""
    places = attempt_places(views)
    several = len({p.round for p in places.values()}) > 1
    return {n: str(p) if several else f"attempt {p.attempt}" for n, p in places.items()}
