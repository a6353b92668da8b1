"""The replay plan: a capture's chunks laid on one session clock, stored in columns, with a
:class:`Step` built only when one is asked for (see :mod:`inspector.core.replay.replayer` for
what the clock means and how a plan is replayed).

Invariants:
- Plan times are non-decreasing; ``len(plan) == len(plan.pairs) == len(plan.times)``.
- A timed plan holds the capture's own ``(t, data)`` tuples (an event step has ``(t, b"")``)
  and its times as an array of floats: a million steps cost a few list copies, not a million
  objects. Chunks in recorded order (nearly always) get their times from C-level passes
  (``base + t``, raised to the clock); any other order the running maximum: the same times.
- An untimed plan (a raw body) holds each body once, with an array of its steps' end offsets:
  step k of a body is ``body[ends[k-1]:ends[k]]`` (``ends[-1] == len(body)``), so the pieces
  join to the body byte for byte; step i's time is ``i * interval``. Its ``pairs`` and
  ``times`` are sequences computed on the fly: a body is never held twice, nor a tuple, bytes
  or float kept per event.
- A plan is timed or untimed throughout: mixing the two is a ValueError.
- A body's cuts are :mod:`inspector.core.replay.cuts`'s: after each wire event (comments
  included), errors aside; a gap (blank lines, a BOM, a data-less block) goes with the event
  after it, a tail after the last event with the last step.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate, repeat
from operator import add, itemgetter
from typing import overload

from inspector.core.analysis.rounds import ToolEvent
from inspector.core.replay.cuts import step_ends

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


class _Bodies(Sequence[tuple[float, bytes]]):
    """``(i * interval, piece)`` per step of an untimed plan, cut from its bodies on the fly."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self.firsts: list[int] = []  # the index of each body's first step
        self.bodies: list[bytes] = []
        self.ends: list[array[int]] = []
        self.size = 0

    def add(self, body: bytes, cuts: Sequence[int]) -> None:
        ends = step_ends(body, cuts)
        self.firsts.append(self.size)
        self.bodies.append(body)
        self.ends.append(ends)
        self.size += len(ends)

    def __len__(self) -> int:
        return self.size

    @overload
    def __getitem__(self, index: int) -> tuple[float, bytes]: ...
    @overload
    def __getitem__(self, index: slice) -> list[tuple[float, bytes]]: ...
    def __getitem__(self, index: int | slice) -> tuple[float, bytes] | list[tuple[float, bytes]]:
        if isinstance(index, slice):
            start, stop, stride = index.indices(self.size)
            if stride != 1:
                return [self[i] for i in range(start, stop, stride)]
            return self._run(start, stop)
        if index < 0:
            index += self.size
        if not 0 <= index < self.size:
            raise IndexError("plan index out of range")
        return self._run(index, index + 1)[0]

    def _run(self, start: int, stop: int) -> list[tuple[float, bytes]]:
        """Steps ``start`` to ``stop`` (exclusive), body by body."""
        out: list[tuple[float, bytes]] = []
        interval, i = self.interval, start
        while i < stop:
            b = bisect_right(self.firsts, i) - 1
            first, body, ends = self.firsts[b], self.bodies[b], self.ends[b]
            last = min(stop - first, len(ends))
            k = i - first
            a = ends[k - 1] if k else 0
            for end in ends[k:last]:
                out.append((i * interval, body[a:end]))
                a, i = end, i + 1
        return out


class _Ticks(Sequence[float]):
    """``i * interval`` for ``i`` below the length of ``steps``: an untimed plan's times."""

    def __init__(self, steps: _Bodies) -> None:
        self.steps = steps

    def __len__(self) -> int:
        return self.steps.size

    @overload
    def __getitem__(self, index: int) -> float: ...
    @overload
    def __getitem__(self, index: slice) -> list[float]: ...
    def __getitem__(self, index: int | slice) -> float | list[float]:
        size, interval = self.steps.size, self.steps.interval
        if isinstance(index, slice):
            return [i * interval for i in range(*index.indices(size))]
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("plan index out of range")
        return index * interval


class Plan(Sequence[Step]):
    """The replay plan stored in columns (see the module docstring)."""

    def __init__(self) -> None:
        self.pairs: Sequence[tuple[float, bytes]] = []
        """``(source_t, data)`` per step: what :meth:`Analysis.feed_many` takes (built on the
        fly for an untimed plan: slice it rather than iterate it whole)."""
        self.times: Sequence[float] = array("d")
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

    @property
    def untimed(self) -> bool:
        """The plan's steps are raw bodies' wire events at synthetic times."""
        return isinstance(self.pairs, _Bodies)

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

    def _timed(self) -> tuple[list[tuple[float, bytes]], array[float]]:
        pairs, times = self.pairs, self.times
        if not isinstance(pairs, list) or not isinstance(times, array):
            raise ValueError("a plan is timed or untimed throughout")
        return pairs, times

    def add_attempt(self, number: int, steps: Iterable[MergedStep]) -> None:
        """Append an attempt's steps (recorded ``t``, chunk, event): its step times keep their
        offsets from the attempt's start, never going back in time."""
        pairs, times = self._timed()
        base = self._open(number)
        clock = self.clock
        for t, data, event in steps:
            clock = max(clock, base + t)
            if event is not None:
                self.events[len(pairs)] = event
                self.event_steps.append(len(pairs))
            pairs.append((t, data or b""))
            times.append(clock)

    def add_chunks(self, number: int, chunks: list[tuple[float, bytes]]) -> None:
        """:meth:`add_attempt` for chunks only, without a Python loop per step; more chunks of
        the last attempt continue its run (a file read a slice at a time)."""
        pairs, times = self._timed()
        base, clock = self._open(number), self.clock
        recorded = list(map(itemgetter(0), chunks))
        total = sum(recorded)  # NaN if any time is NaN or infinite times of both signs
        if total - total == 0.0 and recorded == sorted(recorded):
            # In arrival order, as recorded times nearly always are (and no NaN among them):
            # each step's time is base + t, raised to the clock where it falls below it.
            moved = array("d", map(add, repeat(base), recorded) if base else recorded)
            low = bisect_left(moved, clock)
            if low:
                moved[:low] = array("d", [clock]) * low
            times += moved
        else:
            first = len(times)
            times.extend(accumulate([base + t for t in recorded], max, initial=clock))
            del times[first]  # the initial clock
        pairs += chunks

    def add_body(
        self, number: int, body: bytes, cuts: Sequence[int], interval: float = 0.05
    ) -> None:
        """Append a raw body cut at ``cuts`` (:func:`~inspector.core.replay.cuts.body_cuts`;
        an array of offsets is taken over, not copied), one step per wire event, ``interval``
        seconds apart; every body of a plan has the same interval."""
        pairs = self.pairs
        if not isinstance(pairs, _Bodies):
            if pairs:
                raise ValueError("a plan is timed or untimed throughout")
            self.pairs = pairs = _Bodies(interval)
            self.times = _Ticks(pairs)
        elif pairs.interval != interval:
            raise ValueError("every body of an untimed plan has the same interval")
        self._open(number)
        pairs.add(body, cuts)
