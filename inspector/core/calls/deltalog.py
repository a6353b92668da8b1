"""A stream's deltas, with the keep-alives that only restate a comment kept without objects.

:class:`DeltaLog` is a read-only ``Sequence[AnyDelta]`` that only the stream appends to
(:meth:`DeltaLog.extend`). Tool-call fragments and every other delta are kept as the objects
the dialect made (a :class:`ToolCallDelta` routed to a call is the very object the call
holds). A KEEPALIVE delta that restates a comment event (``Delta(seq, KEEPALIVE, text)`` with
no ``raw``, what a dialect makes of ``: keep-alive``) is kept as one reference to a shared run:
a run covers consecutive positions whose seqs are consecutive and whose text is the same, so a
million keep-alives in a row hold one run object and a list slot each. Asking for such a
position builds a fresh ``Delta`` equal in every field to the one appended.

Invariants:
- ``len``, indexing, slicing and iteration give the deltas in the order they were appended,
  each with the same ``seq``, ``kind``, ``value`` and ``raw``; never rely on the identity of a
  keep-alive delta read back (a fresh object per access), only of the others.
- :meth:`DeltaLog.stored` walks the deltas that routing acts on (every one except those
  keep-alives) without building anything.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from operator import attrgetter
from typing import TypeGuard, overload

from inspector.core.base.model import AnyDelta, Delta, DeltaKind

__all__ = ["DeltaLog"]

_KEEPALIVE = DeltaKind.KEEPALIVE
_kind = attrgetter("kind")
_raw = attrgetter("raw")
_value = attrgetter("value")


class _Run:
    """Keep-alives restating comments at positions ``pos``.. with seqs ``seq``.. (same text)."""

    __slots__ = ("pos", "seq", "text")

    def __init__(self, pos: int, seq: int, text: str) -> None:
        self.pos = pos
        self.seq = seq
        self.text = text

    def at(self, pos: int) -> Delta:
        return Delta(self.seq + pos - self.pos, _KEEPALIVE, self.text)


def _restated(d: AnyDelta) -> TypeGuard[Delta]:
    """True for a keep-alive that only restates a comment event (nothing else to keep)."""
    return type(d) is Delta and d.kind == _KEEPALIVE and d.raw is None and type(d.value) is str


class DeltaLog(Sequence[AnyDelta]):
    """Every normalized delta of one body, in arrival order (see the module's invariants)."""

    __slots__ = ("_items", "_runs")

    def __init__(self) -> None:
        self._items: list[AnyDelta | _Run] = []
        self._runs = 0  # how many runs were ever started: 0 means every item is a delta

    def extend(self, batch: list[AnyDelta]) -> None:
        """Append a batch of deltas (keep-alives that restate comments join runs)."""
        items = self._items
        if _KEEPALIVE not in map(_kind, batch):
            items += batch
            return
        last = items[-1] if items else None
        if self._one_run(batch, last):
            return
        append = items.append
        pos = len(items)
        for d in batch:  # inline: once per delta of a keep-alive flood
            if d.kind is not _KEEPALIVE or not _restated(d):
                append(d)
                last = d
            elif (
                type(last) is _Run
                and d.seq == last.seq + pos - last.pos
                and (d.value is last.text or d.value == last.text)
            ):
                append(last)
            else:
                last = _Run(pos, d.seq, d.value)
                self._runs += 1
                append(last)
            pos += 1

    def _one_run(self, batch: list[AnyDelta], last: object) -> bool:
        """Append ``batch`` at once when it is one run of keep-alives restating comments (what
        a flood of them gives, slice after slice); False, appending nothing, otherwise."""
        first = batch[0]
        n = len(batch)
        if (
            batch[-1].seq - first.seq != n - 1  # seqs strictly increase: consecutive
            or set(map(type, batch)) != {Delta}
            or set(map(_kind, batch)) != {_KEEPALIVE}
            or list(map(_raw, batch)).count(None) != n  # equality, not hashing: raw may be a dict
            or not _restated(first)
            or list(map(_value, batch)).count(first.value) != n
        ):
            return False
        pos = len(self._items)
        if not (
            type(last) is _Run
            and first.seq == last.seq + pos - last.pos
            and last.text == first.value
        ):
            last = _Run(pos, first.seq, first.value)
            self._runs += 1
        self._items += [last] * n
        return True

    def stored(self, start: int = 0) -> Iterator[AnyDelta]:
        """The deltas kept as objects from position ``start`` on, in order: all but the
        keep-alives restating comments (a reader that skips those builds nothing)."""
        items = self._items[start:] if start else self._items
        if not self._runs:
            return iter(items)  # type: ignore[arg-type]
        return (d for d in items if type(d) is not _Run)  # type: ignore[misc]

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> AnyDelta: ...

    @overload
    def __getitem__(self, index: slice) -> list[AnyDelta]: ...

    def __getitem__(self, index: int | slice) -> AnyDelta | list[AnyDelta]:
        items = self._items
        if isinstance(index, slice):
            if not self._runs:
                return items[index]  # type: ignore[return-value]
            lo, hi, step = index.indices(len(items))
            return [self._one(i) for i in range(lo, hi, step)]
        d = items[index]
        if type(d) is _Run:
            return d.at(index + len(items) if index < 0 else index)
        return d  # type: ignore[return-value]

    def _one(self, i: int) -> AnyDelta:
        d = self._items[i]
        return d.at(i) if type(d) is _Run else d  # type: ignore[return-value]

    def __iter__(self) -> Iterator[AnyDelta]:
        if not self._runs:
            return iter(self._items)  # type: ignore[arg-type]
        return self._built()

    def _built(self) -> Iterator[AnyDelta]:
        for i, d in enumerate(self._items):
            yield d.at(i) if type(d) is _Run else d  # type: ignore[misc]

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
