"""Reading captures: a file's bytes to a :class:`~inspector.core.capture.records.Capture`,
all at once (:func:`load`) or a slice of records at a time (:class:`CaptureReader`).

The format is described in :mod:`inspector.core.capture.format`; the records and what each
must hold in :mod:`inspector.core.capture.records`. A raw SSE body (what ``curl -N`` saves) is
read as a one-attempt capture with a single untimed chunk, so every consumer sees one shape.
A file at the current version is read a batch of lines at a time
(:mod:`inspector.core.capture.lines`); a migrated one record by record, through the
converters' record stream: both give the same Capture.

Invariants:
- Reading is strict in the middle, lenient at the end: a corrupt line before the last one is
  a CaptureError (line number and byte offset); a cut-off last line (a writer killed
  mid-record) is dropped with a warning; older format versions are migrated by
  :mod:`inspector.core.capture.compat` before any record is checked.
- Every CaptureError names the file and, once past the header, the line it is about.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from typing import Any, Final

import orjson

from inspector.core.capture import compat
from inspector.core.capture.ahead import Ahead
from inspector.core.capture.format import FORMAT, CaptureError
from inspector.core.capture.lines import Cursor, Lines, unreadable
from inspector.core.capture.records import Attempt, Capture, CaptureBuilder

_BOM: Final = b"\xef\xbb\xbf"


def read_file(path: str | os.PathLike[str]) -> bytes:
    """A capture file's bytes; CaptureError (one line) when it cannot be read.

    A regular file or a pipe (``analyze <(cat capture)``) is read to its end; a character or
    block device (``/dev/zero``, a disk) is refused before any byte is read: it may never end.
    """
    name = os.fspath(path)
    try:
        with open(name, "rb") as f:
            mode = os.fstat(f.fileno()).st_mode
            if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
                raise CaptureError("not a regular file (a device)", path=name)
            return f.read()
    except IsADirectoryError:
        raise CaptureError("is a directory, not a capture", path=name) from None
    except FileNotFoundError:
        raise CaptureError("no such file", path=name) from None
    except PermissionError:
        raise CaptureError("permission denied", path=name) from None
    except OSError as exc:
        raise CaptureError(f"cannot read: {exc.strerror or exc}", path=name) from None


def load(path: str | os.PathLike[str]) -> Capture:
    """Load a capture file or a raw SSE body; CaptureError (one line) when it cannot be."""
    name = os.fspath(path)
    capture = CaptureReader(read_file(name), name).read_all()
    capture.path = name
    return capture


def load_bytes(data: bytes, name: str = "<bytes>") -> Capture:
    """Like load() for bytes already in memory; ``name`` is used in error messages."""
    return CaptureReader(bytes(data), name).read_all()


class CaptureReader:
    """Reads a capture from bytes a slice of records at a time (a front end can show a large
    file while it loads); :func:`load` is ``CaptureReader(data, name).read_all()``.

    ``capture`` exists from the start: its header is read at construction, and after every
    :meth:`read` its ``attempts`` lists every attempt seen so far, ordered by number, each
    holding the records read so far (records only ever append). A raw body is read whole at
    construction. Errors are raised as :func:`load` raises them, with file and line.
    """

    def __init__(self, data: bytes, name: str, size: int | None = None) -> None:
        self.size = len(data) if size is None else size
        """Bytes in the file (``data`` may be its head only: see :meth:`read_ahead`)."""
        self.done = False
        """Every record has been read."""
        self._name = name
        self._records: Iterator[dict[str, Any]] = iter(())
        self._lines: Lines | None = None  # the file's lines, while they are read
        self._cursor = Cursor(1, 0)
        self._builder: CaptureBuilder | None = None
        if not data:
            raise CaptureError("empty file", path=name)
        found = _header(data, name)
        if found is None:
            self.capture = _raw(data, name)
            self.done = True
            return
        header, lineno, pos, end = found
        warnings: list[str] = []
        self._cursor = Cursor(lineno, pos)
        lines = _lines(data, end + 1, lineno + 1, self._cursor, warnings)
        try:
            header, self._records = compat.migrate(header, lines)
        except CaptureError as exc:
            raise exc.located(name, lineno, pos) from None
        # The file is at the current version: its lines are read a batch at a time by
        # Lines (the same records, fewer steps per line); a migrated file goes through the
        # converters' record stream.
        if self._records is lines:
            self._lines = Lines(data, end + 1, lineno + 1, self._cursor, self.size)
            self._records = iter(())
        warnings.extend(_meta_warnings(header, lineno))
        self._builder = CaptureBuilder(Capture(None, "capture", header, [], warnings))
        self.capture = self._builder.capture
        """The capture read so far."""

    @property
    def offset(self) -> int:
        """Bytes read so far (the start of the last line read)."""
        return self.size if self.done else self._cursor.offset

    def read(self, records: int) -> int:
        """Read up to ``records`` more records (a read-ahead batch is taken whole, however
        many it holds); return how many were read."""
        builder, cursor = self._builder, self._cursor
        if self.done or builder is None:
            return 0
        n = 0
        try:
            if self._lines is not None:
                n = self._lines.read(builder, records)
                self.done = self._lines.done
            else:
                for record in self._records:
                    builder.add(record, cursor.line)
                    n += 1
                    if n >= records:
                        break
                else:
                    self.done = True
        except CaptureError as exc:
            raise exc.located(self._name, cursor.line, cursor.offset) from None
        if self.done:  # the file's bytes are no longer needed: let them go
            if self._lines is not None:
                self._lines.close()
            self._lines, self._records = None, iter(())
        if n or self.done:
            attempts = builder.attempts
            if len(attempts) != len(self.capture.attempts):
                self.capture.attempts = [attempts[k] for k in sorted(attempts)]
        return n

    def boundary(self, past: int) -> int:
        """Where a read-ahead from ``past`` bytes on would start: the first line start that
        far into the lines still to read (-1: none in the bytes at hand, or the file is not
        read by lines: a raw body, a migrated version)."""
        lines = self._lines
        return -1 if lines is None or self.done else lines.boundary(past)

    def read_ahead(self, start: Callable[[int, int], Ahead | None], past: int) -> bool:
        """Have a read-ahead process (:mod:`.ahead`) read the lines from :meth:`boundary`
        on: ``start(offset, size)`` starts one for the lines from ``offset`` to the file's
        ``size`` (None: it could not). The lines before are read here meanwhile. False,
        starting nothing, when there is no such line or no process."""
        offset = self.boundary(past)
        ahead = start(offset, self.size) if offset >= 0 else None
        if ahead is not None and self._lines is not None:
            self._lines.read_ahead(ahead, offset)
        return ahead is not None

    def close(self) -> None:
        """Stop a read-ahead process, if any (reading goes on here)."""
        if self._lines is not None:
            self._lines.close()

    def read_all(self) -> Capture:
        """Read every remaining record; return the capture."""
        while not self.done:
            self.read(1 << 30)
        return self.capture


def _header(data: bytes, name: str) -> tuple[dict[str, Any], int, int, int] | None:
    """(header, line number, offset, end of line) of a capture's header; None for a raw body."""
    size, pos, lineno = len(data), 0, 1
    while pos < size:
        nl = data.find(b"\n", pos)
        end = size if nl < 0 else nl
        if data[pos:end].strip():
            break
        pos, lineno = end + 1, lineno + 1
    else:
        return None
    first = data[pos:end]
    if pos == 0:
        first = first.removeprefix(_BOM)
    if not first.lstrip().startswith(b"{"):
        return None
    try:
        header = orjson.loads(first)
    except orjson.JSONDecodeError:
        if FORMAT.encode() in first:
            raise CaptureError(
                "the capture header is cut off or corrupt", path=name, line=lineno, offset=pos
            ) from None
        return None
    if not isinstance(header, dict):
        return None
    if header.get("format") != FORMAT:
        if "format" not in header:
            return None
        raise CaptureError(
            f"unknown file format {header['format']!r} (expected {FORMAT!r})",
            path=name,
            line=lineno,
            offset=pos,
        )
    return header, lineno, pos, end


def _meta_warnings(header: dict[str, Any], lineno: int) -> list[str]:
    """What is wrong with the header's free-form ``meta``, as warnings (it is only ever read
    where its type allows): ``meta`` that is no object, a ``dialect`` that is no string."""
    meta = header.get("meta")
    where = f"line {lineno}: the capture header's"
    if meta is None:
        return []
    if type(meta) is not dict:
        return [f"{where} 'meta' is {_a(meta)}, not an object; ignored"]
    dialect = meta.get("dialect")
    if dialect is not None and type(dialect) is not str:
        return [f"{where} 'meta.dialect' is {_a(dialect)}, not a dialect name; ignored"]
    return []


def _a(value: Any) -> str:
    """``a list``, ``an object``: the JSON kind of ``value`` with its article."""
    kind = {bool: "boolean", int: "number", float: "number", str: "string", list: "list",
            dict: "object"}.get(type(value), type(value).__name__)  # fmt: skip
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


def _raw(data: bytes, name: str) -> Capture:
    attempt = Attempt(1, chunks=[(0.0, data)], expects_end=False)
    return Capture(path=None, kind="raw-sse", header={}, attempts=[attempt], timed=False)


def _lines(
    data: bytes, pos: int, lineno: int, cursor: Cursor, warnings: list[str]
) -> Iterator[dict[str, Any]]:
    """The records after the header, parsed; a cut-off last line ends them with a warning."""
    size = len(data)
    while pos < size:
        nl = data.find(b"\n", pos)
        end = size if nl < 0 else nl
        line = data[pos:end]
        cursor.line, cursor.offset = lineno, pos
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            if not unreadable(line, nl < 0, exc, lineno, pos, warnings):
                return
        else:
            if not isinstance(record, dict):
                raise CaptureError("record is not a JSON object", line=lineno, offset=pos)
            yield record
        pos, lineno = end + 1, lineno + 1
