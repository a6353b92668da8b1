"""One response body, end to end: bytes -> wire events -> dialect deltas -> accumulated calls.

The dialect comes from the layer above (a provider's, or the ``auto`` one that sniffs); this
module knows no provider, only the :class:`~inspector.core.base.provider.Dialect` protocol.

Invariants:
- Data flows one way. The live path and capture replay both call :meth:`StreamState.feed`
  with the bytes and arrival time of each chunk, so they run exactly the same code.
- ``events`` and ``deltas`` are append-only and policy-independent. Changing the empty-id
  policy (:meth:`StreamState.rejudge`) rebuilds only the accumulator, from ``deltas``.
- Per chunk the work is O(chunk): decode, map, route. Nothing re-scans earlier data; JSON
  progress and validation happen later, when a view or the report asks.
- ``events`` and ``deltas`` are compact logs (:class:`EventLog`, :class:`DeltaLog`): read them
  as sequences; an event (or a keep-alive delta) read back is a fresh, equal object.
- The stream holds a reference to every chunk it is fed (the very ``bytes`` object, never a
  slice or a copy of it), so a plain data event keeps no text: the event log reads its data back
  from the chunk (:mod:`inspector.core.events.held`). Held by rule, not by a heuristic: every
  caller in the app feeds bytes that live as long as the stream anyway (a capture attempt's
  ``chunks``: the live client appends each chunk to its attempt before feeding it, the capture
  reader and a raw body keep theirs, the replayer feeds its plan's pieces), so a reference costs
  16 bytes a chunk where the texts cost about the input again. A caller that feeds bytes nobody
  else keeps (:func:`~inspector.core.providers.analyze_bytes`) pays the chunks instead of
  the texts, about the same for data events; and a stream that derived no event's data (all
  comments, typed events or ids) lets its chunks go when it ends.
- The bytes are framed into events by the provider's :class:`~inspector.core.base.provider.Framing`
  (SSE unless the provider says otherwise; an ``auto`` dialect's body is framed as SSE, the
  default): the event log and the raw pane hold the frames it cuts. Only a framing that
  ``reads_back`` has its chunks held for plain events' data.
- Transient memory is bounded: a chunk (or a run of chunks) larger than ``SLICE`` bytes is
  decoded in slices cut after a line feed, and each slice's events are mapped and routed
  before the next is decoded (the decoder's result does not depend on the chunking).
- The accumulator is created at the first delta (or the end), when the dialect names its
  provider: the provider's closing rule is the accumulator's.
- Calls written in the assistant text (:mod:`inspector.core.calls.textcalls`) are read from
  the text deltas as they are routed, into the accumulator's ``calls``; a finish, the end
  marker and the end of the body end the text.
"""

from __future__ import annotations

import builtins
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate
from operator import attrgetter, itemgetter
from typing import Any

from inspector.core.base.model import OMITTED, AnyDelta, Delta, DeltaKind, SSEEvent
from inspector.core.base.provider import Dialect, FrameDecoder, Framing, Provider
from inspector.core.base.settings import ABSENT, EmptyIdPolicy
from inspector.core.calls.accumulator import Accumulator
from inspector.core.calls.deltalog import DeltaLog
from inspector.core.calls.textcalls import TextCalls
from inspector.core.events.log import EventLog
from inspector.core.events.plain import PlainRun, joined_runs
from inspector.core.events.sse import SSE

_TOOL = DeltaKind.TOOL_CALL
_KEEPALIVE = DeltaKind.KEEPALIVE
_data = itemgetter(1)
_seq = attrgetter("seq")

SLICE = 1 << 18
"""Bytes decoded at once at most (more or less: slices are cut after a line feed)."""


class StreamState:
    """Everything known about one streamed response so far."""

    def __init__(self, dialect: Dialect, empty_id: EmptyIdPolicy = ABSENT) -> None:
        provider = dialect.provider
        if provider is not None:
            self.framing: Framing = provider.framing
        else:
            self.framing = getattr(dialect, "framing", SSE)
        """How the body's bytes become events: its provider's framing; an ``auto`` dialect's
        own (picked from the first bytes), else SSE, the default."""
        self.decoder: FrameDecoder = self.framing.decoder()
        """The incremental frame decoder (keeps byte offsets; SSE's keeps comments)."""
        self._holds = self.framing.reads_back
        self._picking = getattr(self.decoder, "decided", False) is None  # still picking one
        self.dialect = dialect
        """The dialect mapper (a fresh one per body); an ``auto`` one sniffs, then delegates."""
        self.events = EventLog()
        """Every wire event in arrival order; ``events[i].seq == i``."""
        self.deltas = DeltaLog()
        """Every normalized delta in arrival order."""
        self.empty_id = empty_id
        """The empty-id policy the accumulator runs under."""
        self.acc: Accumulator | None = None
        """Created at the first delta, once the dialect is known."""
        self.text_calls: TextCalls | None = None
        """Reads the calls written in the text (created with the first text delta)."""
        self.text: list[str] = []
        """Assistant text deltas, in order."""
        self.reasoning: list[str] = []
        """Reasoning deltas, in order."""
        self.finish: list[tuple[int, Any]] = []
        """(seq, reason) of every finish/stop reason seen."""
        self.usage: Any = None
        """The last usage object seen."""
        self.errors: list[Delta] = []
        """Provider errors after 200 and wire decoding errors."""
        self.results: list[Delta] = []
        """RESULT deltas, in order: what the stream reported of its items' execution (a hosted
        tool's results, an ``*_output`` item); read beside a call with :meth:`results_of`."""
        self.done_seq: int | None = None
        """Sequence number of the end-of-stream marker ([DONE], message_stop, …)."""
        self.segment_start = -1
        """The end marker the last finish came after (-1: none): a body that joins several
        responses (a second ``message_start`` after ``message_stop``) ends with the calls made
        since it, not with every call of the body."""
        self._last_done: int | None = None
        self.ended = False
        """True once the body ended (EOF or the connection closed)."""

    @property
    def bytes(self) -> int:
        """Bytes fed so far (the decoder counts them)."""
        return self.decoder.offset

    @property
    def provider(self) -> Provider | None:
        """The provider whose stream this is (None while ``auto`` is still sniffing)."""
        return self.dialect.provider

    @property
    def complete(self) -> bool:
        """The provider said its stream is over: its end marker was seen ([DONE],
        message_stop, response.completed), or, for a provider with none (Gemini), a finish
        reason arrived. What happens to the connection afterwards (an agent hanging up, a
        cut) changes nothing about the stream."""
        if self.done_seq is not None:
            return True
        provider = self.dialect.provider
        return provider is not None and provider.end_marker is None and bool(self.finish)

    @property
    def dialect_name(self) -> str | None:
        """The provider's name (None while ``auto`` is still sniffing)."""
        provider = self.dialect.provider
        return provider.name if provider is not None else None

    # -- feeding -------------------------------------------------------------------------

    def feed(self, data: builtins.bytes, t: float = 0.0) -> int:
        """Take one chunk of the body; return how many wire events it completed."""
        if data and self._holds:
            self.events.hold(self.decoder.offset, (data,))
        return self._feed_whole(data, t)

    def _feed_whole(self, data: builtins.bytes, t: float) -> int:
        if len(data) > SLICE:
            return sum(self._feed_one(piece, t) for piece in _slices(data))
        return self._feed_one(data, t)

    def _feed_one(self, data: builtins.bytes, t: float) -> int:
        marked = self.decoder.marked
        events = self.decoder.feed(data, t)
        if self._picking:
            self._picked()
        if events:
            self._ingest(events, self.decoder.marked == marked)
        return len(events)

    def _picked(self) -> None:
        """Once an ``auto`` body's framing is picked, feed the chosen decoder directly."""
        decided = getattr(self.decoder, "decided", None)
        if decided is not None:
            self.framing = self.decoder.framing  # type: ignore[attr-defined]
            self.decoder = decided
            self._holds = self.framing.reads_back
            self._picking = False

    def feed_many(self, chunks: Sequence[tuple[float, builtins.bytes]]) -> int:
        """Take several ``(t, data)`` chunks at once: the same state as feeding them one by
        one (see :meth:`~inspector.core.events.sse.SSEDecoder.feed_many`); return how many wire
        events they completed.

        They are decoded about ``SLICE`` bytes at a time, and a larger chunk alone in slices."""
        datas = list(map(_data, chunks))
        bounds = list(accumulate(map(len, datas), initial=self.decoder.offset))
        if self._holds:
            self.events.hold(bounds[0], datas, bounds)
        del datas
        n = lo = 0
        while lo < len(chunks):  # chunks lo..hi-1: those ending by bounds[lo] + SLICE
            hi = bisect_right(bounds, bounds[lo] + SLICE, lo + 1) - 1
            if self.decoder.fresh:  # the first chunk decides whether a BOM leads: alone
                hi = lo
            if hi == lo:  # one chunk over SLICE (or the first)
                n += self._feed_whole(chunks[lo][1], chunks[lo][0])
                hi = lo + 1
            elif (run := self._plain_run(chunks[lo:hi], bounds[lo : hi + 1])) is not None:
                n += len(run.values)
            else:
                n += self._feed_reads(chunks[lo:hi], bounds[lo : hi + 1])
            lo = hi
        return n

    def end(self, t: float | None = None) -> None:
        """The body ended: flush the decoder and dialect, and mark open calls truncated."""
        if self.ended:
            return
        self.ended = True
        events = self.decoder.close(t)
        if self._picking:
            self._picked()
        batch: list[AnyDelta] = []
        if events:
            self.events.extend(events)
            for ev in events:
                self.dialect.feed(ev, batch)
        self.dialect.finish(batch)
        self.deltas.extend(batch)
        self._route(batch)
        if self.text_calls is not None:
            self.text_calls.end(None, "end_of_stream")
        self._accumulator().end_of_stream()
        self.events.settle()

    def _ingest(self, events: list[SSEEvent], plain: bool) -> None:
        self.events.extend(events, plain, self.decoder.plain)
        batch: list[AnyDelta] = []
        dialect = self.dialect
        if dialect.provider is None:  # auto, still sniffing: through the wrapper until decided
            events = self._sniffing(events, batch)
        feed = dialect.direct.feed  # auto, once decided: skips the wrapper
        for ev in events:
            feed(ev, batch)
        if batch:
            self.deltas.extend(batch)
            self._route(batch)

    def _feed_reads(self, chunks: Sequence[tuple[float, builtins.bytes]], bounds: list[int]) -> int:
        """Decode chunks that are not one plain event each (network reads, say): the plain
        events the decoder cut at once go to the dialect as runs (``feed_run``, as
        :meth:`_plain_run`) when it maps runs, the others as events, all in ``seq`` order;
        return how many events they completed."""
        decoder = self.decoder
        marked = decoder.marked
        dialect = self.dialect
        feed_lazy = getattr(decoder, "feed_lazy", None)
        lazy = dialect.provider is not None and hasattr(dialect.direct, "feed_run")
        if feed_lazy is None or not lazy or not isinstance(chunks, list):
            events = decoder.feed_many(chunks, bounds)
            if events:
                self._ingest(events, decoder.marked == marked)
            return len(events)
        events, runs = feed_lazy(chunks, bounds)
        plain = decoder.marked == marked
        n = len(events)
        i = 0
        for run in joined_runs(runs):
            n += len(run.values)
            j = bisect_left(events, run.seq, i, key=_seq) if events else 0
            if j > i:
                self._ingest(events[i:j], plain)
            self._take_run(run)
            i = j
        if i < len(events):
            self._ingest(events[i:] if i else events, plain)
        return n

    def _plain_run(
        self, chunks: Sequence[tuple[float, builtins.bytes]], bounds: list[int]
    ) -> PlainRun | None:
        """Take ``chunks`` as a plain run when each is one plain data event and the dialect
        maps such runs (``feed_run``): no event object on the way unless the dialect needs
        one; None, taking nothing, otherwise."""
        dialect = self.dialect
        feed_run = getattr(dialect.direct, "feed_run", None) if dialect.provider else None
        if feed_run is None:
            return None
        run: PlainRun | None = self.decoder.feed_plain(chunks, bounds)
        if run is None:
            return None
        self._take_run(run)
        return run

    def _take_run(self, run: PlainRun) -> None:
        """Log a decoder's plain run and map it (the dialect's ``feed_run``), as
        :meth:`_ingest` does its events."""
        self.events.extend_run(run)
        batch: list[AnyDelta] = []
        spans: list[tuple[int, int]] = []
        self.dialect.direct.feed_run(run, batch, spans)  # type: ignore[attr-defined]
        if batch:
            self.deltas.extend(batch)
            if spans:
                self._route_spans(batch, spans)
            else:
                self._route(batch)

    def _route_spans(self, batch: list[AnyDelta], spans: list[tuple[int, int]]) -> None:
        """Route ``batch``, each span of continuation fragments of one index at once."""
        acc, pos = self._accumulator(), 0
        for start, stop in spans:
            if pos < start:
                self._route(batch[pos:start])
            run = batch[start:stop]
            if not acc.add_run(run):  # type: ignore[arg-type]
                self._route(run)
            pos = stop
        if pos < len(batch):
            self._route(batch[pos:])

    def _sniffing(self, events: list[SSEEvent], batch: list[AnyDelta]) -> list[SSEEvent]:
        """Feed the wrapping ``auto`` dialect until it decides; return the events left."""
        dialect = self.dialect
        for k, ev in enumerate(events):
            dialect.feed(ev, batch)
            if dialect.provider is not None:
                return events[k + 1 :]
        return []

    def _accumulator(self) -> Accumulator:
        if self.acc is None:
            provider = self.dialect.provider
            if provider is None:
                raise RuntimeError("a dialect must name its provider before its first delta")
            self.acc = Accumulator(self.empty_id, provider.closing)
        return self.acc

    def _route(self, deltas: Iterable[AnyDelta]) -> None:
        acc = self._accumulator()
        add = acc.add
        for d in deltas:
            kind = d.kind
            if kind is _TOOL:
                add(d)  # type: ignore[arg-type]
            elif kind is not _KEEPALIVE:  # a keep-alive changes nothing routed
                self._other(acc, d)  # type: ignore[arg-type]

    def _other(self, acc: Accumulator, d: Delta) -> None:
        kind = d.kind
        if kind == DeltaKind.TEXT:
            self.text.append(d.value)
            if self.text_calls is None:
                self.text_calls = TextCalls(acc.calls)
            self.text_calls.feed(d.seq, d.value)
        elif kind == DeltaKind.REASONING:
            self.reasoning.append(d.value)
        elif kind == DeltaKind.USAGE:
            self.usage = d.value
        elif kind == DeltaKind.ERROR:
            self.errors.append(d)
        elif kind == DeltaKind.FINISH:
            self.finish.append((d.seq, d.value))
            if self._last_done is not None:
                self.segment_start = self._last_done
            acc.on_delta(d)
            if self.text_calls is not None:
                self.text_calls.end(d.seq, "finish")
        elif kind == DeltaKind.DONE:
            if self.done_seq is None:
                self.done_seq = d.seq
            self._last_done = d.seq
            acc.on_delta(d)
            if self.text_calls is not None:
                self.text_calls.end(d.seq, "done")
        elif kind == DeltaKind.CLOSE:
            acc.on_delta(d)
        elif kind == DeltaKind.RESULT:
            self.results.append(d)

    # -- re-judging ----------------------------------------------------------------------

    def fork(self, empty_id: EmptyIdPolicy) -> StreamState:
        """The same ended stream under another empty-id policy: its events and deltas are
        shared, not copied or decoded again (they are policy-independent and, once the stream
        has ended, never change); only the accumulation is redone. For side-by-side views."""
        if not self.ended:
            raise ValueError("only an ended stream can be forked (its lists still grow)")
        other = StreamState(self.dialect, empty_id)
        other.decoder = self.decoder
        other.events, other.deltas = self.events, self.deltas
        other.ended = True
        other.rejudge(empty_id)
        return other

    def rejudge(self, empty_id: EmptyIdPolicy) -> None:
        """Re-run accumulation under another empty-id policy over the same deltas."""
        self.empty_id = empty_id
        self.acc = None
        self.text_calls = None
        self.text.clear()
        self.reasoning.clear()
        self.finish.clear()
        self.errors.clear()
        self.results.clear()
        self.usage = None
        self.done_seq = None
        self.segment_start, self._last_done = -1, None
        if self.deltas:  # none yet: the provider may still be unknown, and nothing to route
            self._route(self.deltas.stored())
        if self.ended:
            self._accumulator().end_of_stream()

    # -- reading -------------------------------------------------------------------------

    @property
    def calls(self) -> list[Any]:
        """Every call opened so far (orphans included), in lane order."""
        return self.acc.calls if self.acc is not None else []

    def results_of(self, call: Any) -> list[Delta]:
        """The RESULT deltas reported for ``call``: those whose ``id`` is the call's id or its
        wire item id (``extra["item_id"]``); for an item with no id (Gemini's code execution)
        the results that follow it up to the next item with none."""
        if not self.results or not call.fragments:
            return []
        extra = call.fragments[0].extra
        keys = {call.id} if type(call.id) is str else set()
        if isinstance(extra, dict) and isinstance(extra.get("item_id"), str):
            keys.add(extra["item_id"])
        if keys:
            return [d for d in self.results if _str_id(d) in keys]
        start = call.fragments[0].seq
        later = [c.fragments[0].seq for c in self.calls
                 if c.id in (None, OMITTED) and c.fragments[0].seq > start]  # fmt: skip
        end = min(later) if later else None
        return [d for d in self.results if d.value.get("id") is None and d.seq >= start
                and (end is None or d.seq < end)]  # fmt: skip

    @property
    def finish_reason(self) -> Any:
        """The last finish/stop reason seen, or None."""
        return self.finish[-1][1] if self.finish else None

    @property
    def full_text(self) -> str:
        """All assistant text so far."""
        return "".join(self.text)


def _slices(data: bytes) -> Iterator[bytes]:
    """``data`` in pieces of about ``SLICE`` bytes, each cut just after a line feed; a line
    longer than that stays whole in its piece (and ``data`` itself when nothing precedes it)."""
    pos, n = 0, len(data)
    while n - pos > SLICE:
        cut = data.rfind(b"\n", pos, pos + SLICE) + 1
        if cut <= pos:  # no line feed in the window: the piece runs to the end of the line
            cut = data.find(b"\n", pos + SLICE) + 1
            if cut == 0 or (pos == 0 and n - cut <= SLICE):
                break  # the rest is one line (or one long line and a short tail): whole
        yield data[pos:cut]
        pos = cut
    yield data[pos:] if pos else data


def _str_id(d: Delta) -> str | None:
    """A RESULT's ``id`` when it is a string (a wire id of another type names nothing)."""
    got = d.value.get("id")
    return got if type(got) is str else None
