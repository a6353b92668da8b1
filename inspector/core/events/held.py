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
- Events the decoder cut at once as plain (:class:`~.plain.PlainRun`: their bytes as fed are
  exactly that shape, the decoder checked) are derived by :meth:`HeldChunks.plain` without
  looking at their bytes again: ASCII, up to ``LARGEST``, inside one held chunk; and, when
  each is a chunk of its own (a capture's), non-ASCII ones too: their chunk is marked
  ``WIDE`` and read back by UTF-8 decoding its bytes alone.
  A run cut from reads (``chunks`` None) is checked a chunk at a time: each event lying
  inside one held chunk is derived, non-ASCII ones too (their chunk marked ``WIDE``: its
  events are read back each decoded as UTF-8 alone); one crossing a chunk's start never is.
  A mark is never lowered (``WIDE`` stays ``WIDE``).
- Every other event keeps its text: one spanning chunks, a non-ASCII or multi-line one, one
  over ``LARGEST`` bytes, an event with a type, id or retry, comments and errors.
- Chunks are appended in body order, back to back (empty ones are not held); a held chunk is
  immutable (``bytes``). A chunk no event's data is derived from is let go once the decoder is
  past it (:meth:`HeldChunks.prune`), so the chunks held may have gaps between them.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from itertools import accumulate, compress, repeat
from operator import add, eq, ge, getitem, le, mul, not_, sub

from inspector.core.events.packed import extend, filled

__all__ = ["LARGEST", "PRUNE", "HeldChunks"]

_OPEN = b"data: "
PRUNE = 1024
"""Chunks held before the first :meth:`HeldChunks.prune` looks."""
PRUNE_EVERY = 1 << 16
"""New chunks at most between two looks of :meth:`HeldChunks.prune` (a look compresses only
what came since the last one: each is a few milliseconds, never a pass over a million)."""
WIDE = 2
"""The mark of a held chunk that is one plain-run event with non-ASCII data (derived: its
bytes are read back decoded as UTF-8, never through the Latin-1 span)."""
LARGEST = 1 << 20
"""The largest event read back (bytes); a larger one keeps its one text, which every event
built from it shares (read back, each would be a fresh copy)."""
_SLACK = 1 << 16  # bytes a joined span may hold besides twice the events


class HeldChunks:
    """References to the fed chunks and their start offsets (see the module's invariants)."""

    __slots__ = ("chunks", "kept", "limit", "starts", "used")

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.starts = array("q")
        self.used = bytearray()  # per chunk: 1 once an event's data is derived from it
        # (WIDE: the one event of a plain run it holds, whose data is not ASCII)
        self.limit = PRUNE  # how many chunks held make :meth:`prune` look
        self.kept = 0  # the chunks before this one are past a prune: every one is used

    def hold(self, start: int, datas: Sequence[bytes], bounds: Sequence[int] | None = None) -> None:
        """Hold ``datas``, fed one after another from absolute offset ``start`` on (a chunk
        that is not ``bytes``, a ``bytearray`` that could change, is held as a copy);
        ``bounds``: their start offsets (and the last one's end), when the caller has them."""
        if len(datas) == 1 and type(datas[0]) is bytes:  # one chunk fed live: no list work
            if datas[0]:
                self.starts.append(start)
                self.chunks.append(datas[0])
                self.used.append(0)
            return
        if set(map(type, datas)) != {bytes}:
            datas = list(map(bytes, datas))
        if not all(datas):
            datas, bounds = list(filter(None, datas)), None
        if not datas:
            return
        if len(datas) == 1:
            self.starts.append(start)
        elif bounds is not None and len(bounds) > len(datas) and bounds[0] == start:
            extend(self.starts, bounds[: len(datas)])
        else:
            extend(self.starts, list(accumulate(map(len, datas[:-1]), initial=start)))
        self.chunks += datas
        self.used += bytes(len(datas))

    def __len__(self) -> int:
        return len(self.chunks)

    def prune(self, frontier: int, force: bool = False) -> None:
        """Let go of the chunks that end by ``frontier`` (the end of the last event emitted:
        an event read back holds nothing emitted, so none to come starts before it) and that
        no event's data is derived from; done once the chunks doubled since the last time, or
        grew by ``PRUNE_EVERY`` (``force``: now), over the chunks since the last look only. A
        flood of comments cut one piece per event holds none of them."""
        chunks = self.chunks
        if len(chunks) < self.limit and not force:
            return
        done = bisect_right(self.starts, frontier) - 1  # chunks before it end by frontier
        lo = self.kept  # only what came since the last prune is looked at (an earlier chunk
        if done > lo:  # is used, or gone: none to come starts before the frontier)
            used, cs = self.used, self.starts
            part = used[lo:done]
            if part.count(0):
                kept = part.replace(b"\0", b"")
                # in place: a slice assigned moves the pointers after it, where a new list
                # would touch every held chunk's reference count (~100 ms at 600,000)
                chunks[lo:done] = list(compress(chunks[lo:done], part))
                cs[lo:done] = filled("q", list(compress(cs[lo:done], part)))
                used[lo:done] = kept
                done = lo + len(kept)
            self.kept = done
        self.limit = len(self.chunks) + min(len(self.chunks) + PRUNE, PRUNE_EVERY)

    def _locate(self, starts: Sequence[int], end: int) -> tuple[list[int], bool]:
        """Each range's chunk index (the last chunk starting at or before it: it lies in it
        only if it ends by that chunk's end), and whether all, ending by ``end``, lie in that
        one chunk."""
        cs = self.starts
        first, last = bisect_right(cs, starts[0]) - 1, bisect_right(cs, end - 1) - 1
        if first == last >= 0 and end <= cs[first] + len(self.chunks[first]):
            return [first], True
        first = max(first, 0)
        if last - first + 1 == len(starts) and cs[first : last + 1] == starts:
            return list(range(first, last + 1)), False  # one chunk each (a capture's events)
        local = cs[first : last + 1].tolist()  # a list: a probe reads no new int object
        found = map(bisect_right, repeat(local), starts)
        return list(map(add, found, repeat(first - 1))), False

    def derivable(
        self,
        starts: Sequence[int],
        sizes: list[int],
        datas: list[str],
        plain: list[bool] | None,
    ) -> list[bool]:
        """For each event (its range and data; ``plain``: which are plain EVENTs, None: all),
        whether its data can be derived; the chunks those lie in are marked used."""
        n = len(datas)
        if not self.chunks or not n:
            return [False] * n
        if n == 1:
            return [self.one(starts[0], sizes[0], datas[0], plain is None or plain[0])]
        where, one = self._locate(starts, starts[-1] + sizes[-1])
        aligned = not one and self._aligned(starts, where)
        if not one and not aligned:  # chunks fed live: a read completes events begun in the
            i = bisect_left(starts, self.starts[where[-1]])  # one before it; those in the last
            if 0 < i < n:  # chunk are checked as one batch, a column at a time (each alone
                rest = slice(i, None)  # cost ~0.6 us an event); those begun before, each alone
                lead, tail = (None, None) if plain is None else (plain[:i], plain[rest])
                head = self._settle(starts[:i], sizes[:i], datas[:i], lead, where[:i], False)
                return head + self.derivable(starts[rest], sizes[rest], datas[rest], tail)
        return self._settle(starts, sizes, datas, plain, where, one, aligned)

    def _settle(
        self,
        starts: Sequence[int],
        sizes: list[int],
        datas: list[str],
        plain: list[bool] | None,
        where: list[int],
        one: bool,
        aligned: bool = False,
    ) -> list[bool]:
        """:meth:`derivable` for events located at ``where``: checked a column at a time where
        that settles it, else each alone; the chunks of those derived marked used."""
        ok = None
        if plain is None or False not in plain:
            ok = self._quick(starts, sizes, datas, where, one, aligned)
        if ok is None:
            ok = self._each(starts, sizes, datas, where, one, aligned)
            if plain is not None:
                ok = list(map(all, zip(ok, plain, strict=True)))
        used = self.used
        if one:
            if True in ok and not used[where[0]]:
                used[where[0]] = 1
        elif aligned:  # no other event starts in these chunks before these (never lower a mark)
            used[where[0] : where[-1] + 1] = bytes(map(max, used[where[0] : where[-1] + 1], ok))
        else:
            for k in set(compress(where, ok)):
                if not used[k]:  # a WIDE mark stays
                    used[k] = 1
        return ok

    def one(self, start: int, size: int, data: str, plain: bool) -> bool:
        """:meth:`derivable` for one event (what a chunk fed live completes)."""
        k = len(self.chunks) - 1
        base = self.starts[k]
        if start < base:
            k = bisect_right(self.starts, start) - 1
            base = self.starts[k]
        chunk = self.chunks[k] if k >= 0 else b""
        ok = (
            plain
            and k >= 0
            and size == len(data) + 8 <= LARGEST
            and start + size <= base + len(chunk)
            and data.isascii()
            and chunk.startswith(_OPEN, start - base)
        )
        if ok and not self.used[k]:  # a WIDE mark stays
            self.used[k] = 1
        return ok

    def plain(
        self, bounds: list[int], sizes: list[int], values: list[str], chunks: list[bytes] | None
    ) -> list[bool]:
        """:meth:`derivable` for a decoder's plain run (:class:`~.plain.PlainRun`): event ``i``
        spans ``bounds[i]``..``bounds[i + 1]`` (``sizes[i]`` bytes), which were fed as exactly
        ``b"data: " + values[i] + b"\\n\\n"``. One lying in a held chunk (the fed bytes) is
        derived when it is ASCII and up to ``LARGEST`` bytes, no byte of it looked at again:
        the run's ``chunks`` when they are the chunks held at these offsets (one event each),
        else each event lying inside one of the held chunks the run spans (:meth:`_within`:
        network reads joined, cut at once); any other event goes through :meth:`derivable`."""
        n = len(values)
        if chunks is not None:
            k = bisect_right(self.starts, bounds[0]) - 1
            if (
                k >= 0
                and self.chunks[k : k + n] == chunks  # the same objects: cheap to compare
                and self.starts[k : k + n] == filled("q", bounds[:-1])
            ):  # one event a chunk: non-ASCII ones too (their chunks marked WIDE)
                codes = bytes(map(sub, repeat(WIDE), map(str.isascii, values)))
                if max(sizes) <= LARGEST:
                    self.used[k : k + n] = codes
                    return [True] * n
                ok = list(map(ge, repeat(LARGEST), sizes))
                self.used[k : k + n] = bytes(map(mul, codes, ok))
                return ok
            return self.derivable(bounds[:-1], sizes, values, None)
        within = self._within(bounds, sizes, values)
        return self.derivable(bounds[:-1], sizes, values, None) if within is None else within

    def _within(self, bounds: list[int], sizes: list[int], values: list[str]) -> list[bool] | None:
        """:meth:`plain` for a run cut from joined reads (``chunks`` None): when the chunks
        it lies in are held back to back, each event lying inside one of them is derived (up
        to ``LARGEST``), one crossing a chunk's start never; their chunks marked used
        (``WIDE`` when a non-ASCII one is derived from it). A run of reads has as many events
        crossing as chunks, so this looks at each chunk, never at each event. None when
        those chunks are not all held."""
        cs, chunks = self.starts, self.chunks
        lo = bisect_right(cs, bounds[0]) - 1
        hi = bisect_right(cs, bounds[-1] - 1) - 1
        if lo < 0:
            return None
        held = chunks[lo : hi + 1]
        ends = list(accumulate(map(len, held), initial=cs[lo]))
        if ends[-1] < bounds[-1] or cs[lo : hi + 1] != filled("q", ends[:-1]):
            return None  # not back to back (some were let go), or past the last one
        ok = list(map(ge, repeat(LARGEST), sizes)) if max(sizes) > LARGEST else [True] * len(sizes)
        wide = list(map(not_, map(str.isascii, values)))
        n = len(values)
        inner = ends[1:-1]  # the starts of the chunks after the first
        for c in inner:
            j = bisect_right(bounds, c) - 1
            if bounds[j] != c:
                ok[j] = False  # event j crosses this chunk's start
        firsts = [0, *(bisect_left(bounds, c, 0, n) for c in inner), n]
        used = self.used
        for k, a, b in zip(range(lo, hi + 1), firsts[:-1], firsts[1:], strict=True):
            if a < b and True in ok[a:b]:  # WIDE: a non-ASCII event derived in it
                mark = WIDE if True in compress(wide[a:b], ok[a:b]) else 1
                used[k] = max(used[k], mark)
        return ok

    @staticmethod
    def _sized(values: list[str], sizes: list[int]) -> list[bool]:
        """ASCII and up to ``LARGEST`` bytes, for each plain event."""
        ok = list(map(str.isascii, values))
        if sizes and max(sizes) > LARGEST:
            ok = [a and s <= LARGEST for a, s in zip(ok, sizes, strict=True)]
        return ok

    def _aligned(self, starts: Sequence[int], where: list[int]) -> bool:
        """Whether each event starts a chunk of its own (a capture's events)."""
        first, last = where[0], where[-1]
        return last - first + 1 == len(starts) and self.starts[first : last + 1] == starts

    def _quick(
        self,
        starts: Sequence[int],
        sizes: list[int],
        datas: list[str],
        where: list[int],
        one: bool,
        aligned: bool,
    ) -> list[bool] | None:
        """Which events can be derived, checked a column at a time when that settles it: the
        ASCII ones (their data is ASCII) when each of those starts with ``data: `` in its chunk
        and their sizes add up to their data's lengths plus 8 each (each is at least that, so
        every one is exactly that); None when it does not settle it."""
        if not one and not aligned:
            return None
        ascii_ = list(map(str.isascii, datas))
        m = ascii_.count(True)
        if m < len(datas):
            starts, sizes = list(compress(starts, ascii_)), list(compress(sizes, ascii_))
            datas = list(compress(datas, ascii_))
        if not m:
            return ascii_
        if max(sizes) > LARGEST or sum(sizes) != sum(map(len, datas)) + 8 * m:
            return None
        cs, chunks = self.starts, self.chunks
        if one:
            chunk, base = chunks[where[0]], cs[where[0]]
            rels = map(sub, starts, repeat(base)) if base else starts
            return None if False in map(chunk.startswith, repeat(_OPEN), rels) else ascii_
        held = chunks[where[0] : where[-1] + 1]
        if m < len(ascii_):
            held = list(compress(held, ascii_))
        if False in map(bytes.startswith, held, repeat(_OPEN)):
            return None
        return None if False in map(ge, map(len, held), sizes) else ascii_

    def _each(
        self,
        starts: Sequence[int],
        sizes: list[int],
        datas: list[str],
        where: list[int],
        one: bool,
        aligned: bool,
    ) -> list[bool]:
        """Whether each event can be derived, one at a time (see the module's invariants)."""
        cs, chunks = self.starts, self.chunks
        checks: list[Iterable[bool]] = [map(str.isascii, datas)]
        checks.append(map(eq, sizes, map(add, map(len, datas), repeat(8))))
        if max(sizes) > LARGEST:
            checks.append(map(ge, repeat(LARGEST), sizes))
        if one:
            chunk, base = chunks[where[0]], cs[where[0]]
            checks.append(map(chunk.startswith, repeat(_OPEN), map(sub, starts, repeat(base))))
        elif aligned:
            held = chunks[where[0] : where[-1] + 1]  # one event at the start of each chunk
            checks.append(map(ge, map(len, held), sizes))
            checks.append(map(bytes.startswith, held, repeat(_OPEN)))
        else:
            held = list(map(chunks.__getitem__, where))
            rels = list(map(sub, starts, map(cs.__getitem__, where)))
            checks.append(map(le, repeat(0), rels))  # not before its chunk (-1: none held)
            checks.append(map(ge, map(len, held), map(add, rels, sizes)))
            checks.append(map(bytes.startswith, held, repeat(_OPEN), rels))
        return list(map(all, zip(*checks, strict=False)))

    def texts(self, starts: Sequence[int], sizes: Sequence[int]) -> list[str]:
        """The derived data of the events at these ranges (each :meth:`derivable`): the bytes
        they span decoded once as Latin-1 (a str offset is a byte offset; the events' own bytes
        are ASCII) and cut, else each event's bytes decoded alone."""
        ends = list(map(add, starts, sizes))
        where, one = self._locate(starts, ends[-1])
        cs, chunks = self.starts, self.chunks
        wide = WIDE in self.used[where[0] : where[-1] + 1]
        span = None if wide else self._span(starts[0], ends[-1], where, one, sum(sizes))
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

    def _span(self, start: int, end: int, where: list[int], one: bool, need: int) -> bytes | None:
        """The bytes ``[start, end)`` when in one chunk, else the whole chunks they lie in
        joined (from the first one's start) when they are back to back; None when that is
        much more than the ``need`` bytes of the events (other events lie between them)."""
        cs, chunks = self.starts, self.chunks
        if end - start > 2 * need + _SLACK:
            return None
        if one:
            base = cs[where[0]]
            return chunks[where[0]][start - base : end - base]
        first, last = where[0], where[-1]
        size = cs[last] + len(chunks[last]) - cs[first]
        if size > 2 * need + _SLACK:
            return None
        span = b"".join(chunks[first : last + 1])
        return span if len(span) == size else None  # not back to back: some were let go

    def text(self, start: int, size: int) -> str:
        """The derived data of one event (:meth:`derivable`)."""
        k = bisect_right(self.starts, start) - 1
        rel = start - self.starts[k]
        return self.chunks[k][rel + 6 : rel + size - 2].decode()
