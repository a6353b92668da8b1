"""A stream's wire events kept in columns: a few dozen bytes per event plus its text.

:class:`EventLog` is a read-only ``Sequence[SSEEvent]`` that only the stream appends to
(:meth:`EventLog.extend`). It keeps no event object: an index, a slice or an iteration builds
fresh :class:`SSEEvent` objects that compare equal (``==``) to the ones appended.

Invariants:
- ``log[i].seq == i``: events are appended in ``seq`` order starting at 0, so ``seq`` is the
  position and is not stored.
- Per event: one kind byte, ``start`` (8 bytes) and ``end - start`` (4), one text reference
  (the data, the comment text or the error reason) and, once two times differ, an 8-byte time.
- A plain data event whose bytes lie in a chunk the log holds (:meth:`EventLog.hold`, see
  :mod:`.held` for exactly which events) keeps ``None`` for its text: its data is read back
  from the chunk whenever the event is built, equal to the text it had.
  A repeated comment text stays one shared string (the decoder shares it; the log keeps it).
- The rare fields are kept only where they occur: an event type other than ``"message"`` (a
  4-byte index into the types seen, created at the first such type), the last event ID (a
  4-byte index into the ids seen, created at the first id) and ``retry`` (a dict by seq).
- Plain events the decoder cut at once are appended from their columns
  (:class:`~.plain.PlainRun`), the event objects not read at all.
- Building events for a slice or an iteration runs in C as far as it can (``map`` over the
  columns); nothing here is ever mutated from outside the stream.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain, compress, count, repeat
from operator import add, attrgetter, is_, sub
from typing import overload

from inspector.core.base.model import EventKind, SSEEvent
from inspector.core.events.held import HeldChunks
from inspector.core.events.packed import extend, filled
from inspector.core.events.plain import PlainRun

__all__ = ["EventLog"]

_KINDS = (EventKind.EVENT, EventKind.COMMENT, EventKind.ERROR)
_CODE = {kind: code for code, kind in enumerate(_KINDS)}
_COMMENT = 1
_BLOCK = 4096
_RUN = [re.compile(b"%c+" % code) for code in range(3)]  # a run of one kind's code
_DEFAULT_TYPE = ("message", "", "")  # the type an event has when none was set, by kind code
_kind = attrgetter("kind")
_event = attrgetter("event")
_id = attrgetter("id")
_retry = attrgetter("retry")
_start = attrgetter("start")
_end = attrgetter("end")
_t = attrgetter("t")


class EventLog(Sequence[SSEEvent]):
    """Every wire event of one body, in columns (see the module's invariants)."""

    __slots__ = (
        "_derived",
        "_held",
        "_id_values",
        "_ids",
        "_kinds",
        "_retries",
        "_sizes",
        "_starts",
        "_t0",
        "_texts",
        "_times",
        "_type_codes",
        "_type_names",
        "_types",
    )

    def __init__(self, events: Iterable[SSEEvent] = ()) -> None:
        self._kinds = bytearray()
        self._starts = array("q")
        self._sizes = array("I")  # end - start: 4 bytes (8 once an event spans 4 GiB)
        self._texts: list[str | None] = []  # None: derived from a held chunk
        self._held: HeldChunks | None = None
        self._derived = 0  # how many texts are None
        self._t0 = 0.0
        self._times: array[float] | None = None  # None while every time equals _t0
        self._types: array[int] | None = None  # None while every type is its kind's default
        self._type_names: list[str] = ["message", ""]
        self._type_codes: dict[str, int] = {"message": 0, "": 1}
        self._ids: array[int] | None = None  # None while no event has an id
        self._id_values: list[str | None] = [None]
        self._retries: dict[int, int] = {}
        events = list(events)
        if events:
            self.extend(events)

    # -- appending (the stream only) -------------------------------------------------------

    def extend(
        self, events: list[SSEEvent], plain: bool = False, run: PlainRun | None = None
    ) -> None:
        """Append ``events``, whose seqs continue this log's (``events[0].seq == len(self)``):
        ``plain`` promises each is an EVENT of type "message", no id, no retry (as
        :attr:`SSEDecoder.marked` tells), so those columns are not looked at; ``run``
        (:attr:`SSEDecoder.plain`), covering exactly ``events``, gives all their columns."""
        if not events:
            return
        n = self._next(events[0].seq)
        if run is not None and run.covers(n, len(events)) and self._types is self._ids is None:
            self._extend_run(run, n)
            return
        extend(self._starts, list(map(_start, events)))
        sizes = list(map(sub, map(_end, events), map(_start, events)))
        self._add_sizes(sizes, n)
        self._add_times(filled("d", list(map(_t, events))), n)
        if plain and self._types is None and self._ids is None:
            self._kinds += bytes(len(events))
            self._add_texts(list(map(_data, events)), n, sizes, None)
            return
        kinds = bytes(map(_CODE.__getitem__, map(_kind, events)))
        self._kinds += kinds
        if _COMMENT not in kinds:
            self._add_texts(list(map(_data, events)), n, sizes, list(map(_is_plain, events)))
        elif kinds.count(_COMMENT) == len(kinds):
            self._texts += map(_comment, events)
        else:
            texts = [e.comment if e.kind == EventKind.COMMENT else e.data for e in events]
            self._add_texts(texts, n, sizes, list(map(_is_plain, events)))
        if self._types is not None or not set(map(_event, events)) <= {"message", ""}:
            self._add_types(events, n)
        if self._ids is not None or set(map(_id, events)) != {None}:
            self._add_ids(events, n)
        if set(map(_retry, events)) != {None}:
            self._retries.update((e.seq, e.retry) for e in events if e.retry is not None)

    def extend_run(self, run: PlainRun) -> None:
        """Append a decoder's plain run (:meth:`SSEDecoder.feed_plain`), no event object built
        unless the log keeps types or ids: :meth:`extend` of those events and the run."""
        if self._types is None and self._ids is None:
            self._extend_run(run, self._next(run.seq))
        else:
            self.extend(list(run.events()), True, run)

    def _next(self, seq: int) -> int:
        """The position of the next event, checked to be ``seq`` (held chunks before it go)."""
        n = len(self._kinds)
        held = self._held
        if held is not None and n and len(held.chunks) >= held.limit:  # past the events so far
            held.prune(self._starts[-1] + self._sizes[-1])
        if seq != n:
            raise ValueError(f"event #{seq} appended at position {n}")
        return n

    def _extend_run(self, run: PlainRun, n: int) -> None:
        """:meth:`extend` by a decoder's plain run's columns (plain events, none looked at)."""
        bounds, values, held = run.bounds, run.values, self._held
        extend(self._starts, bounds[:-1])
        sizes = list(map(sub, bounds[1:], bounds))
        self._add_sizes(sizes, n)
        self._add_times(filled("d", run.times), n)
        self._kinds += bytes(len(sizes))
        if held is None or not held.chunks:
            self._texts += values
        else:
            self._keep(values, held.plain(bounds, sizes, values, run.chunks))

    def _add_sizes(self, sizes: list[int], n: int) -> None:
        try:
            extend(self._sizes, sizes)
        except OverflowError:  # an event of 4 GiB or more: 8 bytes from now on
            del self._sizes[n:]  # what went in before the failing size
            self._sizes = array("q", self._sizes)
            self._sizes.extend(sizes)

    def hold(self, start: int, datas: Sequence[bytes], bounds: Sequence[int] | None = None) -> None:
        """Hold references to ``datas``, the chunks about to be decoded, fed one after
        another from absolute offset ``start`` on (the stream only, before it decodes them);
        ``bounds``: their start offsets (and the end), when the caller has them."""
        if self._held is None:
            self._held = HeldChunks()
        self._held.hold(start, datas, bounds)

    def settle(self) -> None:
        """The stream ended: let the chunks go when no event's data is derived from them."""
        if not self._derived:
            self._held = None
        elif self._kinds and self._held is not None:
            self._held.prune(self._starts[-1] + self._sizes[-1], force=True)

    @property
    def derived(self) -> int:
        """How many events' data is read back from a held chunk (not kept as text)."""
        return self._derived

    def _add_texts(
        self, datas: list[str], n: int, sizes: list[int], plain: list[bool] | None
    ) -> None:
        """Append the texts of events ``n``.. (``plain``: which ones may be derived; None:
        every one), ``None`` for each whose data a held chunk gives back."""
        held = self._held
        if held is None or not held.chunks:
            self._texts += datas
            return
        if len(datas) == 1:  # one event (a chunk fed live): no columns to build
            ok = [held.one(self._starts[n], sizes[0], datas[0], plain is None or plain[0])]
        else:
            ok = held.derivable(self._starts[n:], sizes, datas, plain)
        self._keep(datas, ok)

    def _keep(self, datas: list[str], ok: list[bool]) -> None:
        """Append the texts ``datas``, ``None`` for each derived (``ok``)."""
        derived = ok.count(True)
        if not derived:
            self._texts += datas
            return
        self._derived += derived
        if derived == len(ok):
            self._texts += repeat(None, derived)
        else:
            self._texts += [None if k else d for k, d in zip(ok, datas, strict=True)]

    def _add_times(self, times: array[float], n: int) -> None:
        if self._times is not None:
            self._times += times
            return
        if n == 0:
            self._t0 = times[0]
        if times.count(self._t0) != len(times):
            self._times = array("d", repeat(self._t0, n)) + times

    def _add_types(self, events: list[SSEEvent], n: int) -> None:
        if self._types is None:
            self._types = array("I", [0 if k == 0 else 1 for k in self._kinds[:n]])
        names, codes = self._type_names, self._type_codes
        for name in set(map(_event, events)) - codes.keys():
            codes[name] = len(names)
            names.append(name)
        self._types.extend(map(codes.__getitem__, map(_event, events)))

    def _add_ids(self, events: list[SSEEvent], n: int) -> None:
        if self._ids is None:
            self._ids = array("I", repeat(0, n))
        values, ids = self._id_values, self._ids
        for value in map(_id, events):
            if value is not None and value != values[-1]:
                values.append(value)
            ids.append(0 if value is None else len(values) - 1)

    # -- reading ---------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._kinds)

    @overload
    def __getitem__(self, index: int) -> SSEEvent: ...

    @overload
    def __getitem__(self, index: slice) -> list[SSEEvent]: ...

    def __getitem__(self, index: int | slice) -> SSEEvent | list[SSEEvent]:
        if isinstance(index, slice):
            lo, hi, step = index.indices(len(self._kinds))
            if step == 1:
                return list(self._build(lo, hi)) if hi > lo else []
            return [self._one(i) for i in range(lo, hi, step)]
        n = len(self._kinds)
        i = index + n if index < 0 else index
        if not 0 <= i < n:
            raise IndexError("event index out of range")
        return self._one(i)

    def __iter__(self) -> Iterator[SSEEvent]:
        # built in blocks (a loop that stops early builds little), chained in C
        n = len(self._kinds)
        return chain.from_iterable(map(self._block, range(0, n, _BLOCK)))

    def _block(self, lo: int) -> Iterator[SSEEvent]:
        return self._build(lo, min(len(self._kinds), lo + _BLOCK))

    def select(self, kind: str, start: int = 0) -> Iterator[SSEEvent]:
        """The events of one kind from position ``start`` on, in order, building no other
        (``select(EventKind.ERROR)`` skips a flood of comments at the cost of a byte scan)."""
        code = _CODE[kind]
        kinds = self._kinds
        if not start and kinds.count(code) == len(kinds):
            return iter(self)
        return chain.from_iterable(self._build(lo, hi) for lo, hi in self.runs(kind, start))

    def runs(self, kind: str, start: int = 0) -> Iterator[tuple[int, int]]:
        """``(lo, hi)`` per run of consecutive events of one kind from position ``start`` on
        (positions ``lo``..``hi - 1``; found by a byte scan, nothing built): a million
        keep-alives in a row are one run."""
        return (m.span() for m in _RUN[_CODE[kind]].finditer(self._kinds, start))

    def offsets(self) -> tuple[array[int], array[int]]:
        """Copies of the ``start`` and ``end`` columns (for bisecting by byte offset without
        building events; copies, so the log can still grow)."""
        return array("q", self._starts), array("q", map(add, self._starts, self._sizes))

    def time_at(self, i: int) -> float:
        """``self[i].t`` without building the event (what a timeline asks per call)."""
        times = self._times
        if not -len(self._kinds) <= i < len(self._kinds):
            raise IndexError("event index out of range")
        return times[i] if times is not None else self._t0

    def count_of(self, kind: str) -> int:
        """How many events of one kind (a byte count, nothing built)."""
        return self._kinds.count(_CODE[kind])

    def __eq__(self, other: object) -> bool:
        if isinstance(other, EventLog | list | tuple):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"EventLog({len(self)} events)"

    def _one(self, i: int) -> SSEEvent:
        kind = self._kinds[i]
        text = self._texts[i]
        if text is None and self._held is not None:
            text = self._held.text(self._starts[i], self._sizes[i])
        assert text is not None
        types, ids = self._types, self._ids
        return SSEEvent(
            i,
            _KINDS[kind],
            self._type_names[types[i]] if types is not None else _DEFAULT_TYPE[kind],
            "" if kind == _COMMENT else text,
            self._id_values[ids[i]] if ids is not None else None,
            self._retries.get(i),
            self._starts[i],
            self._starts[i] + self._sizes[i],
            self._times[i] if self._times is not None else self._t0,
            text if kind == _COMMENT else "",
        )

    def _build(self, lo: int, hi: int) -> Iterator[SSEEvent]:
        """Fresh events for positions ``lo``..``hi``, each column mapped in C."""
        kinds = self._kinds[lo:hi]
        texts: list[str] = self._filled(lo, hi) if self._derived else self._texts[lo:hi]  # type: ignore[assignment]
        names, types, ids = self._type_names, self._types, self._ids
        events: Iterable[str] = (
            map(names.__getitem__, types[lo:hi])
            if types is not None
            else map(_DEFAULT_TYPE.__getitem__, kinds)
        )
        datas: Iterable[str]
        comments: Iterable[str]
        if _COMMENT not in kinds:
            datas, comments = texts, repeat("")
        elif kinds.count(_COMMENT) == len(kinds):
            datas, comments = repeat(""), texts
        else:
            datas = [t if k != _COMMENT else "" for k, t in zip(kinds, texts, strict=True)]
            comments = [t if k == _COMMENT else "" for k, t in zip(kinds, texts, strict=True)]
        id_col: Iterable[str | None] = (
            map(self._id_values.__getitem__, ids[lo:hi]) if ids is not None else repeat(None)
        )
        retries: Iterable[int | None] = (
            map(self._retries.get, range(lo, hi)) if self._retries else repeat(None)
        )
        times: Iterable[float] = self._times[lo:hi] if self._times is not None else repeat(self._t0)
        starts = self._starts[lo:hi]
        ends = map(add, starts, self._sizes[lo:hi])
        kind_names: Iterable[str] = map(_KINDS.__getitem__, kinds)
        return map(
            SSEEvent, range(lo, hi), kind_names, events, datas, id_col, retries, starts, ends,
            times, comments,
        )  # fmt: skip

    def _filled(self, lo: int, hi: int) -> list[str]:
        """The texts of positions ``lo``..``hi``, the derived ones read back."""
        texts = self._texts[lo:hi]
        held = self._held
        missing = texts.count(None)
        if not missing or held is None:
            return texts  # type: ignore[return-value]
        starts, sizes = self._starts[lo:hi], self._sizes[lo:hi]
        if missing == len(texts):
            return held.texts(starts, sizes)
        where = list(compress(count(), map(is_, texts, repeat(None))))
        got = held.texts(list(map(starts.__getitem__, where)), list(map(sizes.__getitem__, where)))
        found: dict[int, str | None] = dict(zip(where, got, strict=True))
        return list(map(found.get, count(), texts))  # type: ignore[arg-type]


_data = attrgetter("data")
_comment = attrgetter("comment")


def _is_plain(event: SSEEvent) -> bool:
    """An EVENT of type "message" with no id and no retry (its data may be derived)."""
    return (
        event.kind == EventKind.EVENT
        and event.event == "message"
        and event.id is None
        and event.retry is None
    )
