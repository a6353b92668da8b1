"""Which matrix job runs next: the longest expected first, within the matrix's and each
target's concurrency.

A matrix's sessions differ in length by an order of magnitude (a one-call weather question
against a trip planned over several rounds of parallel calls). Handed out in a fixed order, the
long ones of the last run started last and ran on alone at the end: the matrix took 1.8x its
ideal (its sessions' paced time over its concurrency) where the slots were busy ~1.3x of it.
Handing out the longest first (LPT scheduling) fills the slots to the end.

Invariants:
- A job is handed out only when its target has a free slot (at most ``Target.concurrency``
  of its jobs at once); the matrix's own bound is the number of workers taking jobs.
- Expected length: the last duration of the job's cell, else the longest of its scenario's
  finished so far, else unknown. A job of unknown length goes first (in the runner's order:
  run by run, column by column), so every scenario is met early and then known; among known
  ones the longest goes first, ties in the runner's order.
- Every job is handed out exactly once; :meth:`Schedule.take` returns None when none is left.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Generic, Protocol, TypeVar


class _Job(Protocol):
    @property
    def cell(self) -> tuple[str, str]:
        """(target, scenario)."""
        ...


J = TypeVar("J", bound=_Job)


class Schedule(Generic[J]):
    """Jobs handed out longest expected first (see the module docstring)."""

    def __init__(self, jobs: Iterable[J], per_target: Mapping[str, int]) -> None:
        self._pending: list[J] = list(jobs)
        self._bounds = dict(per_target)
        self._running: Counter[str] = Counter()
        self._cells: dict[tuple[str, str], float] = {}
        self._scenarios: dict[str, float] = {}
        self._changed = asyncio.Condition()

    def __len__(self) -> int:
        """Jobs not handed out yet."""
        return len(self._pending)

    async def take(self) -> J | None:
        """The next job (waiting for its target's slot), or None when none is left."""
        async with self._changed:
            while self._pending:
                job = self._pick()
                if job is not None:
                    self._pending.remove(job)
                    self._running[job.cell[0]] += 1
                    return job
                await self._changed.wait()
            return None

    async def done(self, job: J, seconds: float) -> None:
        """``job`` ended after ``seconds``: its target's slot is free, its length known."""
        async with self._changed:
            target, scenario = job.cell
            self._running[target] -= 1
            self._cells[job.cell] = seconds
            self._scenarios[scenario] = max(seconds, self._scenarios.get(scenario, 0.0))
            self._changed.notify_all()

    def expected(self, job: J) -> float | None:
        """How long ``job`` is expected to take (None: not known yet)."""
        known = self._cells.get(job.cell)
        return known if known is not None else self._scenarios.get(job.cell[1])

    def _pick(self) -> J | None:
        best: J | None = None
        best_length = -1.0
        for job in self._pending:
            target = job.cell[0]
            if self._running[target] >= self._bounds.get(target, 1 << 30):
                continue
            length = self.expected(job)
            if length is None:
                return job  # unknown: first, in the runner's order
            if length > best_length:
                best, best_length = job, length
        return best
