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
  Analysis is fed those times (the body has none of its own). The plan keeps the body once,
  with its cut offsets (:mod:`inspector.core.replay.plan`).
- At every position the Analysis is exactly what a live session has after receiving those
  chunks: earlier attempts ended, the current one open; once the plan is exhausted the last
  attempt is ended too, which makes the final state equal to ``Analysis.from_capture``.
  The Analysis is fed each chunk's recorded time (``Step.source_t``), as the live client is.
- Seeking backward rebuilds a fresh Analysis (same settings and tools, capture attached) and
  feeds it forward; nothing is ever un-fed.
- Tool-loop ``event`` records are steps too (``Step.event``), placed among their attempt's
  chunks in arrival order (:func:`inspector.core.analysis.rounds.merged`) at their recorded time,
  and handed to :meth:`Analysis.add_event`. A capture without events gets exactly the plan it got
  before tool loops existed.
"""

from __future__ import annotations

import gc
from bisect import bisect_right
from collections.abc import Iterator
from contextlib import contextmanager

from inspector.core.analysis.rounds import merged
from inspector.core.analysis.session import Analysis
from inspector.core.base.provider import Providers
from inspector.core.base.settings import AUTO, Settings
from inspector.core.capture.records import Attempt, Capture
from inspector.core.providers import REGISTRY
from inspector.core.replay.framecuts import cutter
from inspector.core.replay.plan import Plan
from inspector.core.verdicts.tools import ToolRegistry


def replay_plan(
    capture: Capture,
    *,
    untimed_interval: float = 0.05,
    dialect: str = AUTO,
    providers: Providers = REGISTRY,
) -> Plan:
    """The capture's chunks as steps on one session clock (see the module docstring); a raw
    body is cut after each wire event of its framing (SSE's, or one ``dialect`` or its first
    bytes name: :func:`~.framecuts.cutter`)."""
    plan = Plan()
    if not capture.timed:
        for attempt in capture.attempts:
            body = attempt.body
            finder = cutter(body, dialect, providers)
            while not finder.scan(len(body)):
                pass
            plan.add_body(attempt.number, body, finder.cuts, untimed_interval)
        return plan
    for attempt in capture.attempts:
        if attempt.events:
            plan.add_attempt(attempt.number, merged(attempt))
        elif attempt.chunks:
            plan.add_chunks(attempt.number, attempt.chunks)
        else:  # nothing recorded: one empty step at the current clock
            plan.add_attempt(attempt.number, [(0.0, b"", None)])
    return plan


RUN_STEPS = 1 << 16
"""Steps handed to one ``Analysis.feed_many`` call at most."""
BULK_STEPS = 20_000
"""Steps fed at once from which the garbage collector is paused (see _collector_paused)."""


class Replayer:
    """Feeds a capture's plan to a live :class:`Analysis`, forward or by seeking."""

    def __init__(
        self,
        capture: Capture,
        settings: Settings | None = None,
        tools: ToolRegistry | None = None,
        plan: Plan | None = None,
        providers: Providers = REGISTRY,
    ) -> None:
        self.capture = capture
        """The capture being replayed."""
        self.tools = tools
        """User-supplied tools (None: the capture's request supplies them)."""
        self.providers = providers
        """The providers every Analysis it builds reads the streams with."""
        self.plan: Plan = (
            plan
            if plan is not None
            else replay_plan(capture, dialect=(settings or Settings()).dialect, providers=providers)
        )
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
        return self.plan.clock

    def time_at(self, position: int) -> float:
        """Session time once ``position`` steps are fed: the last fed step's time (0 at 0)."""
        position = min(max(position, 0), len(self.plan))
        return self.plan.times[position - 1] if position else 0.0

    @property
    def next_time(self) -> float | None:
        """Session time of the next step, or None at the end."""
        return None if self.at_end else self.plan.times[self.position]

    # -- moving --------------------------------------------------------------------------

    def advance_to_time(self, t: float, max_steps: int | None = None) -> int:
        """Feed the steps due by session time ``t`` (at most ``max_steps``); return how many."""
        target = bisect_right(self.plan.times, t, self.position)
        if max_steps is not None:
            target = min(target, self.position + max_steps)
        return self._feed_to(target)

    def step(self, n: int = 1) -> int:
        """Feed up to ``n`` steps; return how many were fed."""
        return self._feed_to(min(self.position + max(n, 0), len(self.plan)))

    def seek(self, position: int) -> None:
        """Go to ``position`` (clamped): forward feeds, backward rebuilds and feeds from 0."""
        position = min(max(position, 0), len(self.plan))
        if position < self.position:
            self._rebuild(self.settings)
        self._feed_to(position)

    def finish(self) -> None:
        """Feed every remaining step (the last attempt is ended)."""
        self.seek(len(self.plan))

    def adopt(self, analysis: Analysis, attempt: int) -> None:
        """Take ``analysis`` as the state at the end of the plan: it has been fed every step,
        in plan order, with ``attempt`` (the plan's last) still open; it is ended here, as the
        last step ends it (see :mod:`inspector.core.replay.loading`)."""
        self.analysis, self.position, self._attempt = analysis, len(self.plan), attempt
        analysis.capture = self.capture
        analysis.end()

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
        analysis = Analysis(settings, self.tools, providers=self.providers)
        analysis.capture = self.capture
        if not self.plan:  # nothing recorded: one empty, ended attempt (as from_capture)
            analysis.begin_attempt(None)
            analysis.end()
        return analysis

    def _rebuild(self, settings: Settings) -> None:
        self.position = 0
        self._attempt = None
        self.analysis = self._fresh(settings)

    def _feed_to(self, target: int) -> int:
        """Feed steps up to ``target`` (exclusive), runs of plain chunks at once (at most
        ``RUN_STEPS`` at a time: an untimed plan builds its pairs as they are fed); return how
        many were fed."""
        plan, analysis, first = self.plan, self.analysis, self.position
        with _collector_paused(target - first):
            while self.position < target:
                i = self.position
                number = plan.attempt_at(i)
                if number != self._attempt:
                    if self._attempt is not None:
                        analysis.end()
                    analysis.begin_attempt(self._sources.get(number))
                    self._attempt = number
                event = plan.events.get(i)
                if event is not None:
                    analysis.add_event(event)
                    self.position = i + 1
                else:
                    self.position = plan.run_end(i, min(target, i + RUN_STEPS))
                    analysis.feed_many(plan.pairs[i : self.position])
                if self.position == len(plan):
                    analysis.end()
        return self.position - first


@contextmanager
def _collector_paused(steps: int) -> Iterator[None]:
    """Pause the automatic garbage collector while ``steps`` (at least ``BULK_STEPS``) are fed.

    Feeding builds long-lived objects and no cyclic garbage, so every collection pass over them
    is wasted: the collector's older generations are scanned again and again as they grow (a
    million-chunk capture fed with it running took ~25% longer). Its previous state is restored
    afterwards, whatever happens."""
    if steps < BULK_STEPS or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
