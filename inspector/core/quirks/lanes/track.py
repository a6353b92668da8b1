"""What the wire scan remembers per wire lane (:class:`LaneTrack`): the call's first identity
and the chunks of its continuations.

Invariants: only :class:`~inspector.core.quirks.lanes.scan.LaneScan` changes a track; the
lists are the shared empty tuple until their first entry (most lanes have no fragment before
their identity, and a call sent whole has no continuation). A track's continuations are kept
only while they may all repeat the call's id or its name: the first one that repeats neither
(a plain fragment, arguments only) makes ``continuations`` None for good, so a long call keeps
no chunk per fragment and its plain fragments can be scanned as a run
(:mod:`inspector.core.quirks.lanes.plainrun`).
"""

from __future__ import annotations

from collections.abc import Iterable

from inspector.core.base.model import ToolCallDelta
from inspector.core.quirks.codes import (
    ID_REPEATED_EVERY_CHUNK,
    MISSING_CALL_ID,
    NAME_REPEATED_EVERY_CHUNK,
)
from inspector.core.quirks.seen import Seen, real


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
        self.continuations: list[int] | tuple[()] | None = ()  # a list from the first one
        """Chunks of the continuations, while they may all repeat the id or the name; None
        from the first that repeats neither (then neither quirk can show)."""
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
        elif seqs is not None:
            self.continuations = [seq]

    def early_at(self, seq: int) -> None:
        """An argument fragment at chunk ``seq`` before any identity."""
        seqs = self.early
        if isinstance(seqs, list):
            seqs.append(seq)
        else:
            self.early = [seq]


def conclude_tracks(tracks: Iterable[LaneTrack | ToolCallDelta], ids_expected: bool) -> Seen:
    """What the tracks show as a whole (continuations that all repeat the id or the name; a
    named opener without an id when ``ids_expected``), in the tracks' order. The wire scan
    works it out again only when a track changed in a way read here (a continuation, an
    id-less opener), not per new call sent whole. A quiet track, kept as its opener (a real
    id, nothing at its lane since), shows nothing."""
    out = Seen(compact=True)
    for track in tracks:  # inline: once per call
        if type(track) is not LaneTrack:
            continue  # a quiet track (its opener): a real id, nothing since, nothing to show
        seqs = track.continuations
        if seqs:  # None (spoiled) or () show nothing
            if track.repeats == len(seqs):
                for seq in seqs:
                    out.add(ID_REPEATED_EVERY_CHUNK, seq, f"{track.first_id!r}")
            if track.name_repeats == len(seqs):
                for seq in seqs:
                    out.add(NAME_REPEATED_EVERY_CHUNK, seq, f"{track.first_name!r}")
        if ids_expected:
            fid = track.first_id
            if type(fid) is str and fid and fid != "null":
                continue  # a real id (the common case, decided without a call)
            if real(track.first_name) and not real(fid):
                out.add(MISSING_CALL_ID, track.opened, f"{track.first_name!r}")
    return out
