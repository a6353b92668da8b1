"""Playing the source on show over time: the 60 Hz clock that replays a capture or follows a
streaming source, the replay controls, and the signals views follow.

Invariants:
- Views never render per fragment. The core is fed as fast as data arrives (or as the replay
  clock allows); views hear about it only through ``flushed``, emitted at most once per tick
  (60 Hz), and then insert row ranges.
- ``rejudged`` means "the calls are new objects" (settings flip, backward seek, new source):
  views rebind to the current core state, keeping the user's selection where they can.
- The replay path is the live path: :class:`inspector.core.replay.replayer.Replayer` feeds an
  :class:`Analysis` step by step through the same ``feed``/``end`` calls a live session uses.
- Only a :class:`ReplaySource` plays; a streaming source's ticks only flush.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer, Signal

from inspector.core.analysis.session import Analysis
from inspector.core.replay.replayer import Replayer
from inspector.core.replay.sources import ReplaySource, Source

TICK_MS = 16
"""Replay clock and flush period (about 60 Hz)."""
TICK_BUDGET = 0.008
"""Seconds of core feeding per tick at most, so a tick never stalls the event loop."""


class Player(QObject):
    """The clock and the replay controls of one source at a time."""

    flushed = Signal()
    """New data reached the core since the last tick: sync models (row-range inserts)."""
    rejudged = Signal()
    """The core state was rebuilt: rebind views."""
    position_changed = Signal(int, int)
    """(steps fed, total steps)."""
    playing_changed = Signal(bool)
    """Replay started or paused."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.source: Source | None = None
        """What is on show; None before anything is opened."""
        self.speed = 1.0
        """Replay speed factor; ``math.inf`` replays instantly."""
        self._timer = QTimer(self)  # the replay clock, or a streaming source's flush clock
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)

    @property
    def analysis(self) -> Analysis | None:
        """The judged analysis at the current position."""
        return self.source.analysis if self.source is not None else None

    @property
    def replayer(self) -> Replayer | None:
        """The replay of the source, if it can be replayed."""
        return self.source.replayer if self.source is not None else None

    @property
    def playing(self) -> bool:
        """Is the replay clock running (a streaming source's flush clock does not count)?"""
        return self._timer.isActive() and self.source is not None and not self.source.streaming

    # -- replay --------------------------------------------------------------------------

    def play(self, speed: float | None = None) -> None:
        """Run the replay clock from the current position."""
        source = self.source
        if not isinstance(source, ReplaySource):
            return
        if speed is not None:
            self.speed = speed
        if source.replayer.at_end:
            self.seek(0)
        if not source.play(self.speed):
            self._flush()  # all of it, at once
            return
        self._timer.start()
        self.playing_changed.emit(True)

    def pause(self) -> None:
        """Stop the replay clock where it is (a streaming source keeps flushing)."""
        if self.playing:
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
        source = self.source
        if isinstance(source, ReplaySource):
            gc.freeze()  # the core makes no reference cycles (checked by
            # tests/core/replay/test_progressive_loading.py), so this keeps nothing refcounting
            # would not free; a collection mid-replay costs a frame
            if source.advance(TICK_BUDGET):
                self.pause()
        elif source is None or not source.streaming:
            self._timer.stop()  # nothing to follow
            return
        # a streaming source is not frozen: a live session's network side makes cyclic garbage
        self._flush()

    def _flush(self) -> None:
        self.flushed.emit()
        position = self.source.position() if self.source is not None else None
        if position is not None:
            self.position_changed.emit(*position)

    def _rejudged(self) -> None:
        self.rejudged.emit()
        r = self.replayer
        self.position_changed.emit(r.position if r else 0, len(r.plan) if r else 0)
