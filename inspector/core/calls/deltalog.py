"""A stream's deltas, with the keep-alives that only restate a comment kept without objects.

:class:`DeltaLog` is a read-only ``Sequence[AnyDelta]`` that only the stream appends to
(:meth:`DeltaLog.extend`). Tool-call fragments and every other delta are kept as the objects
the dialect made (a :class:`ToolCallDelta` routed to a call is the very object the call
holds). A KEEPALIVE delta that restates a comment event (``Delta(seq, KEEPALIVE, text)`` with
no ``raw``, what a dialect makes of ``: keep-alive``) joins a run: consecutive positions whose
seqs are consecutive and whose text is the same are one entry, so a million keep-alives in a
row are one small object. Asking for such a position builds a fresh ``Delta`` equal in every
field to the one appended.

Invariants:
- ``len``, indexing, slicing and iteration give the deltas in the order they were appended,
  each with the same ``seq``, ``kind``, ``value`` and ``raw``; never rely on the identity of a
  keep-alive delta read back (a fresh object per access), only of the others.
- Until the first run, the entries are the deltas themselves (reading is a list's reading);
  from then on ``_pos`` holds each entry's first position (a bisect finds an index's entry).
- :meth:`DeltaLog.stored` walks the deltas that routing acts on (every one except those
  keep-alives) without building anything.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain, islice
from operator import attrgetter
from typing import TypeGuard, overload

from inspector.core.base.model import AnyDelta, Delta, DeltaKind

__all__ = ["DeltaLog"]

_KEEPALIVE = DeltaKind.KEEPALIVE
_kind = attrgetter("kind")
_raw = attrgetter("raw")
_value = attrgetter("value")


class _Run:
    """``count`` keep-alives restating comments, with seqs ``seq``.. and the same text."""

    __slots__ = ("count", "seq", "text")

    def __init__(self, seq: int, text: str, count: int) -> None:
        self.seq = seq
        self.text = text
        self.count = count

    def at(self, offset: int) -> Delta:
        return Delta(self.seq + offset, _KEEPALIVE, self.text)

    def follows(self, d: Delta) -> bool:
        """True when ``d`` continues this run (next seq, same text)."""
        return d.seq == self.seq + self.count and (d.value is self.text or d.value == self.text)


def _restated(d: AnyDelta) -> TypeGuard[Delta]:
    """True for a keep-alive that only restates a comment event (nothing else to keep)."""
    return type(d) is Delta and d.kind == _KEEPALIVE and d.raw is None and type(d.value) is str


def _expand(item: AnyDelta | _Run) -> Iterable[AnyDelta]:
    return map(item.at, range(item.count)) if type(item) is _Run else (item,)  # type: ignore[return-value]


class DeltaLog(Sequence[AnyDelta]):
    """Every normalized delta of one body, in arrival order (see the module's invariants)."""

    __slots__ = ("_items", "_n", "_pos")

    def __init__(self) -> None:
        self._items: list[AnyDelta | _Run] = []
        self._pos: array[int] | None = None  # each entry's first position, once a run exists
        self._n = 0

    def extend(self, batch: list[AnyDelta]) -> None:
        """Append a batch of deltas (keep-alives that restate comments join runs)."""
        if not batch:
            return
        items, pos = self._items, self._pos
        if _KEEPALIVE not in map(_kind, batch):
            if pos is not None:
                pos.extend(range(self._n, self._n + len(batch)))
            items += batch
            self._n += len(batch)
            return
        if self._one_run(batch):
            return
        for d in batch:  # inline: once per delta of a keep-alive flood
            last = items[-1] if items else None
            if d.kind is not _KEEPALIVE or not _restated(d):
                self._add(d)
            elif type(last) is _Run and last.follows(d):
                last.count += 1
                self._n += 1
            else:
                self._add(_Run(d.seq, d.value, 1))

    def _add(self, item: AnyDelta | _Run) -> None:
        """Append one entry (a delta, or a new run of ``count`` keep-alives)."""
        if self._pos is None and type(item) is _Run:
            self._pos = array("q", range(len(self._items)))
        if self._pos is not None:
            self._pos.append(self._n)
        self._items.append(item)
        self._n += item.count if type(item) is _Run else 1

    def _one_run(self, batch: list[AnyDelta]) -> bool:
        """Append ``batch`` at once when it is one run of keep-alives restating comments (what
        a flood of them gives, slice after slice); False, appending nothing, otherwise."""
        first, n = batch[0], len(batch)
        if (
            batch[-1].seq - first.seq != n - 1  # seqs strictly increase: consecutive
            or set(map(type, batch)) != {Delta}
            or set(map(_kind, batch)) != {_KEEPALIVE}
            or list(map(_raw, batch)).count(None) != n  # equality, not hashing: raw may be a dict
            or not _restated(first)
            or list(map(_value, batch)).count(first.value) != n
        ):
            return False
        last = self._items[-1] if self._items else None
        if type(last) is _Run and last.follows(first):
            last.count += n
            self._n += n
        else:
            self._add(_Run(first.seq, first.value, n))
        return True

    def stored(self, start: int = 0) -> Iterator[AnyDelta]:
        """The deltas kept as objects from position ``start`` on, in order: all but the
        keep-alives restating comments (a reader that skips those builds nothing)."""
        pos = self._pos
        if pos is None:
            return iter(self._items[start:] if start else self._items)  # type: ignore[arg-type]
        items = self._items[bisect_left(pos, start) :]
        return (d for d in items if type(d) is not _Run)  # type: ignore[misc]

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, index: int) -> AnyDelta: ...

    @overload
    def __getitem__(self, index: slice) -> list[AnyDelta]: ...

    def __getitem__(self, index: int | slice) -> AnyDelta | list[AnyDelta]:
        if self._pos is None:
            return self._items[index]  # type: ignore[return-value]
        if isinstance(index, slice):
            lo, hi, step = index.indices(self._n)
            if step != 1:
                return [self._one(i) for i in range(lo, hi, step)]
            return list(islice(self._from(lo), max(0, hi - lo)))
        i = index + self._n if index < 0 else index
        if not 0 <= i < self._n:
            raise IndexError("delta index out of range")
        return self._one(i)

    def _one(self, i: int) -> AnyDelta:
        k = bisect_right(self._pos, i) - 1  # type: ignore[arg-type]
        item = self._items[k]
        return item.at(i - self._pos[k]) if type(item) is _Run else item  # type: ignore[index,return-value]

    def _from(self, lo: int) -> Iterator[AnyDelta]:
        """Every delta from position ``lo`` on (a run it falls in, from there)."""
        if self._pos is None or lo >= self._n:
            return iter(self._items[lo:])  # type: ignore[arg-type]
        k = bisect_right(self._pos, lo) - 1
        item, skip = self._items[k], lo - self._pos[k]
        head = map(item.at, range(skip, item.count)) if type(item) is _Run else iter((item,))
        return chain(head, chain.from_iterable(map(_expand, self._items[k + 1 :])))  # type: ignore[arg-type]

    def __iter__(self) -> Iterator[AnyDelta]:
        if self._pos is None:
            return iter(self._items)  # type: ignore[arg-type]
        return chain.from_iterable(map(_expand, self._items))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, DeltaLog | list | tuple):
            return len(self) == len(other) and all(map(_same, self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"DeltaLog({len(self)} deltas)"


def _same(a: object, b: object) -> bool:
    """The same delta: the very object, or two keep-alives equal in every field."""
    if a is b:
        return True
    return (
        type(a) is Delta
        and type(b) is Delta
        and a.kind == _KEEPALIVE
        and (a.seq, a.kind, a.value, a.raw) == (b.seq, b.kind, b.value, b.raw)
    )
