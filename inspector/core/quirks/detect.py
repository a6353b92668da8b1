"""Provider quirks visible in one response, each with a stable code and the chunks showing it.

Invariants:
- Detection is a pure function of a :class:`StreamState` (its deltas, events and accumulated
  calls): the same stream always yields the same quirks, in a stable order (by code table).
- Quirks describe the *provider's* stream, so they are detected on the wire deltas, not on
  what one policy made of them; the exceptions are ``orphan_id_only_entry``,
  ``id_changed_mid_call``, ``name_changed_mid_call`` and ``fragment_after_close``, which
  describe how the policy in force routed the fragments.
- ``chunks`` lists wire event sequence numbers (``SSEEvent.seq``), ascending, de-duplicated.
- Calls written in the assistant text (:mod:`inspector.core.calls.textcalls`) are no calls
  of the provider's wire: they are not scanned as calls and do not count as the turn's calls
  (a ``stop`` with only such calls is no finish mismatch); each one shows as
  ``text_mode_tool_call`` at the chunk where it opened.
- What depends on the provider is asked of it (``state.provider``): which of
  :data:`~inspector.core.quirks.wirescan.PROVIDER_CHECKS` apply, its end marker and its
  tool finish reasons. No provider is named here.
- Incremental with a :class:`QuirkScan`: the wire-level half
  (:mod:`inspector.core.quirks.wirescan`)
  reads each event and delta once, and survives policy flips; a call is scanned again only
  when it changed (new fragments, a new accumulator; :mod:`inspector.core.quirks.calls.scan`);
  a cut hidden by a normal finish is looked for again only when deltas arrived after that
  finish, in O(lanes) (each lane's text is followed as a JSON state as it streams). The
  result always equals a fresh ``detect(state)`` on the same state, so asking on every UI
  flush costs O(new data).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from inspector.core.base.provider import Provider
from inspector.core.calls.stream import StreamState
from inspector.core.calls.textcalls import written_notes
from inspector.core.calls.toolcall import ToolCall
from inspector.core.quirks.calls.findings import Findings, FindingsTable, flat
from inspector.core.quirks.calls.fold import CallFold, Look, ToolDeltas
from inspector.core.quirks.calls.scan import claimed_end, scan_call
from inspector.core.quirks.seen import Seen
from inspector.core.quirks.seqruns import SeqRuns, merged
from inspector.core.quirks.wirescan import WireScan

#: code -> one-line description; the table order is the report order. docs/quirks.md explains each.
QUIRKS: dict[str, str] = {
    "empty_string_continuation_id": 'continuation fragments carry "id": "" (an accumulator that '
    "looks it up literally drops them)",
    "empty_string_continuation_name": 'continuation fragments carry "name": ""',
    "null_string_id": 'an id is the string "null"',
    "null_id": "an id is JSON null",
    "missing_call_id": "a named call arrived without any id (the inspector repairs one)",
    "missing_index": "tool-call entries carry no index",
    "index_reused_with_new_id": "a new call (new id and name) reuses an index already in use",
    "duplicate_call_id": "two calls carry the same id",
    "sparse_index": "tool-call indexes do not start at 0 or skip numbers",
    "duplicate_index_in_chunk": "one chunk carries two entries with the same index",
    "id_repeated_every_chunk": "continuations repeat the call's full id",
    "name_repeated_every_chunk": "continuations repeat the call's full name",
    "id_changed_mid_call": "a continuation carries a different id without a name",
    "name_changed_mid_call": "a continuation carries a different name",
    "arguments_before_identity": "argument fragments arrived at an index before the call's id "
    "and name",
    "cumulative_arguments": "each fragment repeats the whole argument buffer so far",
    "arguments_replayed": "a fragment repeats the complete arguments already streamed "
    "(concatenated: {…}{…})",
    "arguments_not_string": "arguments arrived as a JSON object, not a string",
    "whole_call_single_chunk": "a whole call (id, name and complete arguments) in one chunk",
    "arguments_only_in_done": "no argument deltas: the arguments arrived only in the done event",
    "done_arguments_mismatch": "the done event restates arguments that differ from the deltas",
    "done_identity_mismatch": "the done event restates another id or name than the call opened "
    "with",
    "fragment_after_close": "a fragment arrived for a call that was already closed",
    "opener_replayed": "a call's opener (same id and name, no arguments) arrived again after its "
    "arguments",
    "trailing_empty_arguments": 'a trailing "arguments": "" fragment after the arguments',
    "zero_arg_empty_string": 'a call whose arguments are only "" (zero-argument tool)',
    "orphan_id_only_entry": "an entry with an id but no name or arguments (left out)",
    "finish_reason_mismatch": "tool calls were emitted but the finish reason is not a "
    "tool-call one",
    "silent_truncation": "a call's arguments stop mid-JSON but the finish reason does not say "
    "the output was cut off",
    "empty_finish_reason": 'a finish reason is "" (neither null nor a reason)',
    "repeated_finish_reason": "more than one finish reason for one choice",
    "malformed_function_call": "the provider ended the turn saying the model's tool call was "
    "malformed (no call delivered)",
    "missing_finish_reason": "the stream ended without any finish/stop reason",
    "missing_done": "the stream ended without its end-of-stream marker",
    "data_after_done": "events arrived after the end-of-stream marker",
    "usage_only_chunk": "a final chunk with empty choices carrying only usage",
    "keepalive_comments": "SSE comment lines (keep-alives) between events",
    "keepalive_in_data": "a keep-alive comment re-wrapped as a data: line",
    "empty_role": 'delta.role is ""',
    "error_after_200": "the provider reported an error inside a 200 stream",
    "undecodable_data": "a data: line that is not valid JSON (a frame cut mid-JSON?)",
    "events_not_separated": "several events in one (data: lines with no blank line between them)",
    "wire_field_type": "a field holds a value of the wrong type (the event is read without it)",
    "invalid_utf8": "bytes that are not valid UTF-8",
    "text_mode_tool_call": "tool calls written as text in the content, not parsed by the "
    "provider (<tool_call>, [TOOL_CALLS], <|python_tag|>, a JSON call object)",
}


_NOTHING = Seen()
"""An empty collector (never added to)."""


@dataclass
class Quirk:
    """One quirk seen in a stream."""

    code: str
    """Stable code (a key of :data:`QUIRKS`)."""
    message: str
    """One readable line, specific to this stream."""
    chunks: Sequence[int] = field(default_factory=list)
    """Sequence numbers of the wire events that show it, ascending, de-duplicated: a compact
    :class:`~inspector.core.quirks.seqruns.SeqRuns` from :func:`detect` (read it as a
    sequence; it compares equal to the list it stands for)."""

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` shape."""
        return {"code": self.code, "message": self.message, "chunks": list(self.chunks)}


class QuirkScan:
    """What :func:`detect` keeps between calls on one stream: the incremental wire scan, and
    each call's findings, reused while the call's shape is unchanged.

    A call object changes only by taking fragments, so while it is the same object with as
    many fragments, its findings stand. After a policy flip a rebuilt call in the same slot
    that got the very same fragment objects and the same conclusions (ids, names, changes,
    late fragments, arguments) reuses its predecessor's findings."""

    def __init__(self) -> None:
        self.wire = WireScan()
        """The wire-level half (survives policy flips: it reads only events and deltas)."""
        self._table = FindingsTable()  # each call's own findings, by call slot
        self._provider: Provider | None = None  # the provider the findings were made under
        self._cut: tuple[Any, Seen] = ((), Seen())
        self._fold = CallFold()  # the leading closed calls' findings, merged once
        self._tool_deltas = ToolDeltas()

    def look(self, state: StreamState) -> Look:
        """Every call's findings merged, the calls that can no longer change from the fold
        (:mod:`inspector.core.quirks.calls.fold`): O(calls that may still change)."""
        return self._fitting(state).look(state, lambda c: self.call(c, state))

    def fold(self, state: StreamState) -> None:
        """Fold the calls that closed since (O(new calls)): a feeder with a time budget calls
        this, so a look when the stream is in has only the open calls left."""
        fold, calls = self._fold, state.calls
        if fold.calls is calls and fold.upto < len(calls) and calls[fold.upto].open:
            return  # the first call not folded is still open: nothing to fold (O(1))
        fold = self._fitting(state)
        if fold is self._fold:  # a fold that does not add up is not kept: nothing to advance
            fold.advance(state, lambda c: self.call(c, state))

    def _fitting(self, state: StreamState) -> CallFold:
        """The fold, started again if a folded call changed (or the calls did)."""
        wire = self.wire
        count = self._tool_deltas.update(state, (wire.deltas_done, wire.tool_deltas))
        fold = self._fold
        if not fold.fits(state, count):
            fold = CallFold(state.calls, state.acc, state.provider)
            self._fold = fold if fold.fits(state, count) else CallFold()
        return fold

    def truncation(self, state: StreamState) -> Seen:
        """``silent_truncation`` per wire lane, once the finish claims a normal end; redone
        only when deltas arrived since. O(lanes): the wire scan follows each lane's text as a
        JSON state while it streams (:mod:`inspector.core.quirks.lanes.text`)."""
        claimed = claimed_end(state)
        if claimed is None:
            return _NOTHING
        key = (len(state.deltas), claimed)
        if self._cut[0] != key:
            self.wire.advance(state)  # a no-op after detect's own
            seen = Seen()
            for seq, label in self.wire.texts.cut():
                seen.add("silent_truncation", seq, f"{label} under {claimed[1]!r}")
                seen.add("silent_truncation", claimed[0])
            self._cut = (key, seen)
        return self._cut[1]

    def call(self, call: ToolCall, state: StreamState) -> Findings:
        """``call``'s own findings, scanned again only when its shape changed."""
        if state.provider is not self._provider:
            self._table, self._provider = FindingsTable(), state.provider
        table = self._table
        slot = call.slot
        kept = table.call(slot)
        if (
            kept is not None
            and table.count(slot) == call.fragment_count
            and (kept is call or _same_shape(kept, call, state))
        ):
            return table.get(slot, call)
        seen = Seen()
        scan_call(call, seen, state.provider, state.acc is not None and state.acc.is_orphan(call))
        findings = flat(seen)
        table.put(slot, call, findings)
        return findings


def _same_shape(old: ToolCall, new: ToolCall, state: StreamState) -> bool:
    """Does ``new`` (a rebuilt call) show what ``old`` showed: the same fragment objects and
    the same conclusions drawn from them?"""
    acc = state.acc
    return (
        old.fragments == new.fragments  # the same objects (compared by identity, in C)
        and old.id == new.id
        and old.name == new.name
        and old.length == new.length
        and list(old.id_changes) == list(new.id_changes)
        and list(old.name_changes) == list(new.name_changes)
        and list(old.late_fragments) == list(new.late_fragments)
        and old.args_from_final == new.args_from_final
        and old.final_mismatch == new.final_mismatch
        and (new.final_mismatch is None or old.arguments == new.arguments)
        and (acc is not None and acc.is_orphan(new)) == (acc is not None and acc.is_orphan(old))
    )


def detect(state: StreamState, scan: QuirkScan | None = None) -> list[Quirk]:
    """Every quirk ``state`` shows, in :data:`QUIRKS` order. Pass the same ``scan`` on every
    call for one stream and each event, delta and unchanged call is scanned only once."""
    scan = scan or QuirkScan()
    wire = scan.wire
    wire.advance(state)
    rest = Seen()
    wire.conclude(state, rest)
    look = scan.look(state)
    _scan_turn(state, rest, state.provider, look)
    others = look.hits  # code -> hits outside the wire scan (this call's own)
    notes = dict(wire.seen.notes)  # code -> the first note, in the order the parts come
    for part in (rest, scan.truncation(state)):
        for code, hits in part.hits.items():
            runs = others.get(code)
            if isinstance(hits, SeqRuns):  # the tracks' conclusions: merged run by run
                others[code] = merged(runs, hits) if runs is not None else hits.copy()
                continue
            if runs is None:
                runs = others[code] = SeqRuns()
            for seq in hits:
                runs.append(seq)
        for code, note in part.notes.items():
            notes.setdefault(code, note)
    for code, note in look.notes.items():
        notes.setdefault(code, note)
    out = []
    for code, desc in QUIRKS.items():
        extra = others.get(code)
        if extra:
            got = wire.chunks(code)
            chunks = merged(extra, got if isinstance(got, SeqRuns) else SeqRuns(got))
        elif code in wire.seen.hits:
            got = wire.chunks(code)
            chunks = got.copy() if isinstance(got, SeqRuns) else SeqRuns(got)
        else:
            continue
        said = notes.get(code)
        out.append(Quirk(code, f"{desc}: {said}" if said else desc, chunks))
    return out


def _scan_turn(state: StreamState, seen: Seen, provider: Provider | None, look: Look) -> None:
    if provider is None:  # still sniffing: no deltas, no calls, not ended
        return
    for seq, note in written_notes(look.written):  # the provider left these calls as text
        seen.add("text_mode_tool_call", seq, note)
    if "sparse_index" in provider.checks and not look.gapless:
        indexes = sorted({c.index for c in state.calls if type(c.index) is int})
        if indexes and indexes != list(range(len(indexes))):
            gap = next(i for n, i in enumerate(indexes) if i != n)  # the first out-of-place one
            first = next(c for c in state.calls if c.index == gap)
            seen.add("sparse_index", first.fragments[0].seq, f"indexes {indexes}")
    calls = look.turn
    reason = state.finish_reason
    if calls and state.finish and reason != "" and not provider.is_tool_finish(reason, calls):
        seen.add(
            "finish_reason_mismatch",
            state.finish[-1][0],
            f"{reason!r} with {calls} tool call(s)",
        )
    last = state.events[-1].seq if state.events else 0
    if state.ended and not state.finish and state.events:
        seen.add("missing_finish_reason", last)
    marker = provider.end_marker
    if state.ended and marker is not None and state.done_seq is None and state.events:
        seen.add("missing_done", last, f"no {marker}")
