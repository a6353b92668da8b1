"""Drive an :class:`Analysis` through a capture step by step, on the same path as a live session.

A replay plan is the capture's chunks laid on one session clock; a :class:`Replayer` feeds the
plan to an Analysis through ``begin_attempt`` / ``feed`` / ``end`` exactly as the live client
does, so every view that watches a live session can watch a replay.

Invariants:
- Plan times are non-decreasing. Within an attempt, steps keep the recorded times relative to
  each other; attempt n starts at the session time of attempt n-1's last step, and its chunks
  follow at their recorded offsets (seconds since attempt n's request).
- Every recorded attempt has at least one step: an attempt with no chunks gets one empty step,
  so replaying opens (and ends) it just as :meth:`Analysis.from_capture` does.
- A raw SSE body (``capture.timed`` False) is split into one step per wire event (comments
  included) at the events' end offsets: a gap (blank lines, a BOM, a data-less block) goes with
  the event after it, a tail after the last event with the last step, so the steps' data joined
  is the body byte for byte. Steps get the synthetic times ``i * untimed_interval``, and the
  Analysis is fed those times (the body has none of its own).
- At every position the Analysis is exactly what a live session has after receiving those
  chunks: earlier attempts ended, the current one open; once the plan is exhausted the last
  attempt is ended too, which makes the final state equal to ``Analysis.from_capture``.
  The Analysis is fed each chunk's recorded time (``Step.source_t``), as the live client is.
- Seeking backward rebuilds a fresh Analysis (same settings and tools, capture attached) and
  feeds it forward; nothing is ever un-fed.
- Tool-loop ``event`` records are steps too (``Step.event``), placed among their attempt's
  chunks in arrival order (:func:`inspector.core.rounds.merged`) at their recorded time, and
  handed to :meth:`Analysis.add_event`. A capture without events gets exactly the plan it got
  before tool loops existed.
"""

from __future__ import annotations

from dataclasses import dataclass

from .analysis import Analysis, Settings
from .capture import Attempt, Capture
from .model import EventKind
from .rounds import ToolEvent, merged
from .sse import decode_all
from .tools import ToolRegistry


@dataclass(frozen=True)
class Step:
    """One chunk to feed, placed on the session clock."""

    attempt: int
    """The number of the attempt the chunk belongs to (``Attempt.number``)."""
    t: float
    """Session time in seconds (non-decreasing along the plan)."""
    data: bytes
    """The chunk's bytes (empty for an attempt that recorded no chunks)."""
    source_t: float = 0.0
    """The time fed to the Analysis: the chunk's recorded seconds since its attempt's request
    (for a raw body, the synthetic time)."""
    event: ToolEvent | None = None
    """A tool-loop event to add instead of a chunk (``data`` is then empty)."""


def split_body(body: bytes) -> list[bytes]:
    """``body`` cut after each wire event (comments included); the pieces join to ``body``."""
    cuts: list[int] = []
    for ev in decode_all(body):
        if ev.kind != EventKind.ERROR and ev.end > (cuts[-1] if cuts else 0):
            cuts.append(ev.end)
    if not cuts:
        return [body] if body else []
    pieces = [body[a:b] for a, b in zip([0, *cuts[:-1]], cuts, strict=True)]
    if cuts[-1] < len(body):
        pieces[-1] += body[cuts[-1] :]
    return pieces


def replay_plan(capture: Capture, *, untimed_interval: float = 0.05) -> list[Step]:
    """The capture's chunks as steps on one session clock (see the module docstring)."""
    if not capture.timed:
        return _untimed_plan(capture, untimed_interval)
    steps: list[Step] = []
    clock = 0.0
    for attempt in capture.attempts:
        if not attempt.chunks and not attempt.events:
            steps.append(Step(attempt.number, clock, b"", 0.0))
            continue
        base = clock
        for t, data, event in merged(attempt):
            clock = max(clock, base + t)
            steps.append(Step(attempt.number, clock, data or b"", t, event))
    return steps


def _untimed_plan(capture: Capture, interval: float) -> list[Step]:
    steps: list[Step] = []
    for attempt in capture.attempts:
        pieces = split_body(attempt.body) or [b""]
        for piece in pieces:
            t = len(steps) * interval
            steps.append(Step(attempt.number, t, piece, t))
    return steps


class Replayer:
    """Feeds a capture's plan to a live :class:`Analysis`, forward or by seeking."""

    def __init__(
        self, capture: Capture, settings: Settings | None = None, tools: ToolRegistry | None = None
    ) -> None:
        self.capture = capture
        """The capture being replayed."""
        self.tools = tools
        """User-supplied tools (None: the capture's request supplies them)."""
        self.plan: list[Step] = replay_plan(capture)
        """Every step, in order."""
        self.position = 0
        """Steps fed so far (0..len(plan))."""
        self._sources: dict[int, Attempt] = {a.number: a for a in capture.attempts}
        self._attempt: int | None = None  # number of the attempt being fed
        self.analysis: Analysis = self._fresh(settings or Settings())
        """The Analysis being fed (replaced by a backward seek or a dialect change)."""

    # -- reading -------------------------------------------------------------------------

    @property
    def settings(self) -> Settings:
        """The settings in force."""
        return self.analysis.settings

    @property
    def at_end(self) -> bool:
        """Every step has been fed (and the last attempt ended)."""
        return self.position >= len(self.plan)

    @property
    def duration(self) -> float:
        """Session time of the last step (0 for an empty plan)."""
        return self.plan[-1].t if self.plan else 0.0

    def time_at(self, position: int) -> float:
        """Session time once ``position`` steps are fed: the last fed step's time (0 at 0)."""
        position = min(max(position, 0), len(self.plan))
        return self.plan[position - 1].t if position else 0.0

    @property
    def next_time(self) -> float | None:
        """Session time of the next step, or None at the end."""
        return None if self.at_end else self.plan[self.position].t

    # -- moving --------------------------------------------------------------------------

    def advance_to_time(self, t: float, max_steps: int | None = None) -> int:
        """Feed the steps due by session time ``t`` (at most ``max_steps``); return how many."""
        fed, plan = 0, self.plan
        while self.position < len(plan) and plan[self.position].t <= t:
            if max_steps is not None and fed >= max_steps:
                break
            self._feed_next()
            fed += 1
        return fed

    def step(self, n: int = 1) -> int:
        """Feed up to ``n`` steps; return how many were fed."""
        fed = 0
        while fed < n and not self.at_end:
            self._feed_next()
            fed += 1
        return fed

    def seek(self, position: int) -> None:
        """Go to ``position`` (clamped): forward feeds, backward rebuilds and feeds from 0."""
        position = min(max(position, 0), len(self.plan))
        if position < self.position:
            self._rebuild(self.settings)
        self.step(position - self.position)

    def finish(self) -> None:
        """Feed every remaining step (the last attempt is ended)."""
        self.seek(len(self.plan))

    def set_tools(self, tools: ToolRegistry | None) -> None:
        """Use ``tools`` now and for every rebuilt Analysis (backward seeks, dialect changes)."""
        self.tools = tools
        self.analysis.set_tools(tools)

    def apply(self, settings: Settings) -> None:
        """Re-judge under ``settings``; a dialect change re-reads up to the same position."""
        if settings.dialect != self.settings.dialect:
            position = self.position
            self._rebuild(settings)
            self.step(position)
        else:
            self.analysis.apply(settings)

    # -- internals -----------------------------------------------------------------------

    def _fresh(self, settings: Settings) -> Analysis:
        analysis = Analysis(settings, self.tools)
        analysis.capture = self.capture
        if not self.plan:  # nothing recorded: one empty, ended attempt (as from_capture)
            analysis.begin_attempt(None)
            analysis.end()
        return analysis

    def _rebuild(self, settings: Settings) -> None:
        self.position = 0
        self._attempt = None
        self.analysis = self._fresh(settings)

    def _feed_next(self) -> None:
        step = self.plan[self.position]
        analysis = self.analysis
        if step.attempt != self._attempt:
            if self._attempt is not None:
                analysis.end()
            analysis.begin_attempt(self._sources.get(step.attempt))
            self._attempt = step.attempt
        if step.event is not None:
            analysis.add_event(step.event)
        else:
            analysis.feed(step.data, step.source_t)
        self.position += 1
        if self.position == len(self.plan):
            analysis.end()
