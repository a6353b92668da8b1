"""The wire-level half of quirk detection, kept incremental: each new event and delta is
scanned once, however often a view asks for the quirks.

Invariants:
- A :class:`WireScan` reads only ``StreamState.events`` and ``StreamState.deltas``, which are
  append-only and the same under every empty-id policy, so one scan serves the stream for its
  whole life, across policy flips (only the call-level half in :mod:`inspector.core.quirks.detect`
  is redone then).
- ``advance`` scans exactly the events and deltas appended since the last call, in arrival
  order, so the hits (and the first note per code) are those a single pass over the finished
  stream records; a provider that changes under it (``auto`` deciding) restarts the scan.
- The checks in :data:`PROVIDER_CHECKS` run only for a provider that lists them in its
  ``checks``; while the provider is unknown (``auto`` still sniffing, so no deltas yet) none do.
- Hits arrive in stream order, so a code's hits are almost always non-decreasing: the scan
  keeps them as :class:`~inspector.core.quirks.seqruns.SeqRuns`, de-duplicated as they come
  (merging again only when one points back), so a long stream's hits are neither sorted on
  every ask nor kept one int object per chunk (a million keep-alives make two runs).
- Conclusions that need the whole stream (``data_after_done``, ``id_repeated_every_chunk``,
  ``name_repeated_every_chunk``, ``missing_call_id``) are drawn by :meth:`WireScan.conclude`
  into a separate collector, never into the scan's own.
- Per wire lane a track remembers the call's first identity: a later real id or name fills in
  an id-less or nameless opener (argument fragments sent before either are
  ``arguments_before_identity``), an id seen on another lane is ``duplicate_call_id``, and a
  done event restating another id or name is ``done_identity_mismatch``. A lane opened with
  a real id is kept as its opener delta until something else reaches it (a quiet track: no
  object for a call sent whole). Once a lane's track is identified and spoiled (a plain
  fragment repeated neither id nor name), the plain fragments that follow it one per chunk
  are scanned as a run (:mod:`inspector.core.quirks.lanes.plainrun`), with the same outcome.
- Finish reasons are counted per choice (``repeated_finish_reason``; ``""`` is
  ``empty_finish_reason``, not a reason).
- Any value may stand where the wire has one: only a JSON integer or string index (and
  choice) names a lane here, as in the accumulator; a field of the wrong type shows as
  ``wire_field_type``, whose note names every distinct field, expected and received kind
  (up to :data:`~inspector.core.quirks.events.deltas.FIELDS_NAMED`) with the first chunk
  showing it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import chain
from typing import Any, Final

from inspector.core.base.model import (
    OMITTED,
    AnyDelta,
    Delta,
    DeltaKind,
    EventKind,
    ToolCallDelta,
)
from inspector.core.base.provider import Provider
from inspector.core.calls.stream import StreamState
from inspector.core.calls.wirefield import describe, field_problem, is_key
from inspector.core.events.log import EventLog
from inspector.core.quirks.events.deltas import TextTags, WrongFields, delta_quirks
from inspector.core.quirks.lanes.plainrun import END, plain_run
from inspector.core.quirks.lanes.text import LaneTexts
from inspector.core.quirks.lanes.track import LaneTrack, conclude_tracks
from inspector.core.quirks.seen import Seen, lane, real
from inspector.core.quirks.seqruns import SeqRuns

PROVIDER_CHECKS = frozenset(
    {
        "arguments_not_string",  # arguments are strings on this wire (Gemini's are objects)
        "missing_index",  # every call entry carries a wire index, counted from 0 …
        "duplicate_index_in_chunk",  # … once per chunk …
        "sparse_index",  # … without gaps
        "whole_call_single_chunk",  # calls are streamed in fragments, not sent whole
        "missing_call_id",  # every call carries an id (Gemini's carry none)
    }
)
"""Quirk checks that apply only to the providers that list them in ``Provider.checks``: each
rests on a fact of that provider's wire format."""

MALFORMED_CALL_REASONS = frozenset({"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL"})
"""Finish reasons saying the model's tool call was rejected by the server (none delivered)."""

_LIST_ITERATOR: Final[type[Any]] = type(iter([]))
_COMMENT = EventKind.COMMENT
_ERROR = EventKind.ERROR
_KEEPALIVE = DeltaKind.KEEPALIVE


class WireScan:
    """Scan state of one stream's events and deltas (see the module docstring)."""

    def __init__(self) -> None:
        self._reset(None)

    def _reset(self, provider: Provider | None) -> None:
        self.seen = Seen(compact=True)
        """What the events and deltas scanned so far show."""
        self.provider = provider
        """The provider the scan ran under (None: not known yet)."""
        checks = provider.checks if provider is not None else frozenset()
        self._string_args = "arguments_not_string" in checks
        self._missing_index = "missing_index" in checks
        self._duplicate_index = "duplicate_index_in_chunk" in checks
        self._ids_expected = "missing_call_id" in checks
        self.events_done = 0
        self.deltas_done = 0
        self.tool_deltas = 0
        """Tool-call deltas among the deltas scanned."""
        self._per_chunk: dict[Any, int] = {}  # entries per lane in the current chunk
        self._last_seq = -1
        self._tracks: dict[Any, LaneTrack | ToolCallDelta] = {}  # an opener: a quiet track
        self._ended: list[LaneTrack] = []  # tracks replaced by a new call at the same index
        self._keepalive = SeqRuns()  # chunks of keep-alive deltas that are no comment event
        self._tags = TextTags()  # tool-call tags in the text
        self._fields = WrongFields()  # fields of the wrong type
        self._ids: dict[str, LaneTrack | ToolCallDelta] = {}  # real id -> the track it opened
        self._finishes: dict[Any, list[Any]] = {}  # choice -> [first seq, reason, repeated]
        self._changes = 0  # grows whenever a track changes in a way conclude() reads
        self._concluded: tuple[int, Seen] | None = None  # (changes, what the tracks showed)
        self.texts = LaneTexts()
        """Every wire lane's argument text as a JSON state (the ``silent_truncation`` check)."""

    def advance(self, state: StreamState) -> None:
        """Scan what ``state`` received since the last call."""
        provider = state.provider
        if provider is not self.provider:
            self._reset(provider)
        self._events(state.events)
        deltas = state.deltas
        n = len(deltas)
        items = deltas.stored(self.deltas_done)  # keep-alives restating comments: skipped
        if type(items) is not _LIST_ITERATOR:  # a run counts what it consumed by what is left
            items = iter(list(items))
        d: Any = next(items, END)
        while d is not END:
            if isinstance(d, ToolCallDelta):
                d = self._tool(d, items)  # the next item (a run of plain ones consumed)
                continue
            if d.kind == _KEEPALIVE:  # a keep-alive that is no comment event (a ping)
                self._keepalive.append(d.seq)
                delta_quirks(d, self.seen)
            else:
                self._delta(d)
            d = next(items, END)
        self.texts.flush(state.calls)
        self.deltas_done = n

    def _tool(self, d: ToolCallDelta, items: Iterator[AnyDelta]) -> Any:
        """Scan fragment ``d``; return the next item to scan (after the run of plain
        fragments that follows ``d``, when one does:
        :mod:`inspector.core.quirks.lanes.plainrun`)."""
        self.tool_deltas += 1
        if d.seq != self._last_seq:
            self._per_chunk.clear()
            self._last_seq = d.seq
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

    def _delta(self, d: Delta) -> None:
        kind = d.kind
        if kind == DeltaKind.FINISH:
            self._finish(d)
        elif kind == DeltaKind.TEXT and isinstance(d.value, str):
            self._tags.feed(d.seq, d.value, self.seen)
        elif kind == DeltaKind.UNKNOWN:
            problem = field_problem(d)
            if problem is not None:
                self._fields.add(d.seq, describe(problem), self.seen)
                return
        delta_quirks(d, self.seen)

    def _events(self, events: EventLog) -> None:
        """Comments and undecodable bytes among the events since the last call, found without
        building the others: a run of consecutive comments is added at once (a million
        keep-alives in a row: one run, and one event built for the note)."""
        start = self.events_done
        for lo, hi in events.runs(_COMMENT, start):
            note = None
            if "keepalive_comments" not in self.seen.hits:
                note = f"{events[lo].comment.strip()!r}"
            self._comments(lo, hi, note)
        for ev in events.select(_ERROR, start):
            self.seen.add("invalid_utf8", ev.seq, ev.data)
        self.events_done = len(events)

    def _comments(self, lo: int, hi: int, note: str | None) -> None:
        """Comment events ``lo``..``hi - 1`` (the first one's text makes the note)."""
        self.seen.add("keepalive_comments", lo, note)
        runs = self.seen.hits["keepalive_comments"]
        assert isinstance(runs, SeqRuns)  # a compact Seen
        runs.add_run(lo + 1, hi)

    def chunks(self, code: str) -> Sequence[int]:
        """``code``'s hits so far, ascending and de-duplicated (kept so as they come: the scan
        collects them as :class:`~inspector.core.quirks.seqruns.SeqRuns`). Do not modify:
        a reader that keeps them while the scan goes on keeps a copy."""
        return self.seen.hits.get(code) or ()

    def conclude(self, state: StreamState, out: Seen) -> None:
        """Add to ``out`` what only the stream so far as a whole shows."""
        done = state.done_seq
        if done is not None:  # events, not deltas: a chunk that maps to no delta still counts
            for kind in (EventKind.EVENT, _ERROR):  # comments built not even then
                for ev in state.events.select(kind, done + 1):
                    if ev.seq not in self._keepalive:
                        out.add("data_after_done", ev.seq)
        concluded = self._concluded
        if concluded is None or concluded[0] != self._changes:
            tracks = chain(self._ended, self._tracks.values())
            concluded = (self._changes, conclude_tracks(tracks, self._ids_expected))
            self._concluded = concluded
        for code, runs in concluded[1].hits.items():
            got = out.hits.get(code)
            if got is None:
                out.hits[code] = runs.copy() if isinstance(runs, SeqRuns) else list(runs)
            else:
                for seq in runs:
                    got.append(seq)
        for code, note in concluded[1].notes.items():
            out.notes.setdefault(code, note)

    # -- per delta -----------------------------------------------------------------------

    def _fragment(self, d: ToolCallDelta) -> None:
        seen = self.seen
        if d.id == "null":
            seen.add("null_string_id", d.seq)
        elif d.id is None:
            seen.add("null_id", d.seq)
        if d.args_object and self._string_args:
            seen.add("arguments_not_string", d.seq)
        if d.index is OMITTED:
            if self._missing_index and not (d.extra and d.extra.get("legacy_function_call")):
                seen.add("missing_index", d.seq)  # the legacy function_call has no index
        elif self._duplicate_index and not d.final and is_key(d.index):
            key = lane(d)
            count = self._per_chunk[key] = self._per_chunk.get(key, 0) + 1
            if count == 2:
                seen.add("duplicate_index_in_chunk", d.seq, f"index {d.index}")

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
                self.seen.add("duplicate_index_in_chunk", d.seq, f"index {d.index}")
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
            seen.add("index_reused_with_new_id", d.seq, f"index {d.index!r}: {d.id!r}")
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
            seen.add("empty_string_continuation_id", d.seq)
        elif not adopted and d.id is not OMITTED and d.id is not None and d.id == track.first_id:
            track.repeats += 1
        if d.name == "":
            seen.add("empty_string_continuation_name", d.seq)
        elif not named and real(d.name) and d.name == track.first_name:
            track.name_repeats += 1
        if not track.identified:
            if adopted or named:
                track.identified = True
                for seq in track.early:
                    seen.add("arguments_before_identity", seq, f"index {d.index!r}")
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
            self.seen.add("duplicate_call_id", d.seq, f"{d.id!r}")

    def _final(self, d: ToolCallDelta) -> None:
        """A done event restating a call: its id and name must be those the call opened with."""
        track = self._track(lane(d))
        if track is None:
            return
        if d.id is not OMITTED and real(track.first_id) and d.id != track.first_id:
            self.seen.add("done_identity_mismatch", d.seq, f"id {track.first_id!r} then {d.id!r}")
        elif d.name is not OMITTED and real(track.first_name) and d.name != track.first_name:
            note = f"name {track.first_name!r} then {d.name!r}"
            self.seen.add("done_identity_mismatch", d.seq, note)

    def _finish(self, d: Delta) -> None:
        """Finish reasons, counted per choice: a second one for the same choice repeats it."""
        reason = d.value
        seen = self.seen
        if reason == "":
            seen.add("empty_finish_reason", d.seq)
            return
        if type(reason) is str and reason in MALFORMED_CALL_REASONS:
            seen.add("malformed_function_call", d.seq, reason)
        raw = d.raw
        choice = raw.get("index", 0) if isinstance(raw, dict) else 0
        key = choice if is_key(choice) else None
        first = self._finishes.get(key)
        if first is None:
            self._finishes[key] = [d.seq, reason, False]
            return
        if not first[2]:
            first[2] = True
            seen.add("repeated_finish_reason", first[0], f"{first[1]!r} then {reason!r}")
        seen.add("repeated_finish_reason", d.seq)
