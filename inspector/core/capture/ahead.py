"""Reading a capture's lines ahead, in another process.

Opening a large capture, the window feeds the core a slice at a time on its one thread; about
half of that thread's work is decoding each line's record (one ``orjson.loads`` a line) and
checking it. A second process can do that while the window feeds what was already read:
:func:`read_ahead` is that process's work (``python -m inspector.core.capture.ahead``, see
:func:`main`), and :class:`~inspector.core.capture.lines.Lines` takes its messages
(:data:`Message`) in file order, one batch of whole lines each:

- ``("chunks", lines, size, number, times, datas)``: every line of the batch is a chunk record
  in the writer's shape for attempt ``number`` (:func:`chunk_columns`): its times and bytes;
- ``("lines", lines, size, raw)``: any other batch, its bytes as they are; the reader reads
  those lines itself, so every error and warning is its own, with its line and offset;
- ``("end",)`` after the last line, the file seen unchanged since the window read it;
- ``("failed", reason)``: the file is not the one the window read (its size, modification
  time or inode differ: its :data:`Stamp`), or it could not be read. Nothing more follows.

Invariants:
- The batches follow each other without a gap from the offset the process was given, each
  whole lines, the last ending at the ``stop`` offset (the window's file size): ``lines`` and
  ``size`` say how many lines and bytes each covers.
- A ``chunks`` message holds exactly what :class:`Lines` would append for those lines,
  except the check that the attempt exists (the reader knows its attempts: it reads an
  unknown attempt's lines itself).
- The file's stamp is checked before the first line is read and after the last, so a file
  changed meanwhile ends in ``failed`` before ``end``; the reader fails the load then, unless
  it took no batch yet and holds the whole file (it then reads it itself).
- The wire between the processes (:func:`write_message`, :func:`loads`) carries each message
  as its length (:data:`HEAD`: 4 bytes, little-endian) and a pickle of a tuple of str, int,
  float, list and bytes values only.
"""

from __future__ import annotations

import os
import pickle
import struct
import sys
from collections.abc import Callable
from operator import itemgetter
from typing import IO, Any, Final, Protocol

import orjson

BATCH_BYTES: Final = 1 << 18
"""Bytes of lines in one message, about (whole lines: a longer line is one message)."""

Message = tuple[Any, ...]
"""One batch of lines, or the end (see the module docstring)."""
Stamp = tuple[int, int, int]
"""A file's (size, modification time in ns, inode): the same file, unchanged, has the same."""

_KEYS: Final = ("type", "attempt", "t", "text")


class Ahead(Protocol):
    """A read-ahead process's messages, in order, as the reader takes them."""

    def get(self, timeout: float) -> Message | None:
        """The next message, waiting up to ``timeout`` seconds; None if none came by then (a
        process that ended without ``end`` gives ``("failed", reason)``)."""

    def close(self) -> None:
        """Stop the process (if it still runs); no message is taken after this."""


HEAD = struct.Struct("<I")
"""A message's length on the wire, before its pickle."""


def stamp_of(stat: os.stat_result) -> Stamp:
    """The stamp of a file's ``os.stat``."""
    return (stat.st_size, stat.st_mtime_ns, stat.st_ino)


def chunk_columns(records: list[Any]) -> tuple[int, list[float], list[bytes]] | None:
    """``(attempt number, times, bytes)`` if every one of ``records`` is a chunk record in the
    writer's shape (``type`` "chunk", an int ``attempt``, the same for all, a float ``t``, a
    str ``text``, nothing else), the texts encoded as UTF-8; None for any other batch.
    Column by column, each a C-level pass: no Python step per record."""
    first = records[0]
    keys = tuple(first) if type(first) is dict else ()
    if keys != _KEYS:
        return None
    # The first record's own key objects: orjson hands the same ones to every record.
    rtype, number, t, text = map(itemgetter, keys)
    try:  # KeyError: a key missing; TypeError: a record that is no object
        types = list(map(rtype, records))
        numbers = list(map(number, records))
        times = list(map(t, records))
    except (KeyError, TypeError):
        return None
    if set(map(len, records)) != {4} or types.count("chunk") != len(types):
        return None
    if set(map(type, numbers)) != {int} or set(map(type, times)) != {float}:
        return None
    if numbers.count(numbers[0]) != len(numbers):
        return None
    try:  # KeyError: no text; TypeError: a text that is no string
        data = list(map(str.encode, map(text, records)))
    except (KeyError, TypeError):
        return None
    return numbers[0], times, data


def batch_message(lines: list[bytes]) -> Message:
    """The message for a batch of whole lines (see the module docstring)."""
    size = sum(map(len, lines))
    if lines[-1][-1:] == b"\n":  # a last line without one is the reader's to warn about
        try:
            columns = chunk_columns(list(map(orjson.loads, lines)))
        except orjson.JSONDecodeError:
            columns = None
        if columns is not None:
            return ("chunks", len(lines), size, *columns)
    return ("lines", len(lines), size, b"".join(lines))


def read_ahead(
    path: str, start: int, stop: int, stamp: Stamp, put: Callable[[Message], object]
) -> None:
    """Put the messages for the lines of ``path`` from offset ``start`` (a line start) to
    ``stop``, if the file's stamp is ``stamp`` before and after (see the module docstring)."""
    try:
        with open(path, "rb") as f:
            if stamp_of(os.fstat(f.fileno())) != stamp:
                put(("failed", "the file changed after it was read"))
                return
            f.seek(start)
            pos = start
            while pos < stop:
                lines = f.readlines(min(BATCH_BYTES, stop - pos))
                if not lines:
                    break
                message = batch_message(lines)
                pos += message[2]
                put(message)
            if pos != stop or stamp_of(os.fstat(f.fileno())) != stamp:
                put(("failed", "the file changed while it was read"))
                return
    except OSError as exc:
        put(("failed", f"cannot read: {exc.strerror or exc}"))
        return
    put(("end",))


def write_message(out: IO[bytes], message: Message) -> None:
    """Write one message to the wire (length, then pickle)."""
    blob = pickle.dumps(message, pickle.HIGHEST_PROTOCOL)
    out.write(HEAD.pack(len(blob)))
    out.write(blob)


def loads(blob: bytes | memoryview) -> Message:
    """A message from its pickle (only ever one this module wrote)."""
    message: Message = pickle.loads(blob)
    return message


def main(argv: list[str]) -> int:
    """``python -m inspector.core.capture.ahead PATH START STOP SIZE MTIME_NS INODE``: the
    messages on standard output."""
    path, *numbers = argv
    start, stop, size, mtime, inode = map(int, numbers)
    out = sys.stdout.buffer
    read_ahead(path, start, stop, (size, mtime, inode), lambda m: write_message(out, m))
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
