"""Where the window's data comes from: one :class:`Source` per kind, behind one interface.

A source hands the window's document (:class:`inspector.ui.document.document.Document`) an
Analysis to show and says how it behaves: whether data arrives on its own (the document then
flushes views on its clock), whether it can be replayed, and how it takes new settings and
tools. The document owns the clocks and the signals; sources own their data and know nothing of
Qt.

==============  ============================================  ==========  ==========
kind            what it shows                                 streaming   replayable
==============  ============================================  ==========  ==========
ReplaySource    a whole capture, at any position              no          yes
LoadingSource   a large file, fed as its records are read     yes         no (yet)
LiveSource      a live session's Analysis while it streams    yes         no
KeptSource      an Analysis that will not grow (a cancelled   no          no
                load, a live session that left no capture)
==============  ============================================  ==========  ==========

Invariants:
- ``analysis`` is the Analysis on show: views read it and nothing else.
- A source changes kind only through the document: a load that finishes becomes the replay
  of the file, a cancelled one is kept as it stands; a live session that ends becomes the
  replay of its capture, or is kept as it stands.
- Data is never re-read to take new settings, except where it must: a loading file whose
  dialect changes (the dialect decides how every byte is read) is opened again.
"""

from __future__ import annotations

import math
import time
from abc import ABC, abstractmethod
from dataclasses import replace

from inspector.core.analysis.session import Analysis
from inspector.core.base.errors import InspectorError
from inspector.core.base.settings import Settings
from inspector.core.capture.reader import load
from inspector.core.capture.records import Capture
from inspector.core.replay.loading import ProgressiveLoad
from inspector.core.replay.replayer import Replayer
from inspector.core.verdicts.tools import ToolRegistry


class Source(ABC):
    """What the document shows, and how it gets there."""

    def __init__(self, name: str, path: str | None = None) -> None:
        self.name = name
        """The display name (window title, the ``loaded`` signal)."""
        self.path = path
        """The capture file behind the source, if any."""

    @property
    @abstractmethod
    def analysis(self) -> Analysis:
        """The Analysis on show."""

    @property
    def replayer(self) -> Replayer | None:
        """The replay of the whole capture, when the source can be replayed."""
        return None

    @property
    def streaming(self) -> bool:
        """Does data arrive on its own (a live session, a file being read)?"""
        return False

    @property
    def loading(self) -> bool:
        """Is a file still being read into it?"""
        return False

    @property
    def no_replay_reason(self) -> str:
        """Why the replay controls are off, as the toolbar says it ("" when they are on)."""
        return ""

    def position(self) -> tuple[int, int] | None:
        """(steps fed, steps in all) for the position bar, or None when there is none."""
        attempts = self.analysis.attempts
        if not attempts:
            return None
        n = len(attempts[-1].state.events)
        return n, n

    def apply(self, settings: Settings) -> bool:
        """Re-judge under ``settings``; False when that takes opening the source again. The
        stream was read in its dialect, which stays."""
        a = self.analysis
        a.apply(replace(settings, dialect=a.settings.dialect))
        return True

    def set_tools(self, tools: ToolRegistry | None) -> None:
        """Judge against ``tools`` (None: the capture's or the stream's own)."""
        self.analysis.set_tools(tools)


NO_STREAM = "no stream: 0 bytes"
"""What the position counter says for a capture without a byte of response."""


class ReplaySource(Source):
    """A whole capture, replayable: opened from a file, a finished load or a session's capture.
    While it plays, recorded time follows the wall clock times the speed."""

    def __init__(self, replayer: Replayer, name: str) -> None:
        super().__init__(name, name)
        self._replayer = replayer
        self._speed = 1.0
        self._base = 0.0  # recorded time when the clock (re)started
        self._clock = 0.0  # wall-clock time then

    @classmethod
    def of(
        cls,
        capture: Capture,
        name: str,
        settings: Settings,
        tools: ToolRegistry | None,
        *,
        at_end: bool = True,
    ) -> ReplaySource:
        """The replay of ``capture``, at its end or (``at_end`` False) at its start."""
        replayer = Replayer(capture, settings, tools)
        if at_end:
            replayer.finish()
        return cls(replayer, name)

    @property
    def analysis(self) -> Analysis:
        return self._replayer.analysis

    @property
    def replayer(self) -> Replayer:
        return self._replayer

    @property
    def no_replay_reason(self) -> str:
        """A capture in which no attempt received a byte (a refused connection, a DNS
        failure, a timeout before the response) has no stream: its replay plan holds one
        empty step per attempt, which the counter would call "1 / 1 chunks"."""
        capture = self._replayer.capture
        if capture.attempts and not any(data for a in capture.attempts for _t, data in a.chunks):
            return NO_STREAM
        return ""

    def position(self) -> tuple[int, int]:
        return self._replayer.position, len(self._replayer.plan)

    def apply(self, settings: Settings) -> bool:
        self._replayer.apply(settings)  # another dialect: the replayer reads the bytes again
        return True

    def set_tools(self, tools: ToolRegistry | None) -> None:
        self._replayer.set_tools(tools)

    def play(self, speed: float) -> bool:
        """Start the clock at ``speed`` from the current position; False when there is nothing
        to wait for (an infinite speed feeds the rest at once)."""
        r = self._replayer
        if math.isinf(speed):
            r.finish()
            return False
        self._speed, self._base, self._clock = speed, r.time_at(r.position), time.monotonic()
        return True

    def advance(self, budget: float) -> bool:
        """Feed what was recorded up to the clock's time, for ``budget`` seconds at most (a
        replay that cannot keep up falls behind its clock instead of freezing the window);
        True once the whole capture is in."""
        r = self._replayer
        until = self._base + (time.monotonic() - self._clock) * self._speed
        deadline = time.perf_counter() + budget
        while time.perf_counter() < deadline and r.advance_to_time(until, max_steps=128):
            pass
        if r.analysis.attempts:  # within the tick, not in the side panes' next refresh
            r.analysis.attempts[-1].scan_quirks()
        if r.at_end:
            r.finish()
            return True
        return False


class LoadingSource(Source):
    """A large file opened progressively (:class:`ProgressiveLoad`): usable from its first
    records, fed a slice at a time."""

    def __init__(self, load: ProgressiveLoad, path: str) -> None:
        super().__init__(path, path)
        self._load = load

    @property
    def analysis(self) -> Analysis:
        return self._load.analysis

    @property
    def streaming(self) -> bool:
        return True

    @property
    def loading(self) -> bool:
        return True

    @property
    def no_replay_reason(self) -> str:
        return "loading…"

    @property
    def progress(self) -> tuple[int, int]:
        """(done, total): bytes read, then steps fed once the replay catches up."""
        return self._load.progress

    def position(self) -> None:
        return None

    def apply(self, settings: Settings) -> bool:
        if settings.dialect != self._load.analysis.settings.dialect:
            return False
        self._load.analysis.apply(settings)
        return True

    def set_tools(self, tools: ToolRegistry | None) -> None:
        self._load.set_tools(tools)

    def step(self, budget: float) -> ReplaySource | None:
        """Read and feed for ``budget`` seconds; the replay of the whole file once it is in.
        Raises :class:`InspectorError` on a record that cannot be read (what was read before
        it stays in ``analysis``)."""
        if not self._load.step(budget):
            return None
        assert self._load.replayer is not None
        return ReplaySource(self._load.replayer, self.name)

    def kept(self) -> KeptSource:
        """What was read, as it stands: reading stops here."""
        return KeptSource(self.analysis, self.name, self.path)

    def close(self) -> None:
        """Loading stops (kept, dropped, failed or done): its read-ahead process, if any, too."""
        self._load.close()


class LiveSource(Source):
    """A live session's Analysis, fed by the session as bytes arrive."""

    def __init__(self, analysis: Analysis, name: str) -> None:
        super().__init__(name)
        self._analysis = analysis

    @property
    def analysis(self) -> Analysis:
        return self._analysis

    @property
    def streaming(self) -> bool:
        return True

    @property
    def no_replay_reason(self) -> str:
        return "live"

    def kept(self) -> KeptSource:
        """The session ended: its Analysis, as it stands."""
        return KeptSource(self._analysis, self.name)

    def replay(
        self, capture_path: str | None, settings: Settings, tools: ToolRegistry | None
    ) -> ReplaySource | None:
        """The session ended: the replay of its capture (the same state, now replayable), or
        None when there is none to read (the Analysis as it stands is then all there is)."""
        if capture_path is None:
            return None
        try:
            capture = load(capture_path)
        except InspectorError:
            return None
        return ReplaySource.of(capture, capture_path, settings, tools)


class KeptSource(Source):
    """An Analysis that will not grow and cannot be replayed (what a cancelled load read; a
    live session that left no capture to replay)."""

    def __init__(self, analysis: Analysis, name: str, path: str | None = None) -> None:
        super().__init__(name, path)
        self._analysis = analysis

    @property
    def analysis(self) -> Analysis:
        return self._analysis

    @property
    def no_replay_reason(self) -> str:
        return "no replay"
