"""The read-ahead process of a large capture being opened (:mod:`.ahead`):
started as ``python -m inspector.core.capture.ahead``, its messages read off its pipe by the
window's thread when the reader asks for the next one.

Invariants:
- The window's thread only reads and unpickles a message (a batch's times and bytes: a
  fraction of what decoding its lines costs), and waits for one at most the time asked.
  No thread of ours takes part: a reader thread woke for every piece of the pipe and, needing
  the GIL each time, made the window hand it over every few hundred microseconds (the
  window's thread then held it longer, and the batches came late).
- The pipe holds up to ``PIPE_BYTES`` (where the system lets it be that large): the process
  runs that far ahead, then waits on the pipe, so a slow window never makes it hold more.
- A process whose wire ends without ``end`` (it died, or was killed) gives
  ``("failed", reason)``; one that cannot be started, or sends no batch first, gives no
  reader at all: the window reads the file itself, whole.
- :meth:`ProcessAhead.close`, and the object's collection, kill the process; no process
  outlives the load it reads for.
- No Qt here: a pipe and a subprocess.
"""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import sys
import weakref

if sys.platform != "win32":  # no read-ahead there: select() cannot wait on a pipe
    import fcntl

from inspector.core.capture.ahead import HEAD, Message, Stamp, loads, stamp_of
from inspector.core.capture.format import CaptureError
from inspector.core.capture.reader import CaptureReader, read_file

HEAD_SLACK = 1 << 20
"""Bytes read past a head for the line that ends in it (a longer line: the file is read whole)."""
FIRST_WAIT = 10.0
"""Seconds the worker thread waits for the process's first batch (it starts an interpreter:
some 60 ms) before it reads the file whole instead."""
READ_BYTES = 1 << 18
"""Bytes read off the pipe at a time, at most (a message's rest is read whole)."""
PIPE_BYTES = 1 << 20
"""How far ahead the process may run: the pipe's size, asked for (Linux grants up to 1 MB
unprivileged; elsewhere the system's own)."""


class ProcessAhead:
    """One read-ahead process and its pipe (see the module docstring)."""

    def __init__(self, path: str, stamp: Stamp, start: int, stop: int) -> None:
        args = [path, str(start), str(stop), *map(str, stamp)]
        self._process = subprocess.Popen(
            [sys.executable, "-m", "inspector.core.capture.ahead", *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            bufsize=0,
        )
        assert self._process.stdout is not None
        self._fd = self._process.stdout.fileno()
        set_size = getattr(fcntl, "F_SETPIPE_SZ", None) if sys.platform != "win32" else None
        if set_size is not None:
            with contextlib.suppress(OSError):  # a system that grants less: its own size
                fcntl.fcntl(self._fd, set_size, PIPE_BYTES)
        self._buffer = bytearray()  # read off the pipe, not handed out yet
        self._first: Message | None = None  # taken by started(), handed out first
        self._ended = False
        self._finalizer = weakref.finalize(self, _stop, self._process)

    def get(self, timeout: float) -> Message | None:
        """The next message, waiting up to ``timeout`` seconds for it to begin (None: none
        yet); once one begins it is read whole (the process writes each in one go)."""
        if self._first is not None:
            message, self._first = self._first, None
            return message
        buffer = self._buffer
        if not self._ended and not buffer:
            ready, _, _ = select.select([self._fd], [], [], timeout)
            if not ready:
                return None
        while not self._ended:
            need = HEAD.size + HEAD.unpack_from(buffer)[0] if len(buffer) >= HEAD.size else 0
            if need and len(buffer) >= need:
                with memoryview(buffer) as view:
                    message = loads(view[HEAD.size : need])
                del buffer[:need]
                return message
            piece = os.read(self._fd, max(need - len(buffer), READ_BYTES))
            if not piece:
                self._ended = True
            buffer += piece
        return ("failed", "the read-ahead process ended early")

    def started(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the first message (kept, handed out first):
        whether it is a batch, so the process runs (an interpreter that cannot run it ends at
        once, and a file changed since it was stamped is refused at once)."""
        self._first = self.get(timeout)
        return self._first is not None and self._first[0] in ("chunks", "lines")

    def close(self) -> None:
        """Kill the process (if it still runs)."""
        self._finalizer()


class ReadAheadStarter:
    """Starts the read-ahead process of one file as the reader asks
    (:data:`inspector.core.replay.loading.ReadAhead`)."""

    def __init__(self, path: str, stamp: Stamp) -> None:
        self.path = path
        self.stamp = stamp

    def __call__(self, offset: int, size: int) -> ProcessAhead | None:
        try:
            return ProcessAhead(self.path, self.stamp, offset, size)
        except OSError:
            return None


class Started:
    """A read-ahead process started before the reader asked for it (:func:`read_for_load`):
    handed over when the reader asks for the lines from the same offset."""

    def __init__(self, process: ProcessAhead, offset: int) -> None:
        self.process: ProcessAhead | None = process
        self.offset = offset

    def __call__(self, offset: int, size: int) -> ProcessAhead | None:
        process, self.process = self.process, None
        if process is not None and offset != self.offset:
            process.close()
            return None
        return process

    def close(self) -> None:
        """Kill the process if the reader never took it."""
        if self.process is not None:
            self.process.close()
            self.process = None


class Opening:
    """What a file is opened from (:func:`read_for_load`): its bytes (all of them, or the
    head of ``size`` bytes when ``ahead`` reads the rest), and how to read ahead (None:
    not at all)."""

    def __init__(self, data: bytes, ahead: Started | ReadAheadStarter | None, size: int) -> None:
        self.data = data
        self.ahead = ahead
        self.size = size

    @property
    def whole(self) -> bool:
        """Whether ``data`` is the whole file."""
        return len(self.data) == self.size

    def close(self) -> None:
        """The opening is dropped: a process started for it is killed."""
        if isinstance(self.ahead, Started):
            self.ahead.close()


def read_for_load(path: str, past: int, slack: int = HEAD_SLACK) -> Opening:
    """Read ``path`` to open it (on a worker thread: it reads). A capture at the current
    version of at least ``2 * past`` bytes is read only up to the line start ``past`` bytes
    into its lines, and a read-ahead process started for the rest: the window never holds the
    whole file, and feeds its head while the process reads on. Anything else (a raw body, an
    older version, no line start within ``slack`` bytes more, no process) is read whole, as
    is a file that changed while its head was read (it may be read ahead later: not then).
    CaptureError as :func:`read_file` raises it."""
    before = file_stamp(path) if sys.platform != "win32" else None  # select() on a pipe
    if before is None or before[0] < 2 * past:
        return _whole(path, before)
    try:
        with open(path, "rb") as f:
            head = f.read(past + slack)
    except OSError:  # read_file says why, in one line
        return _whole(path, None)
    if file_stamp(path) != before:
        return _whole(path, None)
    try:
        offset = CaptureReader(head, path, before[0]).boundary(past)
    except CaptureError:
        offset = -1
    if offset < 0:
        return _whole(path, before)
    try:
        process = ProcessAhead(path, before, offset, before[0])
    except OSError:
        return _whole(path, before)
    if not process.started(FIRST_WAIT):  # the rest is not at hand otherwise: read it here
        process.close()
        return _whole(path, None)
    return Opening(head[:offset], Started(process, offset), before[0])


def _whole(path: str, before: Stamp | None) -> Opening:
    """The whole file, read ahead later (if large) when it did not change while read."""
    data = read_file(path)
    same = before is not None and before == file_stamp(path) and before[0] == len(data)
    return Opening(data, ReadAheadStarter(path, before) if same and before else None, len(data))


def file_stamp(path: str) -> Stamp | None:
    """``path``'s stamp now, or None (gone, or no regular file)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return stamp_of(st) if os.path.isfile(path) else None


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.kill()
    process.wait()
    if process.stdout is not None:
        process.stdout.close()
