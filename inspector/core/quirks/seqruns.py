"""Ascending, de-duplicated sequence numbers kept as runs of consecutive ones (:class:`SeqRuns`).

A quirk may show in every chunk of a stream (a million keep-alive comments): its chunks are
kept as runs, a few bytes per run instead of an int object and a list slot per chunk.

Invariants:
- Reads like the sorted list of distinct numbers added: ``len``, int and slice indexing,
  iteration, ``in`` and ``==`` with a list, tuple or another :class:`SeqRuns`.
- Adding in ascending order (repeats allowed) is O(1); a number that points back is held
  aside and merged in at the next read (O(n) then), so the order numbers arrive in never
  changes what is read.
- Only its owner adds to it; a reader that keeps one while the owner goes on adding keeps a
  :meth:`SeqRuns.copy`.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate, chain
from typing import overload

__all__ = ["SeqRuns"]


class SeqRuns(Sequence[int]):
    """Sorted distinct ints as runs ``[start, stop)`` (see the module's invariants)."""

    __slots__ = ("_count", "_offsets", "_pending", "_starts", "_stops")

    def __init__(self, seqs: Iterable[int] = ()) -> None:
        self._starts = array("q")
        self._stops = array("q")
        self._count = 0
        self._pending: list[int] | None = None  # numbers that pointed back, merged at a read
        self._offsets: array[int] | None = None  # numbers before each run, built for indexing
        for seq in seqs:
            self.append(seq)

    def append(self, seq: int) -> None:
        """Add ``seq`` (O(1) when it is not below the largest added; repeats are ignored)."""
        if self._pending is not None:
            self._pending.append(seq)
            return
        stops = self._stops
        if stops:
            last = stops[-1]
            if seq == last:
                stops[-1] = seq + 1
                self._count += 1
                self._offsets = None
                return
            if seq < last:
                if seq < self._starts[-1]:
                    self._pending = [seq]
                return
        self._starts.append(seq)
        stops.append(seq + 1)
        self._count += 1
        self._offsets = None

    def add_run(self, lo: int, hi: int) -> None:
        """Add ``lo``..``hi - 1`` (nothing when ``hi <= lo``): O(1) in order, as ``append``."""
        if hi <= lo:
            return
        stops = self._stops
        if self._pending is None and stops and lo == stops[-1]:
            stops[-1] = hi
            self._count += hi - lo
            self._offsets = None
        elif self._pending is None and (not stops or lo > stops[-1]):
            self._starts.append(lo)
            stops.append(hi)
            self._count += hi - lo
            self._offsets = None
        else:
            for seq in range(lo, hi):
                self.append(seq)

    def copy(self) -> SeqRuns:
        """An independent copy (O(runs))."""
        self._settle()
        out = SeqRuns()
        out._starts, out._stops, out._count = (
            array("q", self._starts),
            array("q", self._stops),
            self._count,
        )
        return out

    @property
    def runs(self) -> int:
        """How many runs of consecutive numbers are kept."""
        self._settle()
        return len(self._starts)

    def _settle(self) -> None:
        pending = self._pending
        if pending is None:
            return
        merged = sorted({*chain.from_iterable(map(range, self._starts, self._stops)), *pending})
        self._starts, self._stops, self._count, self._pending = array("q"), array("q"), 0, None
        self._offsets = None
        for seq in merged:
            self.append(seq)

    # -- reading -------------------------------------------------------------------------

    def __len__(self) -> int:
        self._settle()
        return self._count

    @overload
    def __getitem__(self, index: int) -> int: ...

    @overload
    def __getitem__(self, index: slice) -> list[int]: ...

    def __getitem__(self, index: int | slice) -> int | list[int]:
        self._settle()
        if isinstance(index, slice):
            return list(self)[index]
        n = self._count
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("SeqRuns index out of range")
        offsets = self._offsets
        if offsets is None:
            offsets = self._offsets = array(
                "q", accumulate(map(int.__sub__, self._stops, self._starts), initial=0)
            )
        k = bisect_right(offsets, index) - 1
        return self._starts[k] + index - offsets[k]

    def __iter__(self) -> Iterator[int]:
        self._settle()
        return chain.from_iterable(map(range, self._starts, self._stops))

    def __contains__(self, value: object) -> bool:
        if type(value) is not int:
            return False
        self._settle()
        k = bisect_right(self._starts, value) - 1
        return k >= 0 and value < self._stops[k]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SeqRuns):
            self._settle()
            other._settle()
            return self._starts == other._starts and self._stops == other._stops
        if isinstance(other, list | tuple):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        self._settle()
        runs = ", ".join(
            f"{a}" if b == a + 1 else f"{a}..{b - 1}"
            for a, b in zip(self._starts, self._stops, strict=True)
        )
        return f"SeqRuns([{runs}])"


def merged(a: SeqRuns, b: SeqRuns) -> SeqRuns:
    """A new :class:`SeqRuns` holding the numbers of both (O(runs log runs))."""
    a._settle()
    b._settle()
    out = SeqRuns()
    runs = zip(a._starts, a._stops, strict=True), zip(b._starts, b._stops, strict=True)
    pairs = sorted(chain(*runs))
    for lo, hi in pairs:
        stops = out._stops
        if stops and lo <= stops[-1]:
            if hi > stops[-1]:
                out._count += hi - stops[-1]
                stops[-1] = hi
        else:
            out._starts.append(lo)
            stops.append(hi)
            out._count += hi - lo
    return out
