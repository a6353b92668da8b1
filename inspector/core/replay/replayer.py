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
  chunks in arrival order (:func:`inspector.core.analysis.rounds.merged`) at their recorded time,
  and handed to :meth:`Analysis.add_event`. A capture without events gets exactly the plan it got
  before tool loops existed.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import overload

from inspector.core.analysis.rounds import ToolEvent, merged
from inspector.core.analysis.session import Analysis, Settings
from inspector.core.base.model import EventKind, SSEEvent
from inspector.core.base.provider import Providers
from inspector.core.capture.records import Attempt, Capture
from inspector.core.events.sse import decode_all
from inspector.core.providers import REGISTRY
from inspector.core.verdicts.tools import ToolRegistry

MergedStep = tuple[float, bytes | None, ToolEvent | None]
"""(recorded t, chunk or None, event or None), as :func:`inspector.core.analysis.rounds.merged`
yields."""


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
    return split_at(body, event_cuts(decode_all(body)))


def event_cuts(events: Iterable[SSEEvent], cuts: list[int] | None = None) -> list[int]:
    """The offsets :func:`split_body` cuts at: each event's end (errors aside), increasing;
    ``cuts`` is extended in place (events may come in several batches)."""
    cuts = [] if cuts is None else cuts
    for ev in events:
        if ev.kind != EventKind.ERROR and ev.end > (cuts[-1] if cuts else 0):
            cuts.append(ev.end)
    return cuts


def split_at(body: bytes, cuts: list[int]) -> list[bytes]:
    """``body`` cut at ``cuts`` (from :func:`event_cuts`); a tail goes with the last piece."""
    if not cuts:
        return [body] if body else []
    pieces = [body[a:b] for a, b in zip([0, *cuts[:-1]], cuts, strict=True)]
    if cuts[-1] < len(body):
        pieces[-1] += body[cuts[-1] :]
    return pieces


class Plan(Sequence[Step]):
    """The replay plan stored in columns; a :class:`Step` is built only when one is asked for.

    A million-chunk capture costs a few list copies here, not a million objects: ``pairs``
    holds the capture's own ``(t, data)`` tuples (an event step has ``(t, b"")``), ``times``
    the session clock, and attempts are kept as runs of consecutive steps.
    """

    def __init__(self) -> None:
        self.pairs: list[tuple[float, bytes]] = []
        """``(source_t, data)`` per step: what :meth:`Analysis.feed_many` takes."""
        self.times: list[float] = []
        """Session time per step (non-decreasing)."""
        self.events: dict[int, ToolEvent] = {}
        """Step index -> the tool-loop event fed at that step."""
        self.event_steps: list[int] = []
        """The keys of ``events``, ascending."""
        self.starts: list[int] = []
        """Index of each attempt's first step, ascending."""
        self.numbers: list[int] = []
        """The attempt number of each run in ``starts``."""
        self._base = 0.0  # session time at the start of the last attempt

    def __len__(self) -> int:
        return len(self.pairs)

    @overload
    def __getitem__(self, index: int) -> Step: ...
    @overload
    def __getitem__(self, index: slice) -> list[Step]: ...
    def __getitem__(self, index: int | slice) -> Step | list[Step]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("plan index out of range")
        t, data = self.pairs[index]
        return Step(self.attempt_at(index), self.times[index], data, t, self.events.get(index))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Plan | list):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def attempt_at(self, index: int) -> int:
        """The attempt number of step ``index``."""
        return self.numbers[bisect_right(self.starts, index) - 1]

    def run_end(self, index: int, limit: int) -> int:
        """One past the last step from ``index`` (below ``limit``) of the same attempt with no
        tool-loop event: the steps :meth:`Analysis.feed_many` can take at once."""
        run = bisect_right(self.starts, index)
        if run < len(self.starts):
            limit = min(limit, self.starts[run])
        k = bisect_left(self.event_steps, index)
        if k < len(self.event_steps):
            limit = min(limit, self.event_steps[k])
        return limit

    @property
    def clock(self) -> float:
        """Session time of the last step (0 for an empty plan)."""
        return self.times[-1] if self.times else 0.0

    def _open(self, number: int) -> float:
        """Start attempt ``number``'s run unless it is the last one; return its base time."""
        if not self.numbers or self.numbers[-1] != number:
            self.starts.append(len(self.pairs))
            self.numbers.append(number)
            self._base = self.clock
        return self._base

    def add_attempt(self, number: int, steps: Iterable[MergedStep]) -> None:
        """Append an attempt's steps (recorded ``t``, chunk, event): its step times keep their
        offsets from the attempt's start, never going back in time."""
        base = self._open(number)
        clock = self.clock
        for t, data, event in steps:
            clock = max(clock, base + t)
            if event is not None:
                self.events[len(self.pairs)] = event
                self.event_steps.append(len(self.pairs))
            self.pairs.append((t, data or b""))
            self.times.append(clock)

    def add_untimed(self, number: int, pieces: list[bytes], interval: float = 0.05) -> None:
        """Append a raw body's pieces (one per wire event) at ``interval`` seconds apart."""
        self._open(number)
        for piece in pieces or [b""]:
            t = len(self.pairs) * interval
            self.pairs.append((t, piece))
            self.times.append(t)

    def add_chunks(self, number: int, chunks: list[tuple[float, bytes]]) -> None:
        """:meth:`add_attempt` for chunks only, without a Python loop per step; more chunks of
        the last attempt continue its run (a file read a slice at a time)."""
        base = self._open(number)
        self.pairs += chunks
        times = list(accumulate([base + t for t, _ in chunks], max, initial=self.clock))
        del times[0]
        self.times += times


def replay_plan(capture: Capture, *, untimed_interval: float = 0.05) -> Plan:
    """The capture's chunks as steps on one session clock (see the module docstring)."""
    plan = Plan()
    if not capture.timed:
        for attempt in capture.attempts:
            plan.add_untimed(attempt.number, split_body(attempt.body), untimed_interval)
        return plan
    for attempt in capture.attempts:
        if attempt.events:
            plan.add_attempt(attempt.number, merged(attempt))
        elif attempt.chunks:
            plan.add_chunks(attempt.number, attempt.chunks)
        else:  # nothing recorded: one empty step at the current clock
            plan.add_attempt(attempt.number, [(0.0, b"", None)])
    return plan


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
        self.plan: Plan = plan if plan is not None else replay_plan(capture)
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
        """Feed steps up to ``target`` (exclusive), runs of plain chunks at once; return how
        many were fed."""
        plan, analysis, first = self.plan, self.analysis, self.position
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
                self.position = plan.run_end(i, target)
                analysis.feed_many(plan.pairs[i : self.position])
            if self.position == len(plan):
                analysis.end()
        return self.position - first
