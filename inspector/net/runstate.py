"""Where a live session is: its state, and "round R · attempt N".

States, in the order a session goes through them::

    idle ─> connecting ─> streaming ─┬─> running_tools ─> connecting (the next round) ...
                                     └─> retrying ─> streaming ...
    any state ─> done | failed | cancelled                                   (final)

One numbering everywhere: a session is a sequence of rounds (one, unless it is a tool loop);
within a round attempt N counts from 1 (a retry is attempt 2). The capture and the Analysis
number attempts across the whole session (1, 2, 3, ...): that is the capture format, and
:func:`attempt_places` maps one onto the other.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol


class RunState(StrEnum):
    """What a session is doing (a ``str``: it compares equal to its value)."""

    IDLE = "idle"
    """Created, not started."""
    CONNECTING = "connecting"
    """A round's first request is on its way; no response yet."""
    STREAMING = "streaming"
    """A response is arriving (a tool loop may already run tools: streaming dispatch)."""
    RUNNING_TOOLS = "running_tools"
    """The body has ended; the round's tools are finishing before the next round."""
    RETRYING = "retrying"
    """The retry of an invalid response is on its way; no response yet."""
    DONE = "done"
    FAILED = "failed"
    """Ended by an error (the session's ``error`` says which)."""
    CANCELLED = "cancelled"

    @property
    def final(self) -> bool:
        """done, failed or cancelled: nothing runs any more."""
        return self in _FINAL

    @property
    def label(self) -> str:
        """The state in words ("running tools")."""
        return self.value.replace("_", " ")


_FINAL = frozenset({RunState.DONE, RunState.FAILED, RunState.CANCELLED})


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
