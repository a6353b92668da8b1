"""Issue 30: the matrix hands out the longest expected job first, unknown ones before any,
never more of a target's jobs at once than its bound (``inspector/net/matrix/schedule.py``)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from inspector.net.matrix.schedule import Schedule


@dataclass(frozen=True)
class J:
    target: str
    scenario: str
    run: int

    @property
    def cell(self) -> tuple[str, str]:
        return self.target, self.scenario


async def test_unknown_jobs_go_first_in_order_then_the_longest_known() -> None:
    jobs = [J(t, s, r) for r in (1, 2) for s in ("short", "long") for t in ("a", "b")]
    schedule = Schedule(jobs, {"a": 10, "b": 10})
    first = [await schedule.take() for _ in range(4)]
    assert first == jobs[:4]  # run 1, nothing known: the runner's order
    for job in first:
        await schedule.done(job, 5.0 if job.scenario == "long" else 0.5)
    rest = [await schedule.take() for _ in range(4)]
    assert [(j.scenario, j.target) for j in rest if j is not None] == [
        ("long", "a"), ("long", "b"), ("short", "a"), ("short", "b")
    ]  # fmt: skip
    assert await schedule.take() is None


async def test_a_scenario_known_from_another_target_sets_the_expectation() -> None:
    jobs = [J("a", "trip", 1), J("a", "weather", 1), J("b", "weather", 1), J("b", "trip", 1)]
    schedule = Schedule(jobs, {"a": 10, "b": 10})
    trip, weather = await schedule.take(), await schedule.take()
    assert trip is not None and weather is not None
    await schedule.done(trip, 4.0)
    await schedule.done(weather, 1.0)
    assert schedule.expected(J("b", "trip", 1)) == 4.0
    assert await schedule.take() == J("b", "trip", 1)  # before b's weather, listed first


async def test_a_target_never_has_more_jobs_at_once_than_its_bound() -> None:
    jobs = [J("a", "s", 1), J("a", "s", 2), J("b", "s", 1)]
    schedule = Schedule(jobs, {"a": 1, "b": 1})
    assert await schedule.take() == J("a", "s", 1)
    assert await schedule.take() == J("b", "s", 1)  # a's second waits for its slot
    waiting = asyncio.ensure_future(schedule.take())
    await asyncio.sleep(0)
    assert not waiting.done()
    await schedule.done(J("a", "s", 1), 1.0)
    assert await waiting == J("a", "s", 2)
    assert len(schedule) == 0
