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
from operator import itemgetter
from typing import Any, Final

import orjson

from inspector.core.capture.format import CaptureError
from inspector.core.capture.records import CaptureBuilder

BATCH_BYTES: Final = 1 << 18
"""Bytes of lines decoded at once when many records are asked for (a longer line is read
alone): larger batches cost no less per line, and hold more."""
BATCH_LINES: Final = 512
"""Up to this many records asked for, exactly that many lines are read as one batch."""

_KEYS: Final = ("type", "attempt", "t", "text")


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

    def __init__(self, data: bytes, pos: int, lineno: int, cursor: Cursor) -> None:
        self._file: BytesIO | None = BytesIO(data)  # shares data's bytes: nothing is copied
        self._file.seek(pos)
        self.pos = pos
        """Offset of the next line."""
        self.lineno = lineno
        """Number of the next line."""
        self.cursor = cursor
        self.done = False
        """Every line has been read (or a cut-off last line ended the reading)."""

    def read(self, builder: CaptureBuilder, records: int) -> int:
        """Read up to ``records`` more records into ``builder``; return how many were read."""
        n, file = 0, self._file
        while n < records and file is not None:
            # A batch of whole lines (each with its newline, but for a last one that has
            # none): at most the lines asked for, at most about BATCH_BYTES of them.
            want = records - n
            lines = file.readlines(BATCH_BYTES) if want > BATCH_LINES else [*islice(file, want)]
            if not lines:
                self.done, self._file, file = True, None, None
                break
            n += self._batch(builder, lines)
            if self.done:
                self._file = file = None
        self.cursor.line, self.cursor.offset = self.lineno, self.pos
        return n

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
    (see the module docstring) for one attempt the builder has; False (nothing appended)
    for any other batch. Column by column, each a C-level pass: no Python step per record."""
    first = records[0]
    keys = tuple(first) if type(first) is dict else ()
    if keys != _KEYS:
        return False
    # The first record's own key objects: orjson hands the same ones to every record.
    rtype, number, t, text = map(itemgetter, keys)
    try:  # KeyError: a key missing; TypeError: a record that is no object
        types = list(map(rtype, records))
        numbers = list(map(number, records))
        times = list(map(t, records))
    except (KeyError, TypeError):
        return False
    if set(map(len, records)) != {4} or types.count("chunk") != len(types):
        return False
    if set(map(type, numbers)) != {int} or set(map(type, times)) != {float}:
        return False
    attempt = builder.attempts.get(numbers[0]) if len(set(numbers)) == 1 else None
    if attempt is None:
        return False
    try:  # KeyError: no text; TypeError: a text that is no string
        data = list(map(str.encode, map(text, records)))
    except (KeyError, TypeError):
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
