"""A capture's lines at the current format version, read a batch at a time
(:class:`Lines`, used by :class:`inspector.core.capture.reader.CaptureReader`).

Nearly every line of a long capture is a chunk record in the writer's shape, so a batch of
lines is cut from the file by ``BytesIO`` (``memchr``, in C: ``bytes.split`` and
``splitlines`` look at every byte in a Python-speed loop), decoded with one
``map(orjson.loads, ...)`` and, when every record of it is such a chunk for one attempt
already seen, checked and appended column by column with C-level passes (no Python step per
line). Any other batch (a line that is no JSON, a blank one, a record of another type or
shape, chunks of several attempts) is read line by line, from its decoded records when every
line decoded (else decoding each again), each line's number and offset at hand.

Invariants:
- Both paths give the same Capture: the batch path takes only records the line path takes
  the same way (``type`` "chunk", an ``attempt`` int of a known attempt, a float ``t``, a str
  ``text``, nothing else) and appends ``(t, text.encode())``, as the line path and
  :meth:`~inspector.core.capture.records.CaptureBuilder.add` do.
- Errors and warnings are the line path's, with the line number and the byte offset of the
  line they are about; a cut-off last line (no newline after it) is dropped with a warning.
- The file's bytes are shared, never copied whole: a batch holds its own lines only, about
  ``BATCH_BYTES`` of them (or the few lines asked for).
"""

from __future__ import annotations

from io import BytesIO
from itertools import islice
from typing import Any, Final

import orjson

from inspector.core.capture.ahead import Ahead, chunk_columns
from inspector.core.capture.format import CaptureError
from inspector.core.capture.records import CaptureBuilder

BATCH_BYTES: Final = 1 << 18
"""Bytes of lines decoded at once when many records are asked for (a longer line is read
alone): larger batches cost no less per line, and hold more."""
BATCH_LINES: Final = 512
"""Up to this many records asked for, exactly that many lines are read as one batch."""
WAIT: Final = 0.005
"""Seconds a read waits for the read-ahead process's next message (then it reads nothing)."""


class Cursor:
    """Where the record reader is: lets errors raised after migration name their line."""

    __slots__ = ("line", "offset")

    def __init__(self, line: int, offset: int) -> None:
        self.line = line
        self.offset = offset


class Lines:
    """The lines of ``data`` from offset ``pos`` (line number ``lineno``) on, read into a
    :class:`CaptureBuilder` (see the module docstring); ``cursor`` names the line being
    read, and after :meth:`read` the next one."""

    def __init__(
        self, data: bytes, pos: int, lineno: int, cursor: Cursor, size: int | None = None
    ) -> None:
        self._file: BytesIO | None = BytesIO(data)  # shares data's bytes: nothing is copied
        self._file.seek(pos)
        self.pos = pos
        """Offset of the next line."""
        self.lineno = lineno
        """Number of the next line."""
        self.cursor = cursor
        self.done = False
        """Every line has been read (or a cut-off last line ended the reading)."""
        self._data: bytes | None = data
        self.size = len(data) if size is None else size
        """The file's size (``data`` may hold only its head: see :meth:`read_ahead`)."""
        self._ahead: Ahead | None = None  # a read-ahead process, from offset _from on
        self._from = -1
        self._took = False  # a batch of it was taken

    def read_ahead(self, ahead: Ahead, start: int) -> None:
        """Take the lines from offset ``start`` on (a line start past ``pos``) from the
        messages of ``ahead`` (see :mod:`.ahead`); the lines before it are read here."""
        self._ahead, self._from = ahead, start

    def boundary(self, past: int) -> int:
        """The offset of the first line start at least ``past`` bytes on, before the end of
        the file (-1: none)."""
        data = self._data
        if data is None or self.pos + past > len(data):
            return -1
        at = data.find(b"\n", self.pos + past - 1) + 1
        return at if 0 < at < self.size else -1

    def close(self) -> None:
        """Stop a read-ahead process, if any (reading goes on here)."""
        if self._ahead is not None:
            self._ahead.close()
            self._ahead = None

    def read(self, builder: CaptureBuilder, records: int) -> int:
        """Read up to ``records`` more records into ``builder`` (a read-ahead batch, whole, if
        one is at hand); return how many were read."""
        if self._ahead is not None and self.pos == self._from:
            return self._take(builder)
        n, file = 0, self._file
        while n < records and file is not None:
            # A batch of whole lines (each with its newline, but for a last one that has
            # none): at most the lines asked for, at most about BATCH_BYTES of them.
            want = records - n
            lines = file.readlines(BATCH_BYTES) if want > BATCH_LINES else [*islice(file, want)]
            if not lines:
                self.done, self._file, self._data, file = True, None, None, None
                break
            if self._ahead is not None and self.pos + sum(map(len, lines)) >= self._from:
                lines = self._clip(lines, file)
                file = None  # the rest comes from the read-ahead process
            n += self._batch(builder, lines)
            if self.done:
                self._file = self._data = file = None
        self.cursor.line, self.cursor.offset = self.lineno, self.pos
        return n

    def _clip(self, lines: list[bytes], file: BytesIO) -> list[bytes]:
        """``lines`` up to the read-ahead offset (a line start, so some line ends there)."""
        total, stop = self.pos, self._from
        for k, line in enumerate(lines):
            total += len(line)
            if total >= stop:
                del lines[k + 1 :]
                break
        file.seek(stop)
        return lines

    def _take(self, builder: CaptureBuilder) -> int:
        """Take the read-ahead process's next message, if one came (see :mod:`.ahead`)."""
        ahead, file = self._ahead, self._file
        assert ahead is not None and file is not None
        message = ahead.get(WAIT)
        if message is None:  # none yet: the process is starting, or busy
            return 0
        kind = message[0]
        if kind in ("end", "failed"):
            self.close()
            whole = self._data is not None and len(self._data) == self.size
            if kind == "failed" and (self._took or not whole):
                raise CaptureError(f"{message[1]}; open it again")
            return 0  # read on here: the end (nothing left), or every line the process had
        lines, size = message[1], message[2]
        self._took, self._from = True, self._from + size
        if kind != "chunks":  # any other batch: its lines are read here
            n = self._batch(builder, BytesIO(message[3]).readlines())
        else:
            self._chunks(builder, *message[3:])
            self.pos, self.lineno, n = self.pos + size, self.lineno + lines, lines
        file.seek(self.pos)
        self.cursor.line, self.cursor.offset = self.lineno, self.pos
        return n

    def _chunks(
        self, builder: CaptureBuilder, number: int, times: list[float], datas: list[bytes]
    ) -> None:
        """Append a read-ahead batch of chunk records for attempt ``number``: the first goes
        through the builder when the attempt is not known yet (it opens it, or names the
        invalid number at this line), as the line path does."""
        attempt = builder.attempts.get(number)
        if attempt is None:
            self.cursor.line, self.cursor.offset = self.lineno, self.pos
            first = {"type": "chunk", "attempt": number, "t": times[0], "text": datas[0].decode()}
            builder.add(first, self.lineno)
            times, datas = times[1:], datas[1:]
            attempt = builder.attempts[number]
        attempt.chunks += zip(times, datas, strict=True)

    def _batch(self, builder: CaptureBuilder, lines: list[bytes]) -> int:
        """Read ``lines``: at once if they are chunks in the writer's shape, else one by one."""
        try:
            decoded = list(map(orjson.loads, lines))
        except orjson.JSONDecodeError:
            return self._one_by_one(builder, lines, None)
        if not _append_chunks(decoded, builder):
            return self._one_by_one(builder, lines, decoded)
        self.pos += sum(map(len, lines))
        self.lineno += len(lines)
        return len(lines)

    def _one_by_one(
        self, builder: CaptureBuilder, lines: list[bytes], decoded: list[Any] | None
    ) -> int:
        """Read ``lines`` one at a time (from their records, when they all ``decoded``), each
        error and warning naming its line and offset."""
        cursor, attempts, warnings = self.cursor, builder.attempts, builder.capture.warnings
        pos, lineno, last = self.pos, self.lineno, len(lines) - 1
        current, chunks = 0, None  # the attempt the last chunk went to, and its chunks
        n = 0
        for i, line in enumerate(lines):
            cursor.line, cursor.offset = lineno, pos
            size = len(line)
            if decoded is not None:
                record = decoded[i]
            else:
                if line[-1:] == b"\n":
                    line = line[:-1]
                try:
                    record = orjson.loads(line)
                except orjson.JSONDecodeError as exc:
                    cut_off = i == last and size == len(line)  # no newline after it: the end
                    if not unreadable(line, cut_off, exc, lineno, pos, warnings):
                        self.done = True
                        break
                    pos, lineno = pos + size, lineno + 1
                    continue
            if type(record) is dict and len(record) == 4:
                number, t, text = record.get("attempt"), record.get("t"), record.get("text")
                if (
                    type(number) is int
                    and type(t) is float
                    and type(text) is str
                    and record.get("type") == "chunk"
                ):
                    if number != current:
                        found = attempts.get(number)
                        chunks = None if found is None else found.chunks
                        current = number if found is not None else 0
                    if chunks is not None:
                        chunks.append((t, text.encode()))
                        pos, lineno, n = pos + size, lineno + 1, n + 1
                        continue
            if not isinstance(record, dict):
                raise CaptureError("record is not a JSON object", line=lineno, offset=pos)
            builder.add(record, lineno)
            pos, lineno, n = pos + size, lineno + 1, n + 1
        self.pos, self.lineno = pos, lineno
        return n


def _append_chunks(records: list[Any], builder: CaptureBuilder) -> bool:
    """Append ``records`` to their attempt if every one is a chunk in the writer's shape
    (:func:`~inspector.core.capture.ahead.chunk_columns`) for one attempt the builder has;
    False (nothing appended) for any other batch."""
    columns = chunk_columns(records)
    if columns is None:
        return False
    number, times, data = columns
    attempt = builder.attempts.get(number)
    if attempt is None:
        return False
    attempt.chunks += zip(times, data, strict=True)
    return True


def unreadable(
    line: bytes,
    last: bool,
    exc: orjson.JSONDecodeError,
    lineno: int,
    pos: int,
    warnings: list[str],
) -> bool:
    """A line that is no JSON: True for a blank one (skipped, reading goes on), False for a
    cut-off last line (warned about: reading ends there); CaptureError for any other."""
    if not line.strip():
        return True
    if last:
        warnings.append(f"line {lineno} is cut off (the capture was interrupted); ignored")
        return False
    raise CaptureError(
        f"corrupt record (not valid JSON at column {exc.colno})", line=lineno, offset=pos
    ) from None
