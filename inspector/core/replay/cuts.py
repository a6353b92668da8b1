"""Where a raw SSE body is cut into replay steps: after each wire event, found by scanning
the body's lines as bytes (no event, string or line copy is ever built).

Invariants:
- The cuts are exactly the ends of the events :class:`~inspector.core.events.sse.SSEDecoder`
  emits for the whole body, errors aside, increasing: the end of each comment line (its line
  end included), and of each block with at least one ``data`` field (its blank line included,
  or the body's end for a last block with no blank line). The decoder's reading of lines is
  followed byte for byte: a line ends at LF, CRLF or CR; a UTF-8 BOM is skipped at offset 0
  only; a comment is a line starting with ``:``; a data field is a line ``data`` or starting
  with ``data:``; a blank line ends a block. Invalid UTF-8 changes none of this (the decoder
  only reports it), so it is never looked at.
- Scanning goes a bounded number of bytes at a time (:meth:`CutFinder.scan`): the work is
  linear in the body, whatever its line lengths.
- Steps: step k of a body ends at ``ends[k]`` (:func:`step_ends`): the cuts, with the last one
  moved to the body's end (a gap before an event goes with it, a tail after the last event
  with the last step), one step for a body without cuts.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence

_BOM = b"\xef\xbb\xbf"
_COLON = 58


def offsets(body_size: int) -> array[int]:
    """An empty array fit for offsets into a body of ``body_size`` bytes (4 bytes each below
    4 GiB)."""
    return array("I" if body_size < 1 << 32 else "q")


class CutFinder:
    """Finds a body's cuts (see the module docstring), a slice of the body at a time."""

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.cuts = offsets(len(body))
        """The cuts found so far."""
        self.pos = 3 if body.startswith(_BOM) else 0
        """Where the next line to read starts (the body's size once all is read)."""
        self.done = False
        """Every line has been read (and a last block with data cut at the body's end)."""
        self._data = False  # the block being read has a data field
        self._seen = self.pos  # no LF between pos and here
        self._cr = body.find(b"\r", self.pos)  # the next CR at or after pos (-1: none)

    def scan(self, size: int) -> bool:
        """Read the lines that end within the next ``size`` bytes (at least one byte further);
        return True once the whole body is read."""
        body, n, cuts = self.body, len(self.body), self.cuts
        find, starts, cut = body.find, body.startswith, cuts.append
        seen, cr = self._seen, self._cr  # no LF from pos up to seen; the next CR (-1: none)
        limit = min(seen + max(size, 1), n)
        pos, data = self.pos, self._data
        while True:
            if 0 <= cr < pos:
                cr = find(b"\r", pos)
            lf = find(b"\n", seen if seen > pos else pos, limit)
            seen = limit if lf < 0 else lf
            if 0 <= cr < limit and (lf < 0 or cr < lf):  # the line ends at a CR (or CRLF)
                end, after = cr, cr + 2 if starts(b"\n", cr + 1) else cr + 1
            elif lf >= 0:
                end, after = lf, lf + 1
            elif limit < n:  # the line goes on past the limit: next time
                break
            elif pos < n:  # a last line with no line end
                end = after = n
            else:  # the end of the body ends the last block
                if data and (not cuts or cuts[-1] < n):
                    cut(n)
                self.done = True
                break
            if end == pos:  # a blank line: dispatch
                if data:
                    cut(after)
                data = False
            elif body[pos] == _COLON:
                cut(after)
            elif starts(b"data", pos) and (end == pos + 4 or body[pos + 4] == _COLON):
                data = True
            pos = after
        self.pos, self._data, self._seen, self._cr = pos, data, seen, cr
        return self.done


def body_cuts(body: bytes) -> array[int]:
    """The cuts of a whole body (see the module docstring)."""
    finder = CutFinder(body)
    while not finder.scan(len(body)):
        pass
    return finder.cuts


def step_ends(body: bytes, cuts: Sequence[int]) -> array[int]:
    """Each step's end offset (see the module docstring). An array from :func:`offsets` is
    taken over (changed in place), not copied."""
    ends = offsets(len(body))
    if isinstance(cuts, array) and cuts.typecode == ends.typecode:
        ends = cuts
    else:
        ends.extend(cuts)
    if not ends:
        ends.append(len(body))
    elif ends[-1] < len(body):
        ends[-1] = len(body)
    return ends


def split_at(body: bytes, cuts: Sequence[int]) -> list[bytes]:
    """``body`` cut at ``cuts`` (:func:`body_cuts`); a tail goes with the last piece."""
    ends = step_ends(body, cuts)
    return [body[a:b] for a, b in zip([0, *ends[:-1]], ends, strict=True)] if body else []


def split_body(body: bytes) -> list[bytes]:
    """``body`` cut after each wire event (comments included); the pieces join to ``body``."""
    return split_at(body, body_cuts(body))
