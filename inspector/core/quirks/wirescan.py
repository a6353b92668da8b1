"""The one pass quirk detection makes over a stream's events and deltas, kept incremental:
each new event and delta is read once, however often a view asks for the quirks, and handed
to its family's detector (tool-call fragments: :mod:`.lanes.scan`; events and the other
deltas: :mod:`.events.scan`).

Invariants:
- A :class:`WireScan` reads only ``StreamState.events`` and ``StreamState.deltas``, which are
  append-only and the same under every empty-id policy, so one scan serves the stream for its
  whole life, across policy flips (only the call-level half in :mod:`inspector.core.quirks.detect`
  is redone then).
- ``advance`` scans exactly the events and deltas appended since the last call, in arrival
  order, so the hits (and the first note per code) are those a single pass over the finished
  stream records; a provider that changes under it (``auto`` deciding) restarts the scan.
- The checks in :data:`~inspector.core.quirks.registry.PROVIDER_CHECKS` run only for a
  provider that lists them in its ``checks``; while the provider is unknown (``auto`` still
  sniffing, so no deltas yet) none do.
- Hits arrive in stream order, so a code's hits are almost always non-decreasing: the scan
  keeps them as :class:`~inspector.core.quirks.seqruns.SeqRuns`, de-duplicated as they come
  (merging again only when one points back), so a long stream's hits are neither sorted on
  every ask nor kept one int object per chunk (a million keep-alives make two runs).
- Conclusions that need the whole stream (``data_after_done``, ``id_repeated_every_chunk``,
  ``name_repeated_every_chunk``, ``missing_call_id``) are drawn by :meth:`WireScan.conclude`
  into a separate collector, never into the scan's own.
- A delta is told apart by ``isinstance`` and its ``kind``, never by its exact class (a plain
  run's deltas are instances of a subclass: :mod:`inspector.core.providers.shapememo.runs`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from inspector.core.base.model import ToolCallDelta
from inspector.core.base.provider import Provider
from inspector.core.calls.stream import StreamState
from inspector.core.quirks.events.scan import EventScan
from inspector.core.quirks.lanes.plainrun import END
from inspector.core.quirks.lanes.scan import LaneScan
from inspector.core.quirks.lanes.text import LaneTexts
from inspector.core.quirks.seen import Seen
from inspector.core.quirks.seqruns import SeqRuns

_LIST_ITERATOR: Final[type[Any]] = type(iter([]))


class WireScan:
    """Scan state of one stream's events and deltas (see the module docstring)."""

    lane_scan: type[LaneScan] = LaneScan
    """The ``lanes`` family's detector a scan starts (a test may give a plainer one)."""

    def __init__(self) -> None:
        self._reset(None)

    def _reset(self, provider: Provider | None) -> None:
        self.seen = Seen(compact=True)
        """What the events and deltas scanned so far show."""
        self.provider = provider
        """The provider the scan ran under (None: not known yet)."""
        checks = provider.checks if provider is not None else frozenset()
        self.lanes = self.lane_scan(self.seen, checks)
        """The tool-call fragments' detector."""
        self.events = EventScan(self.seen)
        """The events' and the other deltas' detector."""
        self.deltas_done = 0

    @property
    def events_done(self) -> int:
        """Events scanned."""
        return self.events.events_done

    @property
    def tool_deltas(self) -> int:
        """Tool-call deltas among the deltas scanned."""
        return self.lanes.tool_deltas

    @property
    def texts(self) -> LaneTexts:
        """Every wire lane's argument text as a JSON state (the ``silent_truncation`` check)."""
        return self.lanes.texts

    def advance(self, state: StreamState) -> None:
        """Scan what ``state`` received since the last call."""
        provider = state.provider
        if provider is not self.provider:
            self._reset(provider)
        self.events.events(state.events)
        deltas = state.deltas
        n = len(deltas)
        items = deltas.stored(self.deltas_done)  # keep-alives restating comments: skipped
        if type(items) is not _LIST_ITERATOR:  # a run counts what it consumed by what is left
            items = iter(list(items))
        tool = self.lanes.tool
        other = self.events.delta
        d: Any = next(items, END)
        while d is not END:
            if isinstance(d, ToolCallDelta):
                d = tool(d, items)  # the next item (a run of plain ones consumed)
                continue
            other(d)
            d = next(items, END)
        self.lanes.texts.flush(state.calls)
        self.deltas_done = n

    def chunks(self, code: str) -> Sequence[int]:
        """``code``'s hits so far, ascending and de-duplicated (kept so as they come: the scan
        collects them as :class:`~inspector.core.quirks.seqruns.SeqRuns`). Do not modify:
        a reader that keeps them while the scan goes on keeps a copy."""
        return self.seen.hits.get(code) or ()

    def conclude(self, state: StreamState, out: Seen) -> None:
        """Add to ``out`` what only the stream so far as a whole shows."""
        self.events.after_done(state, out)
        concluded = self.lanes.conclusions()
        for code, runs in concluded.hits.items():
            got = out.hits.get(code)
            if got is None:
                out.hits[code] = runs.copy() if isinstance(runs, SeqRuns) else list(runs)
            else:
                for seq in runs:
                    got.append(seq)
        for code, note in concluded.notes.items():
            out.notes.setdefault(code, note)
