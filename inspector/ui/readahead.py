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
