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
        limit = min(self._seen + max(size, 1), n)
        pos, data = self.pos, self._data
        while not self.done:
            end, after = self._line_end(pos, limit)
            if end < 0:
                if limit < n:  # the line goes on past the limit: next time
                    break
                if pos == n:  # the end of the body ends the last block
                    if data and (not cuts or cuts[-1] < n):
                        cuts.append(n)
                    self.done = True
                    break
                end = after = n  # a last line with no line end
            if end == pos:  # a blank line: dispatch
                if data:
                    cuts.append(after)
                data = False
            elif body[pos] == _COLON:
                cuts.append(after)
            elif body.startswith(b"data", pos) and (end == pos + 4 or body[pos + 4] == _COLON):
                data = True
            pos = after
        self.pos, self._data = pos, data
        return self.done

    def _line_end(self, pos: int, limit: int) -> tuple[int, int]:
        """(the end of the line at ``pos``, the start of the next) if it ends before
        ``limit``; (-1, -1) otherwise."""
        body = self.body
        lf = body.find(b"\n", max(pos, self._seen), limit)
        self._seen = limit if lf < 0 else lf  # no LF from pos up to there
        cr = self._cr
        if 0 <= cr < pos:
            cr = self._cr = body.find(b"\r", pos)
        if 0 <= cr < limit and (lf < 0 or cr < lf):
            return cr, cr + 2 if body.startswith(b"\n", cr + 1) else cr + 1
        return (lf, lf + 1) if lf >= 0 else (-1, -1)


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
