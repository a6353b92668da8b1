"""The chunks a stream was fed, held by reference, so a plain data event need not keep its text.

:class:`HeldChunks` keeps the very ``bytes`` objects fed (never a copy or a slice of one) and
each one's absolute start offset in the body (an ``array('q')``: 16 bytes a chunk besides the
bytes, which the capture holds anyway). :class:`~inspector.core.events.log.EventLog` asks it
which events' data can be read back from those bytes (:meth:`HeldChunks.derivable`) and reads
them back when it builds events (:meth:`HeldChunks.texts`, :meth:`HeldChunks.text`).

Invariants:
- An event's data is derived only when its bytes ``[start, end)`` are exactly
  ``b"data: " + data + b"\\n\\n"`` inside one held chunk: a plain EVENT (type "message", no id,
  no retry) of one ``data: `` line with LF line ends and ASCII data. That is checked in O(1)
  per event without encoding: the range starts with ``data: `` and is ``len(data) + 8`` bytes
  long. With ASCII data (no U+FFFD replacement, no multi-byte character) every other shape
  adds bytes: a second ``data`` line at least 4 (its name, its line end, less the joining
  LF), an unknown field or a comment inside the event its whole line, a CRLF one; so the
  range is one ``data: `` line and a blank line of one byte line ends each (LF, or a CR, which
  the bytes in the middle do not depend on). Derived data is ``bytes.decode`` of the bytes
  between ``data: `` and the two line ends: equal to what the decoder built from them.
- Every other event keeps its text: one spanning chunks, a non-ASCII or multi-line one, an
  event with a type, id or retry, comments and errors.
- Chunks are appended in body order, back to back (empty ones are not held); a held chunk is
  immutable (``bytes``).
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from itertools import accumulate, repeat
from operator import add, eq, getitem, sub

__all__ = ["HeldChunks"]

_OPEN = b"data: "
_SLACK = 1 << 16  # bytes a joined span may hold besides twice the events


class HeldChunks:
    """References to the fed chunks and their start offsets (see the module's invariants)."""

    __slots__ = ("chunks", "starts")

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.starts = array("q")

    def hold(self, start: int, datas: Sequence[bytes]) -> None:
        """Hold ``datas``, fed one after another from absolute offset ``start`` on (a chunk
        that is not ``bytes``, a ``bytearray`` that could change, is held as a copy)."""
        if set(map(type, datas)) != {bytes}:
            datas = list(map(bytes, datas))
        if not all(datas):
            datas = list(filter(None, datas))
        if not datas:
            return
        if len(datas) == 1:
            self.starts.append(start)
        else:
            self.starts.extend(accumulate(map(len, datas[:-1]), initial=start))
        self.chunks += datas

    def __len__(self) -> int:
        return len(self.chunks)

    def _locate(self, starts: Sequence[int], ends: Sequence[int]) -> tuple[list[int], bool]:
        """Each range's chunk index, and whether all lie in the same chunk (checked by the
        first and last; chunk and event ranges are both in body order)."""
        cs = self.starts
        first, last = bisect_right(cs, starts[0]) - 1, bisect_right(cs, ends[-1] - 1) - 1
        if first == last:
            return [first], True
        local = cs[first : last + 1].tolist()  # a list: a probe reads no new int object
        found = map(bisect_right, repeat(local), starts)
        return list(map(add, found, repeat(first - 1))), False

    def derivable(
        self, starts: Sequence[int], sizes: Sequence[int], datas: list[str]
    ) -> list[bool]:
        """For each plain EVENT (its range and data), whether its data can be derived."""
        if not self.chunks or not datas:
            return [False] * len(datas)
        ends = list(map(add, starts, sizes))
        where, one = self._locate(starts, ends)
        cs, chunks = self.starts, self.chunks
        fits = map(eq, sizes, map(add, map(len, datas), repeat(8)))
        if one:
            chunk, base = chunks[where[0]], cs[where[0]]
            rels = list(map(sub, starts, repeat(base)))
            opens = map(chunk.startswith, repeat(_OPEN), rels)
            inside: Iterable[bool] = repeat(True)
        else:
            held = list(map(chunks.__getitem__, where))
            rels = list(map(sub, starts, map(cs.__getitem__, where)))
            opens = map(bytes.startswith, held, repeat(_OPEN), rels)
            inside = map(int.__ge__, map(len, held), map(add, rels, sizes))
        checks = zip(map(str.isascii, datas), fits, inside, opens, strict=False)
        return list(map(all, checks))

    def texts(self, starts: Sequence[int], sizes: Sequence[int]) -> list[str]:
        """The derived data of the events at these ranges (each :meth:`derivable`): the bytes
        they span decoded once as Latin-1 (a str offset is a byte offset; the events' own bytes
        are ASCII) and cut, else each event's bytes decoded alone."""
        ends = list(map(add, starts, sizes))
        where, one = self._locate(starts, ends)
        cs, chunks = self.starts, self.chunks
        span = self._span(starts[0], ends[-1], where, one)
        if span is not None:  # Latin-1: a char per byte, and an ASCII slice is plain ASCII
            text, base = span.decode("latin-1"), starts[0] if one else cs[where[0]]
            lo = map(add, starts, repeat(6 - base))
            hi = map(add, ends, repeat(-2 - base))
            return list(map(text.__getitem__, map(slice, lo, hi)))
        bases = [cs[where[0]]] * len(starts) if one else list(map(cs.__getitem__, where))
        held = repeat(chunks[where[0]]) if one else map(chunks.__getitem__, where)
        lo = map(add, map(sub, starts, bases), repeat(6))
        hi = map(sub, map(sub, ends, bases), repeat(2))
        pieces: Iterable[bytes] = map(getitem, held, map(slice, lo, hi))  # type: ignore[arg-type]
        return list(map(bytes.decode, pieces))

    def _span(self, start: int, end: int, where: list[int], one: bool) -> bytes | None:
        """The bytes ``[start, end)`` when in one chunk, else the whole chunks they lie in
        joined (from the first one's start) when that is not much more; None otherwise."""
        cs, chunks = self.starts, self.chunks
        if one:
            base = cs[where[0]]
            return chunks[where[0]][start - base : end - base]
        first, last = where[0], where[-1]
        if cs[last] + len(chunks[last]) - cs[first] > 2 * (end - start) + _SLACK:
            return None
        return b"".join(chunks[first : last + 1])

    def text(self, start: int, size: int) -> str:
        """The derived data of one event (:meth:`derivable`)."""
        k = bisect_right(self.starts, start) - 1
        rel = start - self.starts[k]
        return self.chunks[k][rel + 6 : rel + size - 2].decode()
