"""The session runner: its states, and "round R · attempt N" (N from 1 in each round).

A plain, a retried and a cancelled session run against httpx.MockTransport (the states do not
depend on a server); the tool loops run against the real demo provider on loopback.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import orjson
import pytest

from inspector.core.analysis.numbering import RoundAttempt, attempt_places
from inspector.core.capture.reader import load
from inspector.core.requests.scenarios import Scenario, build_request, find_profile, find_scenario
from inspector.net.demo import DemoProvider
from inspector.net.policy import LoopSettings
from inspector.net.runstate import RunState
from inspector.net.session import LiveSession
from inspector.net.toolloop import ToolLoop
from inspector.net.tools import ToolBox

Seen = list[tuple[str, str]]


def _frame(delta: dict[str, Any], finish: str | None = None) -> bytes:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return b"data: " + orjson.dumps({"choices": [choice]}) + b"\n\n"


def _body(arguments: str, finish: str) -> bytes:
    """A chat completions stream with one get_weather call whose arguments are ``arguments``."""
    call = {"index": 0, "id": "c1", "type": "function",
            "function": {"name": "get_weather", "arguments": arguments}}  # fmt: skip
    return _frame({"tool_calls": [call]}) + _frame({}, finish) + b"data: [DONE]\n\n"


VALID = _body('{"city": "Paris"}', "tool_calls")
TRUNCATED = _body('{"ci', "length")


def _mock_session(tmp_path: Path, handler: Any) -> tuple[LiveSession, Seen]:
    seen: Seen = []
    spec = build_request(find_profile("openai"), find_scenario("weather"))
    session = LiveSession(
        spec,
        dialect="openai-chat",
        settings=LoopSettings(),
        capture_path=tmp_path / "s.jsonl",
        key=None,
        client=httpx.AsyncClient(transport=httpx.MockTransport(handler)),
        on_state=lambda state, place: seen.append((state.value, str(place))),
    )
    return session, seen


def _bodies(*bodies: bytes) -> Any:
    sent: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(1)
        body = bodies[min(len(sent), len(bodies)) - 1]
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    return handler


R1A1, R1A2, R2A1 = "round 1 · attempt 1", "round 1 · attempt 2", "round 2 · attempt 1"


def test_states_and_places_in_words() -> None:
    assert {s for s in RunState if s.final} == {"done", "failed", "cancelled"}
    assert RunState.RUNNING_TOOLS.label == "running tools" and RunState.DONE == "done"
    assert str(RoundAttempt(2, 1)) == R2A1 and str(RoundAttempt()) == "not started"
    views = [SimpleNamespace(number=n, round=r) for n, r in [(1, 1), (2, 1), (3, 2), (4, 3)]]
    assert attempt_places(views) == {
        1: RoundAttempt(1, 1),
        2: RoundAttempt(1, 2),
        3: RoundAttempt(2, 1),
        4: RoundAttempt(3, 1),
    }


async def test_plain_session_states(tmp_path: Path) -> None:
    session, seen = _mock_session(tmp_path, _bodies(VALID))
    await session.run()
    assert seen == [("connecting", R1A1), ("streaming", R1A1), ("done", R1A1)]
    assert session.place == RoundAttempt(1, 1)


async def test_retried_session_states(tmp_path: Path) -> None:
    session, seen = _mock_session(tmp_path, _bodies(TRUNCATED, VALID))
    await session.run()
    assert seen == [
        ("connecting", R1A1),
        ("streaming", R1A1),
        ("retrying", R1A2),
        ("streaming", R1A2),
        ("done", R1A2),
    ]
    assert [r.outcome for r in session.records] == ["retried", "accepted"]
    assert [a.number for a in load(tmp_path / "s.jsonl").attempts] == [1, 2]  # the capture's


async def test_failed_session_states(tmp_path: Path) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(500, content=b'{"error": {"message": "boom"}}')

    session, seen = _mock_session(tmp_path, handler)
    await session.run()
    assert seen == [("connecting", R1A1), ("streaming", R1A1), ("failed", R1A1)]
    assert session.error is not None


async def test_cancelled_session_states(tmp_path: Path) -> None:
    first_chunk, never = asyncio.Event(), asyncio.Event()

    async def stalled() -> AsyncIterator[bytes]:
        yield _frame({"content": "Hel"})
        first_chunk.set()
        await never.wait()
        yield b""

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=stalled())

    session, seen = _mock_session(tmp_path, handler)
    runner = asyncio.create_task(session.run())
    async with asyncio.timeout(10):
        await first_chunk.wait()
        await asyncio.sleep(0.05)
        session.cancel()
        await runner  # run() returns normally after cancel()
    assert seen == [("connecting", R1A1), ("streaming", R1A1), ("cancelled", R1A1)]
    (att,) = load(tmp_path / "s.jsonl").attempts
    assert att.end is not None and att.end["reason"] == "cancelled"

    never_run, seen = _mock_session(tmp_path, _bodies(VALID))
    never_run.cancel()
    await never_run.run()
    assert seen == [("cancelled", "not started")]


def _loop(demo: DemoProvider, tmp_path: Path, model: str, box: ToolBox,
          on_state: Any) -> ToolLoop:  # fmt: skip
    profile = find_profile("demo").resolved(demo.url)
    tools = box.definitions(["get_weather"])
    spec = build_request(profile, Scenario("t", "t", "What is the weather?", tools), model=model)
    return ToolLoop(spec, dialect="openai-chat", tools=box, capture_path=tmp_path / "loop.jsonl",
                    on_state=on_state)  # fmt: skip


async def test_tool_loop_states_include_running_tools(
    demo_provider: DemoProvider, tmp_path: Path
) -> None:
    seen: Seen = []
    running: list[bool] = []
    box = ToolBox.builtin()
    box.set_slow("get_weather", 0.3)  # still running when the body has ended

    def on_state(state: RunState, place: RoundAttempt) -> None:
        seen.append((state.value, str(place)))
        if state is RunState.RUNNING_TOOLS:
            running.append(any(not task.done() for task in loop.tasks))

    loop = _loop(demo_provider, tmp_path, "demo-clean", box, on_state)
    async with asyncio.timeout(20):
        await loop.run()
    assert (loop.state, loop.end_reason) == ("done", "finish")
    assert seen == [
        ("connecting", R1A1),
        ("streaming", R1A1),
        ("running_tools", R1A1),
        ("connecting", R2A1),
        ("streaming", R2A1),
        ("done", R2A1),
    ]
    assert running == [True]  # the state says so while the tool runs
    assert loop.round == 2


async def test_two_rounds_with_a_retry_in_round_1_are_numbered_per_round(
    demo_provider: DemoProvider, tmp_path: Path
) -> None:
    seen: Seen = []
    loop = _loop(demo_provider, tmp_path, "demo-truncated-then-valid", ToolBox.builtin(),
                 lambda state, place: seen.append((state.value, str(place))))  # fmt: skip
    async with asyncio.timeout(20):
        await loop.run()
    assert seen == [
        ("connecting", R1A1),
        ("streaming", R1A1),
        ("retrying", R1A2),
        ("streaming", R1A2),
        ("running_tools", R1A2),
        ("connecting", R2A1),
        ("streaming", R2A1),
        ("done", R2A1),
    ]
    places = attempt_places(loop.analysis.attempts)
    assert [str(places[v.number]) for v in loop.analysis.attempts] == [R1A1, R1A2, R2A1]
    # the capture keeps numbering attempts across the session
    assert [a.number for a in load(tmp_path / "loop.jsonl").attempts] == [1, 2, 3]
    assert [r.outcome for r in loop.records] == ["retried", "accepted", "accepted"]


@pytest.mark.parametrize("when", [RunState.STREAMING, RunState.RUNNING_TOOLS])
async def test_a_tool_loop_cancelled_in_any_state_ends_cancelled(
    demo_provider: DemoProvider, tmp_path: Path, when: RunState
) -> None:
    seen: Seen = []
    box = ToolBox.builtin()
    box.set_slow("get_weather", 30.0)

    def on_state(state: RunState, place: RoundAttempt) -> None:
        seen.append((state.value, str(place)))
        if state is when:
            loop.stop()

    loop = _loop(demo_provider, tmp_path, "demo-clean", box, on_state)
    async with asyncio.timeout(10):
        await loop.run()
    assert seen[-1] == ("cancelled", R1A1) and (when.value, R1A1) in seen
    assert loop.end_reason == "cancelled" and not loop.tasks
    end = load(tmp_path / "loop.jsonl").attempts[-1].events[-1]
    assert end["kind"] == "loop_end" and end["data"]["reason"] == "cancelled"
