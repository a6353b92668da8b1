"""The ``lanes`` family's detector: each tool-call fragment, as the wire scan
(:class:`~inspector.core.quirks.wirescan.WireScan`) hands it over, read once, per wire lane.

Invariants:
- A :class:`LaneScan` sees every tool-call fragment of one stream once, in arrival order,
  whatever a policy routes where, so what it finds is the provider's, not the policy's.
- The provider-dependent checks (``missing_index``, ``duplicate_index_in_chunk``,
  ``arguments_not_string``, ``missing_call_id``) run only when the provider lists them in its
  ``checks`` (:class:`LaneScan` is told which at its start).
- Per wire lane a track remembers the call's first identity: a later real id or name fills in
  an id-less or nameless opener (argument fragments sent before either are
  ``arguments_before_identity``), an id seen on another lane is ``duplicate_call_id``, and a
  done event restating another id or name is ``done_identity_mismatch``. A lane opened with
  a real id is kept as its opener delta until something else reaches it (a quiet track: no
  object for a call sent whole). Once a lane's track is identified and spoiled (a plain
  fragment repeated neither id nor name), the plain fragments that follow it one per chunk
  are scanned as a run (:mod:`.plainrun`), with the same outcome.
- What the tracks show as a whole (``id_repeated_every_chunk``, ``name_repeated_every_chunk``,
  ``missing_call_id``) is drawn by :meth:`LaneScan.conclusions`, again only when a track
  changed in a way it reads (:func:`~.track.conclude_tracks`).
- Only a JSON integer or string index (and choice) names a lane, as in the accumulator.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain
from typing import Any

from inspector.core.base.kinds import CallKind, ItemDelta
from inspector.core.base.model import OMITTED, AnyDelta, ToolCallDelta
from inspector.core.calls.wirefield import is_key
from inspector.core.quirks.codes import (
    ARGUMENTS_BEFORE_IDENTITY,
    ARGUMENTS_NOT_STRING,
    DONE_IDENTITY_MISMATCH,
    DUPLICATE_CALL_ID,
    DUPLICATE_INDEX_IN_CHUNK,
    EMPTY_STRING_CONTINUATION_ID,
    EMPTY_STRING_CONTINUATION_NAME,
    INDEX_REUSED_WITH_NEW_ID,
    MISSING_CALL_ID,
    MISSING_INDEX,
    NULL_ID,
    NULL_STRING_ID,
)
from inspector.core.quirks.lanes.plainrun import END, plain_run
from inspector.core.quirks.lanes.text import LaneTexts
from inspector.core.quirks.lanes.track import LaneTrack, conclude_tracks
from inspector.core.quirks.seen import Seen, lane, real

FUNCTION = CallKind.FUNCTION


class LaneScan:
    """What one stream's tool-call fragments showed so far, per wire lane (see the module
    docstring). Its hits go to ``seen``, the wire scan's collector."""

    def __init__(self, seen: Seen, checks: frozenset[str]) -> None:
        self.seen = seen
        self._string_args = ARGUMENTS_NOT_STRING in checks
        self._items: set[Any] = set()
        """Wire lanes whose item is not a function call (hosted, built-in, custom): their
        fragments are not scanned (their input need not be a string or JSON)."""
        self._missing_index = MISSING_INDEX in checks
        self._duplicate_index = DUPLICATE_INDEX_IN_CHUNK in checks
        self._ids_expected = MISSING_CALL_ID in checks
        self.tool_deltas = 0
        """Tool-call deltas scanned."""
        self._per_chunk: dict[Any, int] = {}  # entries per lane in the current chunk
        self._last_seq = -1
        self._tracks: dict[Any, LaneTrack | ToolCallDelta] = {}  # an opener: a quiet track
        self._ended: list[LaneTrack] = []  # tracks replaced by a new call at the same index
        self._ids: dict[str, LaneTrack | ToolCallDelta] = {}  # real id -> the track it opened
        self._changes = 0  # grows whenever a track changes in a way conclusions() reads
        self._concluded: tuple[int, Seen] | None = None  # (changes, what the tracks showed)
        self.texts = LaneTexts()
        """Every wire lane's argument text as a JSON state (the ``silent_truncation`` check)."""

    def conclusions(self) -> Seen:
        """What the tracks show as a whole so far (worked out again only when one changed)."""
        concluded = self._concluded
        if concluded is None or concluded[0] != self._changes:
            tracks = chain(self._ended, self._tracks.values())
            concluded = (self._changes, conclude_tracks(tracks, self._ids_expected))
            self._concluded = concluded
        return concluded[1]

    def tool(self, d: ToolCallDelta, items: Iterator[AnyDelta]) -> Any:
        """Scan fragment ``d``; return the next item to scan (after the run of plain
        fragments that follows ``d``, when one does: :mod:`.plainrun`)."""
        self.tool_deltas += 1
        if d.seq != self._last_seq:
            self._per_chunk.clear()
            self._last_seq = d.seq
        if isinstance(d, ItemDelta) and is_key(d.index):  # an opener saying its item's kind
            if d.call_kind == FUNCTION:
                self._items.discard(d.index)
            else:
                self._items.add(d.index)
        if self._items and is_key(d.index) and d.index in self._items:
            return next(items, END)  # another kind's input: no function-call wire checks
        if (
            d.id is OMITTED
            and d.name is OMITTED
            and type(d.index) is int
            and d.extra is None
            and not d.final
            and not d.args_object
        ):
            self._plain(d)
            return self._run(d.index, items)
        self._fragment(d)
        if is_key(d.index):
            if d.final:
                self._final(d)
            else:
                self._continuation(d)
                a = d.arguments
                if type(a) is str and a:
                    self.texts.add(d.index if d.extra is None else lane(d), a, d.seq)
        return next(items, END)

    def _run(self, key: int, items: Iterator[AnyDelta]) -> Any:
        """After a plain fragment at lane ``key``: when its track is identified and spoiled
        (its continuations no longer all repeat the id or the name) and its text takes pieces,
        the plain fragments that follow at ``key``, one per chunk, are scanned in one loop.
        Returns the next item to scan."""
        track = self._track(key)
        append = self.texts.appender(key)
        if track is None or not track.identified or track.continuations is not None or not append:
            return next(items, END)
        nxt, seq, texted, count = plain_run(items, key, self._last_seq, append)
        self.tool_deltas += count
        if seq != self._last_seq:
            self._last_seq = seq
            self._per_chunk = {key: 1} if self._duplicate_index else {}
        if texted >= 0:
            self.texts.touched(key, texted)
        return nxt

    # -- per fragment --------------------------------------------------------------------

    def _fragment(self, d: ToolCallDelta) -> None:
        seen = self.seen
        if d.id == "null":
            seen.add(NULL_STRING_ID, d.seq)
        elif d.id is None:
            seen.add(NULL_ID, d.seq)
        if d.args_object and self._string_args and not (d.extra and "caller" in d.extra):
            # (a programmatic call's input arrives whole, as documented: no quirk)
            seen.add(ARGUMENTS_NOT_STRING, d.seq)
        if d.index is OMITTED:
            if self._missing_index and not (d.extra and d.extra.get("legacy_function_call")):
                seen.add(MISSING_INDEX, d.seq)  # the legacy function_call has no index
        elif self._duplicate_index and not d.final and is_key(d.index):
            key = lane(d)
            count = self._per_chunk[key] = self._per_chunk.get(key, 0) + 1
            if count == 2:
                seen.add(DUPLICATE_INDEX_IN_CHUNK, d.seq, f"index {d.index}")

    def _plain(self, d: ToolCallDelta) -> None:
        """The common fragment, checked as :meth:`_fragment` and :meth:`_continuation` would:
        arguments only, at an integer index of the first choice, no identity at all."""
        key = d.index  # its lane (choice 0)
        a = d.arguments
        if type(a) is str and a:
            self.texts.add(key, a, d.seq)
        if self._duplicate_index:
            count = self._per_chunk[key] = self._per_chunk.get(key, 0) + 1
            if count == 2:
                self.seen.add(DUPLICATE_INDEX_IN_CHUNK, d.seq, f"index {d.index}")
        track = self._track(key)
        if track is None:
            self._open(key, d)
            return
        if track.continuations is not None:  # it repeats neither id nor name: the track's
            track.continuations = None  # continuations can show neither quirk any more
            self._changes += 1
        if not track.identified and type(a) is str and a:
            track.early_at(d.seq)

    def _continuation(self, d: ToolCallDelta) -> None:
        """Fragments at an index seen before are continuations, whatever a policy makes of them."""
        key = lane(d)
        track = self._track(key)
        if track is None:
            self._open(key, d)
            return
        self._changes += 1
        if d.id is OMITTED and d.name is OMITTED:  # the common continuation: arguments only
            track.continue_at(d.seq)
            if not track.identified and type(d.arguments) is str and d.arguments:
                track.early_at(d.seq)
            return
        seen = self.seen
        if real(d.id) and real(d.name) and real(track.first_id) and d.id != track.first_id:
            seen.add(INDEX_REUSED_WITH_NEW_ID, d.seq, f"index {d.index!r}: {d.id!r}")
            self._ended.append(track)
            self._open(key, d)
            return
        adopted = real(d.id) and not real(track.first_id)
        if adopted:
            track.first_id = d.id  # an id-less opener: the first real id names the call
            self._claim(track, d)
        named = real(d.name) and not real(track.first_name)
        if named:
            track.first_name = d.name  # likewise a nameless opener's first real name
        track.continue_at(d.seq)
        if d.id == "":
            seen.add(EMPTY_STRING_CONTINUATION_ID, d.seq)
        elif not adopted and d.id is not OMITTED and d.id is not None and d.id == track.first_id:
            track.repeats += 1
        if d.name == "":
            seen.add(EMPTY_STRING_CONTINUATION_NAME, d.seq)
        elif not named and real(d.name) and d.name == track.first_name:
            track.name_repeats += 1
        if not track.identified:
            if adopted or named:
                track.identified = True
                for seq in track.early:
                    seen.add(ARGUMENTS_BEFORE_IDENTITY, seq, f"index {d.index!r}")
            elif type(d.arguments) is str and d.arguments:
                track.early_at(d.seq)

    def _open(self, key: Any, d: ToolCallDelta) -> None:
        """A new call's track at ``key``, opened by ``d``: a quiet one (the opener itself
        stands for it, no object) when ``d`` carries a real id, since such a track shows
        nothing until a later fragment reaches it (:meth:`_track` then makes it a
        :class:`LaneTrack`): a stream of 200,000 calls sent whole keeps no track object."""
        if real(d.id):
            self._tracks[key] = d
            self._claim(d, d)
            return
        track = self._tracks[key] = LaneTrack(d)
        self._changes += 1  # an opener without an id: a missing call id, maybe
        if not track.identified and type(d.arguments) is str and d.arguments:
            track.early_at(d.seq)

    def _track(self, key: Any) -> LaneTrack | None:
        """The track at ``key`` (a quiet one made a :class:`LaneTrack` now, as it opened)."""
        got = self._tracks.get(key)
        if not isinstance(got, ToolCallDelta):
            return got
        opener = got
        track = self._tracks[key] = LaneTrack(opener)
        if self._ids.get(opener.id) is opener:
            self._ids[opener.id] = track
        return track

    def _claim(self, track: LaneTrack | ToolCallDelta, d: ToolCallDelta) -> None:
        """``d``'s real id names ``track``'s call; another call named so first is a duplicate."""
        other = self._ids.setdefault(d.id, track)
        if other is not track:
            self.seen.add(DUPLICATE_CALL_ID, d.seq, f"{d.id!r}")

    def _final(self, d: ToolCallDelta) -> None:
        """A done event restating a call: its id and name must be those the call opened with."""
        track = self._track(lane(d))
        if track is None:
            return
        if d.id is not OMITTED and real(track.first_id) and d.id != track.first_id:
            self.seen.add(DONE_IDENTITY_MISMATCH, d.seq, f"id {track.first_id!r} then {d.id!r}")
        elif d.name is not OMITTED and real(track.first_name) and d.name != track.first_name:
            note = f"name {track.first_name!r} then {d.name!r}"
            self.seen.add(DONE_IDENTITY_MISMATCH, d.seq, note)
