"""What the wire scan remembers per wire lane (:class:`LaneTrack`): the call's first identity
and the chunks of its continuations.

Invariants: only :class:`~inspector.core.verdicts.quirkscan.WireScan` changes a track; the
lists are the shared empty tuple until their first entry (most lanes have no fragment before
their identity, and a call sent whole has no continuation).
"""

from __future__ import annotations

from inspector.core.base.model import ToolCallDelta
from inspector.core.verdicts.seen import real


class LaneTrack:
    """Per wire lane: the opening identity, and how continuations repeated it."""

    __slots__ = (
        "continuations",
        "early",
        "first_id",
        "first_name",
        "identified",
        "name_repeats",
        "opened",
        "repeats",
    )

    def __init__(self, first: ToolCallDelta) -> None:
        self.opened = first.seq
        self.first_id = first.id
        self.first_name = first.name
        self.continuations: list[int] | tuple[()] = ()  # a list from the first one
        self.repeats = 0
        self.name_repeats = 0
        self.identified = real(first.id) or real(first.name)
        """A real id or name arrived at this lane (argument fragments before it are early)."""
        self.early: list[int] | tuple[()] = ()  # a list from the first one
        """Chunks of argument fragments sent before any identity."""

    def continue_at(self, seq: int) -> None:
        """A continuation at chunk ``seq``."""
        seqs = self.continuations
        if isinstance(seqs, list):
            seqs.append(seq)
        else:
            self.continuations = [seq]

    def early_at(self, seq: int) -> None:
        """An argument fragment at chunk ``seq`` before any identity."""
        seqs = self.early
        if isinstance(seqs, list):
            seqs.append(seq)
        else:
            self.early = [seq]
