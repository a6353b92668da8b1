"""A large JSON document read and written in pieces: no single step holds the interpreter for
long, so a worker thread doing it leaves the event loop beside it free to run.

``orjson.loads`` of a 200 MB request body is one C call of most of a second, during which no
other thread of the process runs (the GIL is held throughout); ``orjson.dumps`` of it, a
quarter of one. :func:`loads` and :func:`dumps` do the same work as many calls of about
:data:`PIECE` bytes each: a container larger than that is read member by member (recursively),
and one is written member by member.

Invariants:
- :func:`loads` returns what ``orjson.loads`` returns for the same bytes, and raises
  ``orjson.JSONDecodeError`` where it raises (any document it cannot read in pieces is read
  whole: exactly orjson's answer, in one step).
- :func:`dumps` yields pieces whose concatenation is ``orjson.dumps(value)``.
- What stays one step: a single string (or number) larger than :data:`PIECE`, read and
  written whole; and the top levels of a document below :data:`PIECE` bytes in all.
- Pure Python and orjson: no I/O, no threads of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Final

import orjson

PIECE: Final = 1 << 20
"""Bytes read or written in one step (about a millisecond of orjson's time)."""
FIRST_WINDOW: Final = 4096
"""The first window a value is looked for in (:meth:`_Reader._whole`)."""
_WHITESPACE: Final = b" \t\r\n"
_TRAILING: Final = "unexpected content after document"
"""orjson's message when a value ends before the bytes it was given do (its ``pos`` is where
the next token starts, in characters: the end of the value, whitespace after it aside)."""
_UNFINISHED: Final = "unexpected end of data"
"""orjson's message when the bytes end inside a value."""


class _NotPieced(Exception):
    """The document cannot be read in pieces (invalid, or a shape this reader does not split):
    it is read whole instead."""


def loads(
    raw: bytes | bytearray | memoryview, piece: int = PIECE, pause: Callable[[], None] | None = None
) -> Any:
    """``orjson.loads(raw)``, read in pieces of about ``piece`` bytes (module doc); ``pause``
    is called between them (a worker thread sleeping a little there hands the interpreter to
    the event loop at once, instead of after the interpreter's switch interval)."""
    view = memoryview(raw).cast("B")
    if len(view) <= piece:
        return orjson.loads(view)
    try:
        reader = _Reader(view, piece, pause or _nothing)
        value, end = reader.value(reader.skip(0))
        if reader.skip(end) != len(view):
            raise _NotPieced
        return value
    except (_NotPieced, orjson.JSONDecodeError, RecursionError):
        return orjson.loads(view)  # orjson's own answer (or error), in one step


class _Reader:
    """Reads values out of ``view`` at given offsets, a container larger than ``piece`` bytes
    member by member."""

    def __init__(self, view: memoryview, piece: int, pause: Callable[[], None]) -> None:
        self.view, self.size, self.piece, self.pause = view, len(view), piece, pause

    def skip(self, at: int) -> int:
        """The offset of the first byte at or after ``at`` that is not JSON whitespace."""
        view, size = self.view, self.size
        while at < size and view[at] in _WHITESPACE:
            at += 1
        return at

    def value(self, start: int) -> tuple[Any, int]:
        """The value starting at ``start``, and the offset just after it."""
        if start >= self.size:
            raise _NotPieced
        found = self._whole(start, self.piece)
        if found is not None:
            return found
        opener = self.view[start]
        if opener == ord("["):
            return self._array(start)
        if opener == ord("{"):
            return self._object(start)
        found = self._whole(start, self.size - start)  # a long string: one step
        if found is None:
            raise _NotPieced
        return found

    def _whole(self, start: int, limit: int) -> tuple[Any, int] | None:
        """The value at ``start`` read in one step when it ends within ``limit`` bytes, else
        None. A window is read first: orjson stops where the value ends (at the content after
        it), and the exact span is then read. The window starts small and grows sixteenfold
        up to ``limit``: orjson's error carries its window as text, so a 1 MB window for each
        of 400,000 small messages would decode 400 GB."""
        view = self.view
        end_limit = min(self.size, start + limit)
        window = min(limit, FIRST_WINDOW)
        while True:
            edge = min(self.size, start + window)
            while start < edge < self.size and 0x80 <= view[edge] < 0xC0:
                edge -= 1  # never cut a character in two: orjson would call the window invalid
            self.pause()
            try:
                value = orjson.loads(view[start:edge])
            except orjson.JSONDecodeError as exc:
                if exc.msg.startswith(_TRAILING):
                    end = start + _byte_offset(view[start:edge], exc.pos)
                    return orjson.loads(view[start:end]), end
                if edge < self.size and exc.msg.startswith(_UNFINISHED):
                    if edge >= end_limit:
                        return None  # longer than the limit
                    window *= 16
                    continue
                raise _NotPieced from None
            if edge == self.size:
                return value, edge
            if edge >= end_limit:
                return None  # it parsed to the window's edge: a number may have been cut there
            window *= 16

    def _array(self, start: int) -> tuple[list[Any], int]:
        out: list[Any] = []
        at = self.skip(start + 1)
        if at < self.size and self.view[at] == ord("]"):
            return out, at + 1
        while True:
            item, at = self.value(at)
            out.append(item)
            at = self._after(at, ord("]"))
            if at < 0:
                return out, -at

    def _object(self, start: int) -> tuple[dict[str, Any], int]:
        out: dict[str, Any] = {}
        at = self.skip(start + 1)
        if at < self.size and self.view[at] == ord("}"):
            return out, at + 1
        while True:
            if at >= self.size or self.view[at] != ord('"'):
                raise _NotPieced
            found = self._whole(at, self.piece) or self._whole(at, self.size - at)
            if found is None or not isinstance(found[0], str):
                raise _NotPieced
            name, at = found
            at = self.skip(at)
            if at >= self.size or self.view[at] != ord(":"):
                raise _NotPieced
            out[name], at = self.value(self.skip(at + 1))
            at = self._after(at, ord("}"))
            if at < 0:
                return out, -at

    def _after(self, at: int, closer: int) -> int:
        """After a member: the next member's offset (after a comma), or minus the offset just
        after ``closer`` when the container ends there."""
        at = self.skip(at)
        if at >= self.size:
            raise _NotPieced
        sep = self.view[at]
        if sep == closer:
            return -(at + 1)
        if sep != ord(","):
            raise _NotPieced
        return self.skip(at + 1)


def _nothing() -> None:
    pass


def _byte_offset(window: memoryview, chars: int) -> int:
    """The byte offset in ``window`` (UTF-8, valid up to there) of its character ``chars``:
    orjson gives an error's position in characters."""
    head = bytes(window[:chars])
    if head.isascii():
        return chars
    text = bytes(window[: 4 * chars]).decode("utf-8", "surrogateescape")
    return len(text[:chars].encode("utf-8", "surrogateescape"))


DEPTH: Final = 3
"""Container levels :func:`dumps` writes member by member (below them, one step each): the
body, its fields, their items (a conversation's messages) and the messages' own fields."""


def dumps(value: Any, depth: int = DEPTH) -> Iterator[bytes]:
    """``orjson.dumps(value)`` as pieces, each container of the top ``depth`` levels member by
    member; small neighbouring pieces are joined up to about :data:`PIECE` bytes."""
    buffer: list[bytes] = []
    held = 0
    for piece in _pieces(value, depth):
        buffer.append(piece)
        held += len(piece)
        if held >= PIECE:
            yield b"".join(buffer)
            buffer, held = [], 0
    if buffer:
        yield b"".join(buffer)


def _pieces(value: Any, depth: int) -> Iterator[bytes]:
    if depth <= 0 or not isinstance(value, dict | list) or not value:
        yield orjson.dumps(value)
        return
    if isinstance(value, list):
        yield b"["
        for i, item in enumerate(value):
            if i:
                yield b","
            yield from _pieces(item, depth - 1)
        yield b"]"
        return
    yield b"{"
    for i, (name, item) in enumerate(value.items()):
        yield b"," if i else b""
        yield orjson.dumps(name)
        yield b":"
        yield from _pieces(item, depth - 1)
    yield b"}"
