"""The open document: one capture replayed through the core, and the clock that drives views.

Invariants:
- Views never render per fragment. The core is fed as fast as data arrives (or as the replay
  clock allows); views hear about it only through ``flushed``, emitted at most once per timer
  tick (60 Hz), and then insert row ranges.
- ``rejudged`` means "the calls are new objects" (settings flip, backward seek, new file):
  views rebind to the current core state, keeping the user's selection where they can.
- The replay path is the live path: :class:`inspector.core.replay.replayer.Replayer` feeds an
  :class:`Analysis` step by step through the same ``feed``/``end`` calls a live session uses.
- A large file opens progressively (:class:`inspector.core.replay.loading.ProgressiveLoad`) on this
  thread, in slices of at most ``LOAD_SLICE`` seconds run from a 0-ms timer, so input is
  handled between slices and the window is usable from the first records: views follow the
  Analysis being fed, flushed every ``LOAD_FLUSH`` seconds. When the file is read the
  document becomes its replay (the same state, now replayable); Cancel keeps what was read,
  shown like an ended live session. One thread owns the core: no locks, no torn reads (the
  file's bytes alone are read on a worker thread, and handed over whole).
"""

from __future__ import annotations

import gc
import math
import os
import threading
import time
from dataclasses import replace

from PySide6.QtCore import QObject, QTimer, Signal

from inspector.core.analysis.session import Analysis, AttemptView, Settings
from inspector.core.base.errors import InspectorError
from inspector.core.capture.reader import Capture, load, read_file
from inspector.core.replay.loading import ProgressiveLoad
from inspector.core.replay.replayer import Replayer
from inspector.core.verdicts.tools import ToolRegistry

TICK_MS = 16
"""Replay clock and flush period (about 60 Hz)."""
TICK_BUDGET = 0.008
"""Seconds of core feeding per tick at most, so a tick never stalls the event loop (a fast
replay that cannot keep up falls behind the clock instead of freezing the window)."""
PROGRESSIVE_BYTES = 4 * 1024 * 1024
"""Files larger than this open progressively, with a progress bar and Cancel."""
LOAD_SLICE = 0.025
"""Seconds of reading and feeding per slice of a progressive open (the longest the event
loop waits for it)."""
LOAD_FLUSH = 0.1
"""Seconds between view flushes while a file loads (views catch up 10 times a second)."""


class Document(QObject):
    """One capture, its replay position, and the settings it is judged under."""

    flushed = Signal()
    """New data reached the core since the last tick: sync models (row-range inserts)."""
    rejudged = Signal()
    """The core state was rebuilt: rebind views."""
    loaded = Signal(str)
    """A new source was opened (its display name)."""
    position_changed = Signal(int, int)
    """(steps fed, total steps)."""
    playing_changed = Signal(bool)
    """Replay started or paused."""
    progress = Signal(int, int)
    """Progressive open: (done, total) bytes read, or steps fed once a replay catches up;
    (-1, 0) when loading stopped (finished, cancelled or failed)."""
    failed = Signal(str, str)
    """(path, one-line reason) when a file could not be opened."""
    _file_read = Signal(int, str, bytes, str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.replayer: Replayer | None = None
        """Drives the core through the capture; None before anything is opened."""
        self.settings = Settings()
        """Settings every view is judged under."""
        self.tools: ToolRegistry | None = None
        """Tools the user loaded (None: use the capture's own)."""
        self.path: str | None = None
        """The open file, if any."""
        self.speed = 1.0
        """Replay speed factor; ``math.inf`` replays instantly."""
        self.attempt: int | None = None
        """The attempt the user picked (1-based), or None to follow the latest."""
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)
        self._clock = 0.0
        self._base = 0.0
        self.live: Analysis | None = None
        """A live session's Analysis while it streams (views follow it on the same clock)."""
        self.loader: ProgressiveLoad | None = None
        """The file being opened progressively, if any."""
        self._load_timer = QTimer(self)
        self._load_timer.setInterval(1)  # not 0: other timers (and the clock) get their turn
        self._load_timer.timeout.connect(self._load_slice)
        self._load_flushed = 0.0
        self._reading: str | None = None  # the file being read on the worker thread
        self._read_token = 0
        self._file_read.connect(self._on_file_read)

    # -- state ---------------------------------------------------------------------------

    @property
    def analysis(self) -> Analysis | None:
        """The judged analysis at the current position (the live one while streaming)."""
        if self.loader is not None:
            return self.loader.analysis
        if self.live is not None:
            return self.live
        return self.replayer.analysis if self.replayer else None

    @property
    def view(self) -> AttemptView | None:
        """The attempt on show."""
        a = self.analysis
        if a is None or not a.attempts:
            return None
        a.judge()
        n = self.attempt
        return a.attempts[n - 1] if n is not None and 0 < n <= len(a.attempts) else a.attempts[-1]

    @property
    def loading(self) -> bool:
        """Is a large file being opened progressively?"""
        return self.loader is not None or self._reading is not None

    @property
    def streaming(self) -> bool:
        """Is data arriving: the replay clock running, a file loading or a live session?"""
        return self._timer.isActive() or self._load_timer.isActive()

    @property
    def playing(self) -> bool:
        """Is the replay clock running (a live view's flush clock does not count)?"""
        return self._timer.isActive() and self.live is None

    # -- opening -------------------------------------------------------------------------

    def open_path(self, path: str, *, play: bool = False) -> bool:
        """Open a capture or raw SSE body; large files open progressively."""
        try:
            size = os.path.getsize(path)
        except OSError:
            size = 0
        try:
            if size > PROGRESSIVE_BYTES and not play:
                self._read_in_background(path, size)
                return True
            capture = load(path)
        except InspectorError as exc:
            self.failed.emit(path, str(exc))
            return False
        self.open_capture(capture, path, play=play)
        return True

    def open_capture(self, capture: Capture, name: str, *, play: bool = False) -> None:
        """Show ``capture``: replay it from the start, or jump straight to its end."""
        self.pause()
        self.cancel_load()
        replayer = Replayer(capture, self.settings, self.tools)
        if not play:
            replayer.finish()
        self._adopt_replayer(replayer, name)
        if play:
            self.play()

    def _adopt_replayer(self, replayer: Replayer, name: str) -> None:
        self._timer.stop()
        self.live = None
        self.replayer, self.path, self.attempt = replayer, name, None
        self.loaded.emit(name)
        self._rejudged()

    # -- progressive open ----------------------------------------------------------------

    def _read_in_background(self, path: str, size: int) -> None:
        """Read the file on a worker thread (reading releases the GIL: hundreds of megabytes
        would otherwise hold the window for a third of a second); the bytes come back to this
        thread through a queued signal, and the load starts here. Nothing else runs there."""
        self.cancel_load()
        self._read_token += 1
        token = self._read_token
        self._reading = path
        self.progress.emit(0, size)

        def read() -> None:
            try:
                self._file_read.emit(token, path, read_file(path), "")
            except InspectorError as exc:
                self._file_read.emit(token, path, b"", str(exc))

        threading.Thread(target=read, name="read-capture", daemon=True).start()

    def _on_file_read(self, token: int, path: str, data: bytes, error: str) -> None:
        if token != self._read_token or self._reading is None:
            return  # cancelled, or another file was opened meanwhile
        self._reading = None
        if error:
            self.progress.emit(-1, 0)
            self.failed.emit(path, error)
            return
        try:
            self._start_loading(path, data)
        except InspectorError as exc:  # a header that cannot be read
            self.progress.emit(-1, 0)
            self.failed.emit(path, str(exc))

    def _start_loading(self, path: str, data: bytes) -> None:
        self.pause()
        self.cancel_load()
        self.loader = ProgressiveLoad(data, path, self.settings, self.tools)
        self.replayer, self.live, self.path, self.attempt = None, None, path, None
        self.loaded.emit(path)
        self._rejudged()
        self.progress.emit(*self.loader.progress)
        self._load_flushed = time.monotonic()
        self._load_timer.start()

    def _load_slice(self) -> None:
        loader = self.loader
        if loader is None:
            self._load_timer.stop()
            return
        try:
            done = loader.step(LOAD_SLICE)
        except InspectorError as exc:  # a corrupt record: keep what was read before it
            self.stop_loading()
            self.failed.emit(self.path or "", str(exc))
            return
        gc.freeze()  # what was read is long-lived: keep collections (which hold the GIL and
        # pause the window) from rescanning millions of records and events every time. The
        # core makes no reference cycles (tests/test_loading.py checks), so freezing keeps
        # nothing alive that refcounting would not free.
        if done:
            self._load_timer.stop()
            self.loader = None
            assert loader.replayer is not None
            self.progress.emit(-1, 0)
            self._adopt_replayer(loader.replayer, self.path or "")
            return
        self.progress.emit(*loader.progress)
        if time.monotonic() - self._load_flushed >= LOAD_FLUSH:
            self._flush()
            self._load_flushed = time.monotonic()

    def stop_loading(self) -> None:
        """Cancel: stop reading and keep what was read, shown as it stands (not replayable,
        like a live session that ended)."""
        if self._reading is not None:  # nothing read yet: the current document stays
            self.cancel_load()
            return
        loader = self.loader
        if loader is None:
            return
        self._load_timer.stop()
        self.loader = None
        self.live = loader.analysis
        self.progress.emit(-1, 0)
        self._flush()

    def cancel_load(self) -> None:
        """Drop a progressive open and what it read (another file or a session replaces it)."""
        if self._reading is not None:
            self._reading = None
            self.progress.emit(-1, 0)
        if self.loader is not None:
            self._load_timer.stop()
            self.loader = None
            self.progress.emit(-1, 0)

    def close(self) -> None:
        """Forget the document and stop every timer and worker."""
        self.pause()
        self.cancel_load()
        self.replayer, self.live, self.path = None, None, None
        self._rejudged()

    # -- live ----------------------------------------------------------------------------

    def attach_live(self, analysis: Analysis, name: str) -> None:
        """Follow a live session's Analysis: flush at 60 Hz until :meth:`stop_live_view`."""
        self.pause()
        self.cancel_load()
        self.replayer, self.live, self.path, self.attempt = None, analysis, name, None
        self._timer.start()  # first: views binding to a streaming document see it streaming
        self.loaded.emit(name)
        self._rejudged()

    def stop_live_view(self, capture_path: str | None = None) -> None:
        """The live session ended: one last flush, then the clock stops. With the session's
        capture, the document becomes that capture (the same state, now replayable)."""
        if self.live is None:
            return
        self._timer.stop()
        self._flush()
        if capture_path is None:
            return
        try:
            capture = load(capture_path)
        except InspectorError:
            return  # keep showing the live analysis: it is all there is
        live, self.live = self.live, None
        attempt = self.attempt
        replayer = Replayer(capture, self.settings, self.tools)
        replayer.finish()
        self._adopt_replayer(replayer, capture_path)
        if attempt is not None and attempt <= len(live.attempts):
            self.attempt = attempt

    # -- settings ------------------------------------------------------------------------

    def apply_settings(self, settings: Settings) -> None:
        """Re-judge the open stream at once under new settings (a dialect change while a
        file loads starts the load over: the dialect decides how every byte is read)."""
        old = self.analysis.settings if self.analysis is not None else self.settings
        self.settings = settings
        if self.loader is not None:
            if settings.dialect != old.dialect and self.path is not None:
                self.open_path(self.path)
                return
            self.loader.analysis.apply(settings)
        elif self.live is not None:
            self.live.apply(replace(settings, dialect=self.live.settings.dialect))
        elif self.replayer is not None:
            self.replayer.apply(settings)
        self._rejudged()

    def set_tools(self, tools: ToolRegistry | None) -> None:
        """Judge against the user's tools (None: back to the capture's own)."""
        self.tools = tools
        if self.loader is not None:
            self.loader.set_tools(tools)
        elif self.live is not None:
            self.live.set_tools(tools)
        elif self.replayer is not None:
            self.replayer.set_tools(tools)
        self._rejudged()

    # -- replay --------------------------------------------------------------------------

    def play(self, speed: float | None = None) -> None:
        """Run the replay clock from the current position."""
        if self.replayer is None or self.live is not None:
            return
        if speed is not None:
            self.speed = speed
        if self.replayer.at_end:
            self.seek(0)
        if math.isinf(self.speed):
            self.replayer.finish()
            self._flush()
            return
        self._base = self.replayer.time_at(self.replayer.position)
        self._clock = time.monotonic()
        self._timer.start()
        self.playing_changed.emit(True)

    def pause(self) -> None:
        """Stop the replay clock where it is (a live view keeps flushing)."""
        if self._timer.isActive() and self.live is None:
            self._timer.stop()
            self.playing_changed.emit(False)

    def toggle(self) -> None:
        """Space: pause if playing, else play."""
        if self.playing:
            self.pause()
        else:
            self.play()

    def replay(self) -> None:
        """F5: from the start at the chosen speed."""
        if self.replayer is not None:
            self.seek(0)
            self.play()

    def step(self, n: int = 1) -> None:
        """Feed ``n`` more chunks (paused)."""
        self.pause()
        if self.replayer is not None:
            self.replayer.step(n)
            self._flush()

    def seek(self, position: int) -> None:
        """Show the state after ``position`` chunks (backward seeks rebuild the core state)."""
        r = self.replayer
        if r is None:
            return
        backward = position < r.position
        r.seek(position)
        if backward:
            self._rejudged()
        else:
            self._flush()

    def _tick(self) -> None:
        if self.live is not None:  # not frozen: a live session's network side (asyncio,
            self._flush()  # httpx) makes cyclic garbage the collector must still see
            return
        gc.freeze()  # see _load_slice: the core makes no reference cycles, so nothing that
        # refcounting would not free is kept; a full collection mid-replay costs a frame
        r = self.replayer
        if r is None:
            self.pause()
            return
        target = self._base + (time.monotonic() - self._clock) * self.speed
        deadline = time.perf_counter() + TICK_BUDGET
        while time.perf_counter() < deadline and r.advance_to_time(target, max_steps=128):
            pass
        if r.analysis.attempts:  # within the tick, not in the side panes' next refresh
            r.analysis.attempts[-1].scan_quirks()
        if r.at_end:
            r.finish()
            self.pause()
        self._flush()

    def _flush(self) -> None:
        self.flushed.emit()
        if self.replayer is not None:
            self.position_changed.emit(self.replayer.position, len(self.replayer.plan))
        elif self.live is not None and self.live.attempts:
            n = len(self.live.attempts[-1].state.events)
            self.position_changed.emit(n, n)

    def _rejudged(self) -> None:
        self.rejudged.emit()
        r = self.replayer
        self.position_changed.emit(r.position if r else 0, len(r.plan) if r else 0)
