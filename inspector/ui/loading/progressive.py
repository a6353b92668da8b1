"""Opening a large file progressively: its bytes read on a worker thread, then fed to a
:class:`LoadingSource` a slice at a time on this thread.

Invariants:
- Reading releases the GIL (hundreds of megabytes would otherwise hold the window for a third
  of a second), so it alone runs on a worker thread; what it read comes back through a queued
  signal as an :class:`Opening`: the whole file, or a large capture's head with the read-ahead
  process started for the rest (:func:`~inspector.core.capture.readahead.read_for_load`). One
  thread owns the core: no locks, no torn reads.
- Slices run from a timer due again when a tick *ends* (re-armed at 0 ms then): every timer
  that fell due during the tick (the replay clock among them) runs first, and the loop never
  sleeps between ticks. (Left repeating, Qt makes a timer due again from when it fired: after
  a 15 ms slice a 1-ms timer was due before the timers that fell due meanwhile and ran again
  ahead of them, so two ticks held the loop in one go; a repeating 0-ms one starves them.)
  A slice lasts about ``LOAD_SLICE`` seconds, so input is handled between them and the
  window is usable from the first records; ``flush`` asks for a view flush every
  ``LOAD_FLUSH`` seconds, in a tick of its own (a tick is one slice, one flush or one piece
  of work ahead of the views, never two: the loop is held for the longest of them, not their
  sum). The tick after a flush feeds nothing: the layout and paint the flush asked for are
  that turn of the loop's work (they would otherwise run in one turn with the next slice).
- Whole-stream work the views would ask for in one go is done ahead of them, in ticks of its
  own: the verdicts when an attempt or a call begins or the last call closes (resolving the
  tools; validating the call that closed: a megabyte of arguments is some 15 ms), and once
  the file is in each attempt's verdicts and quirks; the views then find them cached, and
  rebind to the replay (``finished``) from caches.
- A read that was cancelled, or overtaken by another, is dropped when its bytes arrive.
- The file's bytes are let go in a tick of their own once the file is in (freeing 360 MB is
  some 26 ms: it would otherwise land in the last slice, where the reader lets them go).
- ``progress`` reports (done, total), then (-1, 0) when loading stops for any reason: after
  ``finished`` or ``kept``, so whoever hears it finds the document showing what came of it.
"""

from __future__ import annotations

import gc
import threading
import time
from collections import deque
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal

from inspector.core.analysis.session import AttemptView
from inspector.core.base.errors import InspectorError
from inspector.core.capture.readahead import Opening, read_for_load
from inspector.core.replay import loading
from inspector.core.replay.sources import LoadingSource, ReplaySource

LOAD_SLICE = 0.015
"""Seconds of reading and feeding per slice (the longest the event loop waits for one, less
its last step's overrun: 15 ms keeps slices of the 1M-chunk bench under ~35 ms)."""
LOAD_FLUSH = 0.1
"""Seconds between view flushes while a file loads (views catch up 10 times a second)."""


class ProgressiveOpen(QObject):
    """The read, then the feeding, of one large file at a time."""

    read = Signal(str, object)
    """(path, :class:`Opening`): the file is read (whole, or its head with a read-ahead process
    for the rest); the document starts feeding it (:meth:`feed`)."""
    finished = Signal(object)
    """The file is in: its :class:`ReplaySource`."""
    kept = Signal(object)
    """Loading was stopped: a :class:`~inspector.core.replay.sources.KeptSource` with what was
    read."""
    flush = Signal()
    """Time to show what was fed since the last flush."""
    progress = Signal(int, int)
    """(done, total) bytes read, or steps fed once a replay catches up; (-1, 0) when done."""
    failed = Signal(str, str)
    """(path, one-line reason): the file could not be read, or a record of it."""
    _file_read = Signal(int, str, object, str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.reading: str | None = None
        """The file being read on the worker thread, if any."""
        self.source: LoadingSource | None = None
        """The source being fed, if any."""
        self._token = 0
        self._timer = QTimer(self)
        self._timer.setInterval(1)
        self._timer.timeout.connect(self._tick)
        self._flushed = 0.0
        self._ending: ReplaySource | None = None  # the file is in: its replay, shown next
        self._todo: deque[Callable[[], object]] = deque()  # work ahead of the views
        self._judged: tuple[AttemptView, int, bool] | None = None  # last judged: (attempt,
        # calls, the last call open)
        self._fed = False  # a slice ran since the last flush
        self._painting = False  # a flush ran last tick: this turn of the loop paints it
        self._bytes: bytes | None = None  # the file read, until it is in (see the docstring)
        self._paused = False  # the cyclic collector was paused by feed()
        self._file_read.connect(self._on_file_read)

    @property
    def busy(self) -> bool:
        """Is a file being read or fed?"""
        return self.reading is not None or self.source is not None

    @property
    def feeding(self) -> bool:
        """Is the slice timer running?"""
        return self._timer.isActive()

    def start(self, path: str, size: int) -> None:
        """Read ``path`` (``size`` bytes) on a worker thread; ``read`` brings its bytes back."""
        self.cancel()
        self._token += 1
        token = self._token
        self.reading = path
        self.progress.emit(0, size)

        def read() -> None:
            try:
                self._file_read.emit(token, path, read_for_load(path, loading.AHEAD_PAST), "")
            except InspectorError as exc:
                self._file_read.emit(token, path, None, str(exc))

        threading.Thread(target=read, name="read-capture", daemon=True).start()

    def feed(self, source: LoadingSource) -> None:
        """Feed ``source`` (the file just read, now on show) a slice at a time, the cyclic
        collector paused until feeding stops (see :meth:`_slice`)."""
        if gc.isenabled():
            gc.disable()
            self._paused = True
        self.source, self._ending, self._judged, self._fed = source, None, None, False
        self._painting = False
        self._todo.clear()
        self.progress.emit(*source.progress)
        self._flushed = time.monotonic()
        self._timer.start()

    def fail(self, path: str, reason: str) -> None:
        """The read file cannot be loaded (e.g. an unreadable header): loading ends."""
        self.progress.emit(-1, 0)
        self.failed.emit(path, reason)

    def stop(self) -> None:
        """Cancel: a file still being read is dropped; one being fed stops where it is, and
        ``kept`` hands over what was read."""
        if self.reading is not None:
            self.cancel()
            return
        source = self.source
        if source is None:
            return
        self._forget()
        self.kept.emit(source.kept())
        self.progress.emit(-1, 0)

    def cancel(self) -> None:
        """Drop the file being read or fed (another file or a session replaces it)."""
        if self.reading is not None:
            self.reading = None
            self.progress.emit(-1, 0)
        if self.source is not None:
            self._forget()
            self.progress.emit(-1, 0)

    def _forget(self) -> None:
        """Feeding stops: nothing of the source is kept here (it may be hundreds of MB), and
        its read-ahead process, if any, is stopped."""
        self._timer.stop()
        if self._paused:
            gc.enable()
            self._paused = False
        if self.source is not None:
            self.source.close()
        self.source = self._ending = self._judged = self._bytes = None
        self._todo.clear()

    def _on_file_read(self, token: int, path: str, opening: Opening | None, error: str) -> None:
        if token != self._token or self.reading is None:
            if opening is not None:
                opening.close()
            return  # cancelled, or another file was opened meanwhile
        self.reading = None
        if error or opening is None:
            self.fail(path, error)
            return
        self._bytes = opening.data
        self.read.emit(path, opening)
        if self.source is None:  # not fed (not a stream, an unreadable header)
            opening.close()
            self._bytes = None

    def _tick(self) -> None:
        """One tick (:meth:`_slice`), the next one due as this one ends (see the docstring)."""
        self._slice()
        if self._timer.isActive():
            self._timer.start(0)

    def _let_bytes_go(self) -> None:
        self._bytes = None

    def _slice(self) -> None:
        """One timer tick: pieces of work the views would ask for (for a slice's time), else
        the views' flush when due, else a slice of reading and feeding; never two of these, so
        none waits behind another in one turn of the event loop. Whole-stream work the views
        ask for first is done ahead of them, in ticks of its own: the verdicts when an attempt
        or a call begins (the first ones resolve the tools, checking every schema; later, the
        call before it closed and is validated) and, once the file is in, each attempt's
        verdicts and quirks; then ``finished`` rebinds the views. The tick after a flush does
        nothing: the loop lays out and paints what the flush changed before the next slice."""
        source = self.source
        if source is None:
            self._timer.stop()
            return
        if self._painting:
            self._painting = False
            return
        if self._todo:
            self._work()
            return
        if self._ending is not None:
            whole = self._ending
            self._forget()
            self.finished.emit(whole)
            self.progress.emit(-1, 0)
            return
        now = time.monotonic()
        if self._fed and now - self._flushed >= LOAD_FLUSH:
            self._flushed, self._fed, self._painting = now, False, True
            self.progress.emit(*source.progress)
            self.flush.emit()
            return
        self._fed = True
        try:
            replay: ReplaySource | None = source.step(LOAD_SLICE)
        except InspectorError as exc:  # a corrupt record: keep what was read before it
            self.stop()
            self.failed.emit(source.name, str(exc))
            return
        gc.freeze()  # what was read is long-lived: keep collections (none while feeding:
        # they held the GIL and paused the window some 3,000 times for a 1M-chunk file; from
        # the end on) from rescanning millions of records and events every time. The core
        # makes no reference cycles (tests/core/replay/test_progressive_loading.py checks), so
        # pausing and freezing keep nothing alive that refcounting would not free.
        views = source.analysis.attempts
        judged = _judge_key(views[-1]) if views else None
        if judged != self._judged:  # a new attempt or call (the call before it closed), or
            # the last call closed: validated here, not in the next flush
            self._judged = judged
            self._todo.append(views[-1].judge)
        if replay is not None:
            self._ending = replay
            self._todo.appendleft(self._let_bytes_go)  # first: the tick holds it alone
            views = replay.analysis.attempts
            self._todo.extend(v.judge for v in views)
            self._todo.extend(v.detect_quirks for v in views)

    def _work(self) -> None:
        """Pieces of work ahead of the views, for a slice's time (at least one)."""
        todo = self._todo
        deadline = time.perf_counter() + LOAD_SLICE
        todo.popleft()()
        while todo and time.perf_counter() < deadline:
            todo.popleft()()


def _judge_key(view: AttemptView) -> tuple[AttemptView, int, bool]:
    """What says an attempt's verdicts have a closed call to judge: the attempt, its calls,
    and whether the last one is still open (O(1): never a look at every call)."""
    calls = view.state.calls
    return view, len(calls), bool(calls) and calls[-1].open
