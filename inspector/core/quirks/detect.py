"""Provider quirks visible in one response, each with a stable code and the chunks showing it.

Invariants:
- Detection is a pure function of a :class:`StreamState` (its deltas, events and accumulated
  calls): the same stream always yields the same quirks, in a stable order (the registry's,
  :data:`~inspector.core.quirks.registry.REGISTRY`), each message starting with its code's
  meaning there.
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
  :data:`~inspector.core.quirks.registry.PROVIDER_CHECKS` apply, its end marker and its
  tool finish reasons. No provider is named here.
- Incremental with a :class:`QuirkScan`: the wire-level half
  (:mod:`inspector.core.quirks.wirescan`, handing each fragment to the ``lanes`` family and
  each other delta and event to the ``events`` family) reads each event and delta once, and
  survives policy flips; a call is scanned again only when it changed (new fragments, a new
  accumulator; the ``calls`` family); a cut hidden by a normal finish is looked for again
  only when deltas arrived after that finish, in O(lanes) (each lane's text is followed as a
  JSON state as it streams; the ``turn`` family). The
  result always equals a fresh ``detect(state)`` on the same state, so asking on every UI
  flush costs O(new data).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from inspector.core.base.provider import Provider
from inspector.core.calls.stream import StreamState
from inspector.core.calls.toolcall import ToolCall
from inspector.core.quirks.calls.findings import Findings, FindingsTable, flat
from inspector.core.quirks.calls.fold import CallFold, Look, ToolDeltas
from inspector.core.quirks.calls.scan import scan_call
from inspector.core.quirks.registry import REGISTRY
from inspector.core.quirks.seen import Seen
from inspector.core.quirks.seqruns import SeqRuns, merged
from inspector.core.quirks.turn.scan import Truncation, scan_turn
from inspector.core.quirks.wirescan import WireScan


@dataclass
class Quirk:
    """One quirk seen in a stream."""

    code: str
    """Stable code (a constant of :mod:`inspector.core.quirks.codes`)."""
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
        self._cut = Truncation()
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
        """``silent_truncation`` per wire lane, once the finish claims a normal end
        (:class:`~inspector.core.quirks.turn.scan.Truncation`)."""
        return self._cut.seen(state, self.wire)

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
    """Every quirk ``state`` shows, in report order (the registry's). Pass the same ``scan``
    on every call for one stream and each event, delta and unchanged call is scanned only
    once."""
    scan = scan or QuirkScan()
    wire = scan.wire
    wire.advance(state)
    rest = Seen()
    wire.conclude(state, rest)
    look = scan.look(state)
    scan_turn(state, rest, state.provider, look)
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
    for info in REGISTRY:
        code = info.code
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
        desc = info.meaning
        out.append(Quirk(code, f"{desc}: {said}" if said else desc, chunks))
    return out
