"""The open document: one capture replayed through the core, and the clock that drives views.

Invariants:
- Views never render per fragment. The core is fed as fast as data arrives (or as the replay
  clock allows); views hear about it only through ``flushed``, emitted at most once per timer
  tick (60 Hz), and then insert row ranges.
- ``rejudged`` means "the calls are new objects" (settings flip, backward seek, new file):
  views rebind to the current core state, keeping the user's selection where they can.
- The replay path is the live path: :class:`inspector.core.replay.Replayer` feeds an
  :class:`Analysis` step by step through the same ``feed``/``end`` calls a live session uses.
"""

from __future__ import annotations

import gc
import math
import threading
import time
from dataclasses import replace
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from ..core.analysis import Analysis, AttemptView, Settings
from ..core.capture import Capture, load
from ..core.errors import InspectorError
from ..core.replay import Replayer
from ..core.tools import ToolRegistry

TICK_MS = 16
"""Replay clock and flush period (about 60 Hz)."""
TICK_BUDGET = 0.008
"""Seconds of core feeding per tick at most, so a tick never stalls the event loop (a fast
replay that cannot keep up falls behind the clock instead of freezing the window)."""
BACKGROUND_BYTES = 4 * 1024 * 1024
"""Files larger than this are read and ingested on a worker thread, with progress."""


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
    """Background load progress (done, total); total 0 while reading the file."""
    failed = Signal(str, str)
    """(path, one-line reason) when a file could not be opened."""
    _adopt = Signal(object, str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.replayer: Replayer | None = None
        """Drives the core through the capture; None before anything is opened."""
        self.settings = Settings()
        """Settings every view is judged under."""
        self.tools: ToolRegistry | None = None
        """Tools the user loaded (None: use the capture's own)."""
        self.tools_path: str | None = None
        """Where the user's tools came from."""
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
        self._cancel = threading.Event()
        self._worker: threading.Thread | None = None
        self._adopt.connect(self._adopt_replayer)

    # -- state ---------------------------------------------------------------------------

    @property
    def analysis(self) -> Analysis | None:
        """The judged analysis at the current position (the live one while streaming)."""
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
        """Is a large file being read on the worker thread?"""
        return self._worker is not None and self._worker.is_alive()

    @property
    def playing(self) -> bool:
        """Is the replay clock running (a live view's flush clock does not count)?"""
        return self._timer.isActive() and self.live is None

    # -- opening -------------------------------------------------------------------------

    def open_path(self, path: str, *, play: bool = False) -> bool:
        """Open a capture or raw SSE body; large files load on a worker thread."""
        import os

        try:
            size = os.path.getsize(path)
        except OSError:
            size = 0
        if size > BACKGROUND_BYTES and not play:
            self._load_in_background(path)
            return True
        try:
            capture = load(path)
        except InspectorError as exc:
            self.failed.emit(path, str(exc))
            return False
        self.open_capture(capture, path, play=play)
        return True

    def open_capture(self, capture: Capture, name: str, *, play: bool = False) -> None:
        """Show ``capture``: replay it from the start, or jump straight to its end."""
        self.pause()
        replayer = Replayer(capture, self.settings, self.tools)
        if not play:
            replayer.finish()
        self._adopt_replayer(replayer, name)
        if play:
            self.play()

    def _adopt_replayer(self, replayer: Any, name: str) -> None:
        self._timer.stop()
        self.live = None
        self.replayer, self.path, self.attempt = replayer, name, None
        self.loaded.emit(name)
        self._rejudged()

    def _load_in_background(self, path: str) -> None:
        self.cancel_load()
        self._cancel.clear()
        self._worker = threading.Thread(target=self._load_worker, args=(path,), daemon=True)
        self._worker.start()

    def _load_worker(self, path: str) -> None:
        try:
            self.progress.emit(0, 0)
            capture = load(path)
            gc.freeze()  # the capture's records are long-lived: keep GC passes (which hold
            # the GIL and so freeze the window) from rescanning them on every collection
            replayer = Replayer(capture, self.settings, self.tools)
            total = len(replayer.plan)
            while not replayer.at_end:
                if self._cancel.is_set():
                    self.progress.emit(-1, total)
                    return
                replayer.step(20000)
                gc.freeze()
                self.progress.emit(replayer.position, total)
            replayer.finish()
        except InspectorError as exc:
            self.failed.emit(path, str(exc))
            return
        self._adopt.emit(replayer, path)

    def cancel_load(self) -> None:
        """Stop a background load (the current document stays as it was)."""
        self._cancel.set()
        if self._worker is not None:
            self._worker.join(timeout=5)
            self._worker = None

    def close(self) -> None:
        """Forget the document and stop every timer and worker."""
        self.pause()
        self.cancel_load()
        self.replayer, self.path = None, None
        self._rejudged()

    # -- live ----------------------------------------------------------------------------

    def attach_live(self, analysis: Analysis, name: str) -> None:
        """Follow a live session's Analysis: flush at 60 Hz until :meth:`stop_live_view`."""
        self.pause()
        self.cancel_load()
        self.replayer, self.live, self.path, self.attempt = None, analysis, name, None
        self.loaded.emit(name)
        self._rejudged()
        self._timer.start()

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
        """Re-judge the open stream at once under new settings."""
        self.settings = settings
        if self.live is not None:
            self.live.apply(replace(settings, dialect=self.live.settings.dialect))
        elif self.replayer is not None:
            self.replayer.apply(settings)
        self._rejudged()

    def set_tools(self, tools: ToolRegistry | None, path: str | None) -> None:
        """Judge against the user's tools (None: back to the capture's own)."""
        self.tools, self.tools_path = tools, path
        if self.live is not None:
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
        if self.live is not None:
            self._flush()
            return
        r = self.replayer
        if r is None:
            self.pause()
            return
        target = self._base + (time.monotonic() - self._clock) * self.speed
        deadline = time.perf_counter() + TICK_BUDGET
        while time.perf_counter() < deadline and r.advance_to_time(target, max_steps=128):
            pass
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
