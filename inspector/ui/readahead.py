"""The read-ahead process of a large capture being opened (:mod:`inspector.core.capture.ahead`):
started as ``python -m inspector.core.capture.ahead``, its messages taken off its pipe by a
thread of their own, and handed to the reader on the window's thread.

Invariants:
- The window's thread only unpickles a message (a batch's times and bytes: a fraction of what
  decoding its lines costs); waiting on the pipe happens on the pump thread, which releases
  the GIL while it waits, and holds at most ``QUEUED`` messages (the process then waits on
  its pipe: a slow window never makes it hold the file).
- A process whose wire ends without ``end`` (it died, or was killed) gives
  ``("failed", reason)``; one that cannot be started gives no reader at all (``start``
  returns None): the window reads the file itself.
- :meth:`ProcessAhead.close`, and the object's collection, kill the process; no process
  outlives the load it reads for.
- No Qt here: a thread, a pipe and a subprocess.
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import weakref
from typing import IO

from inspector.core.capture.ahead import Message, Stamp, loads, read_message, stamp_of
from inspector.core.capture.format import CaptureError
from inspector.core.capture.reader import CaptureReader, read_file

HEAD_SLACK = 1 << 20
"""Bytes read past a head for the line that ends in it (a longer line: the file is read whole)."""
QUEUED = 16
"""Messages (about 256 KB of lines each) taken off the pipe ahead of the window."""


class ProcessAhead:
    """One read-ahead process and its pump thread (see the module docstring)."""

    def __init__(self, path: str, stamp: Stamp, start: int, stop: int) -> None:
        args = [path, str(start), str(stop), *map(str, stamp)]
        self._process = subprocess.Popen(
            [sys.executable, "-m", "inspector.core.capture.ahead", *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self._queue: queue.Queue[bytes | None] = queue.Queue(QUEUED)
        self._closed = threading.Event()
        out = self._process.stdout
        assert out is not None
        threading.Thread(
            target=_pump, args=(out, self._queue, self._closed), name="read-ahead", daemon=True
        ).start()
        self._finalizer = weakref.finalize(self, _stop, self._process, self._queue, self._closed)

    def get(self, timeout: float) -> Message | None:
        """The next message, waiting up to ``timeout`` seconds (None: none yet)."""
        try:
            blob = self._queue.get(timeout=timeout)
        except queue.Empty:
            return None
        if blob is None:
            return ("failed", "the read-ahead process ended early")
        return loads(blob)

    def close(self) -> None:
        """Kill the process (if it still runs) and let the pump thread end."""
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
    before = file_stamp(path)
    if before is None or before[0] < 2 * past:
        return _whole(path, before)
    with open(path, "rb") as f:
        head = f.read(past + slack)
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


def _pump(out: IO[bytes], messages: queue.Queue[bytes | None], closed: threading.Event) -> None:
    """Move the process's messages off its pipe until it ends (then None), or until closed."""
    while not closed.is_set():
        blob = read_message(out)
        if blob is None:
            break
        messages.put(blob)
    if not closed.is_set():
        messages.put(None)
    out.close()


def _stop(
    process: subprocess.Popen[bytes], messages: queue.Queue[bytes | None], closed: threading.Event
) -> None:
    closed.set()
    if process.poll() is None:
        process.kill()
    while True:  # a pump blocked on a full queue takes its next turn, sees it closed, ends
        try:
            messages.get_nowait()
        except queue.Empty:
            break
    process.wait()
