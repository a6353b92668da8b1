"""Progress of a long ``analyze`` on stderr, when stderr is a terminal (nothing otherwise).

One status line, rewritten in place (``\\r``, cleared at the end): the phase (``reading``,
``ingest``, ``clients``; ``reading + ingest`` then ``verdicts`` for a large capture read
ahead and fed as it is read), the input's size (and the bytes read so far, then), the chunks
read and the ingest's rate in chunks/s (so far while it runs, then its own), and the seconds
elapsed. It is written at every phase change and then every :data:`TICK` seconds by a daemon
thread while a phase lasts, so a run of minutes is never silent and a quick one prints a line
per phase at most.

Invariants: nothing is written when the stream is not a terminal (a script's or CI's stderr
stays clean, and the report on stdout is never touched); the line is cleared before the report
is written, so the terminal shows the report alone; the thread only reads the fields set here
and never outlives :meth:`Progress.close`.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Final, TextIO

TICK: Final = 0.5
"""Seconds between rewrites of the line while a phase lasts."""


class Progress:
    """The status line of one ``analyze`` run (a no-op unless ``stream`` is a terminal)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.on = _is_terminal(self.stream)
        self.phase = ""
        self.size = 0
        """Bytes of the input (the file's size)."""
        self.chunks = 0
        """Chunks read from the input."""
        self.done = 0
        """Bytes of the input read so far, while it is read and fed at once (0: not told)."""
        self.rate: float | None = None
        """Chunks per second of the ingest, once it is done."""
        self._start = time.monotonic()
        self._phase_start = self._start
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._width = 0

    def begin(self, phase: str) -> None:
        """Enter ``phase`` (its line is written at once); the ingest's rate is taken when the
        ``ingest`` phase ends."""
        now = time.monotonic()
        if "ingest" in self.phase and self.chunks:
            self.rate = self.chunks / max(now - self._phase_start, 1e-9)
        self.phase, self._phase_start = phase, now
        if not self.on:
            return
        self._write()
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="analyze-progress", daemon=True)
            self._thread.start()

    def line(self) -> str:
        """The status line as it reads now."""
        size = _size(self.size)
        if 0 < self.done < self.size:
            size = f"{_size(self.done)} of {size}"
        parts = [f"analyze: {self.phase}", size]
        if self.chunks:
            parts.append(f"{self.chunks:,} chunks")
        rate = self.rate
        if rate is None and "ingest" in self.phase and self.chunks:  # so far, while it runs
            rate = self.chunks / max(time.monotonic() - self._phase_start, 1e-9)
        if rate is not None:
            parts.append(f"{rate:,.0f} chunks/s")
        parts.append(f"{time.monotonic() - self._start:.1f} s")
        return " · ".join(parts)

    def close(self) -> None:
        """Stop the thread and clear the line (before the report is written)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self.on:
            with self._lock:
                self.stream.write("\r" + " " * self._width + "\r")
                self.stream.flush()

    def _run(self) -> None:
        while not self._stop.wait(TICK):
            self._write()

    def _write(self) -> None:
        with self._lock:
            if self._stop.is_set():
                return
            text = self.line()
            pad = max(self._width - len(text), 0)
            self._width = max(self._width, len(text))
            try:
                self.stream.write("\r" + text + " " * pad)
                self.stream.flush()
            except (OSError, ValueError):  # a closed terminal: progress is never worth a crash
                self.on = False


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _size(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1e6:.1f} MB"
    return f"{n / 1e3:.1f} KB" if n >= 1000 else f"{n} bytes"
