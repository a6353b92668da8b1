"""The streaming-dispatch tool loop against the real demo provider on loopback (no mocks)."""

from __future__ import annotations

import asyncio
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from inspector.core.analysis.continuation import ToolResult
from inspector.core.analysis.rounds import (
    LOOP_END,
    ROUND,
    TOOL_DISPATCH,
    TOOL_RESULT,
    ToolEvent,
    merged,
)
from inspector.core.analysis.session import Analysis
from inspector.core.capture.reader import load
from inspector.core.providers import REGISTRY
from inspector.core.replay.replayer import Replayer
from inspector.core.requests.scenarios import Scenario, build_request, find_profile
from inspector.net.demo import DemoProvider
from inspector.net.policy import LoopSettings
from inspector.net.toolloop import ToolLoop
from inspector.net.tools import ToolBox

PROFILES = {"openai-chat": "demo", "openai-responses": "demo-responses",
            "anthropic": "demo-anthropic", "gemini": "demo-gemini"}  # fmt: skip
STOCK = {
    "type": "function",
    "function": {
        "name": "get_stock_price",
        "parameters": {
            "type": "object",
            "properties": {"symbol": {"type": "string"}},
            "required": ["symbol"],
        },
    },
}


def make_loop(demo_provider: DemoProvider, tmp_path: Path, *, dialect: str = "openai-chat",
              model: str = "demo-clean", order: list[str] | None = None,
              extra_tools: list[dict[str, Any]] | None = None, delay: float = 0.0,
              box: ToolBox | None = None, name: str = "loop.jsonl",
              **options: Any) -> ToolLoop:  # fmt: skip
    box = box or ToolBox.builtin(sleep_cap=0.3)
    tools = box.definitions(order or ["get_weather"]) + (extra_tools or [])
    profile = find_profile(PROFILES[dialect]).resolved(demo_provider.url)
    profile = replace(profile, headers={"x-demo-chunk-delay": str(delay)})
    spec = build_request(profile, Scenario("t", "t", "What is the weather?", tools), model=model)
    return ToolLoop(spec, dialect=dialect, tools=box, capture_path=tmp_path / name, **options)


def kinds(events: list[ToolEvent]) -> list[str]:
    return [e.kind for e in events]


@pytest.mark.parametrize("dialect", list(PROFILES))
async def test_two_rounds_result_lands_mid_stream(demo_provider: DemoProvider, tmp_path: Path,
                                                  dialect: str) -> None:  # fmt: skip
    loop = make_loop(demo_provider, tmp_path, dialect=dialect, delay=0.01)
    await loop.run()
    assert (loop.state, loop.end_reason, loop.error) == ("done", "finish", None)
    r1, r2 = loop.analysis.rounds
    (result,) = r1.results
    assert result.status == "ok" and result.title == "Weather in Paris"
    assert result.metadata is not None and result.metadata["city"] == "Paris"
    assert re.search(r"get_weather returned .*Paris: \d+ °C", loop.final_text)
    assert not r2.final.state.calls
    # the continuation echoed the call and answered it under the same effective id
    turn = loop.analysis.assistant_turn(r1.final)
    assert [c.id for c in turn.calls] == [result.call_id]
    sent = str(demo_provider.requests[-1]["body"])
    assert (result.call_id not in sent) if dialect == "gemini" else (result.call_id in sent)
    assert "Weather in Paris" not in sent  # the title is for the view, the output for the model
    # streaming dispatch: in the capture, the result comes before round 1's last chunk
    capture = load(tmp_path / "loop.jsonl")
    order = [("chunk" if ev is None else ev.kind) for _, _, ev in merged(capture.attempts[0])]
    assert order[0] == ROUND and order.index(TOOL_RESULT) < len(order) - 1
    assert order.index(TOOL_DISPATCH) < order.index(TOOL_RESULT)
    assert result.completed is not None and not result.completed.ended
    assert capture.attempts[-1].events[-1]["kind"] == LOOP_END


async def test_slow_tool_overlaps_later_calls(demo_provider: DemoProvider, tmp_path: Path) -> None:
    loop = make_loop(demo_provider, tmp_path, model="demo-parallel", delay=0.01,
                     box=ToolBox.builtin(sleep_cap=0.8),
                     order=["sleep", "get_weather", "search_files"])  # fmt: skip
    await loop.run()
    r1 = loop.analysis.rounds[0]
    events = r1.final.events
    sleep_at = next(i for i, e in enumerate(events)
                    if e.kind == TOOL_DISPATCH and e.data["name"] == "sleep")  # fmt: skip
    sleep_done = next(i for i, e in enumerate(events)
                      if e.kind == TOOL_RESULT and e.data["name"] == "sleep")  # fmt: skip
    later = [i for i, e in enumerate(events) if e.kind == TOOL_DISPATCH and i > sleep_at]
    assert len(later) == 2 and all(i < sleep_done for i in later)  # dispatched while it ran
    total = len(r1.final.source.chunks) if r1.final.source else 0
    sleep_pos = events[sleep_at].position
    assert sleep_pos is not None and sleep_pos.chunks < total and not sleep_pos.ended
    done = [e.data["name"] for e in events if e.kind == TOOL_RESULT]
    assert done[-1] == "sleep" and sorted(done) == ["get_weather", "search_files", "sleep"]
    by_name = {r.name: r for r in r1.results}  # ordered by events, never by elapsed seconds
    assert by_name["sleep"].status == "ok" and by_name["sleep"].dispatched == sleep_pos
    assert by_name["search_files"].title is None and by_name["search_files"].output  # plain JSON
    assert loop.end_reason == "finish" and len(loop.analysis.rounds) == 2


async def test_unknown_and_raising_tools_are_fed_back(
    demo_provider: DemoProvider, tmp_path: Path
) -> None:
    loop = make_loop(demo_provider, tmp_path, model="demo-parallel", order=["fail", "get_weather"],
                     extra_tools=[STOCK])  # fmt: skip
    await loop.run()
    r1, r2 = loop.analysis.rounds
    by_name = {r.name: r for r in r1.results}
    assert (by_name["fail"].error_kind, by_name["fail"].is_error) == ("raised", True)
    assert "RuntimeError" in by_name["fail"].output
    assert by_name["get_stock_price"].error_kind == "unknown_tool"
    assert by_name["get_weather"].status == "ok"
    dispatched = {e.data["name"] for e in r1.final.dispatches}
    assert dispatched == {"fail", "get_weather"}  # an unknown tool never runs
    assert loop.end_reason == "finish" and "fail returned Error: RuntimeError" in loop.final_text
    assert r2.final.state.finish_reason == "stop"


async def test_invalid_call_gets_an_error_result_without_running(
    demo_provider: DemoProvider, tmp_path: Path
) -> None:
    box = ToolBox.builtin()
    ran: list[Any] = []
    box.tools["get_weather"].handler = lambda args: ran.append(args) or "never"
    loop = make_loop(demo_provider, tmp_path, model="demo-truncated", box=box,
                     settings=LoopSettings(retry=False))  # fmt: skip
    await loop.run()
    (result,) = loop.analysis.rounds[0].results
    assert result.error_kind == "invalid_arguments" and "stream ended before" in result.output
    assert ran == [] and not loop.analysis.rounds[0].final.dispatches
    assert loop.end_reason == "finish"  # finish "length": not a tool-calls finish


async def test_the_streaming_retry_happens_inside_a_round(
    demo_provider: DemoProvider, tmp_path: Path
) -> None:
    loop = make_loop(demo_provider, tmp_path, model="demo-truncated-then-valid")
    await loop.run()
    rounds = loop.analysis.rounds
    assert [[v.number for v in r.attempts] for r in rounds] == [[1, 2], [3]]
    assert [r.outcome for r in loop.analysis.records] == ["retried", "accepted", "accepted"]
    assert rounds[0].attempts[0].results == []  # the held invalid call was never answered
    assert [r.status for r in rounds[0].results] == ["ok"]
    again = Analysis.from_capture(load(tmp_path / "loop.jsonl"), providers=REGISTRY)
    assert [r.outcome for r in again.records] == ["retried", "accepted", "accepted"]


async def test_max_steps_stops_a_model_that_never_stops(
    demo_provider: DemoProvider, tmp_path: Path
) -> None:
    loop = make_loop(demo_provider, tmp_path, model="demo-never-stops", max_steps=3)
    await loop.run()
    assert loop.end_reason == "max_steps" and loop.state == "done"
    assert [len(r.results) for r in loop.analysis.rounds] == [1, 1, 1]
    assert len(demo_provider.requests) == 3
    end = load(tmp_path / "loop.jsonl").attempts[-1].events[-1]
    assert end["kind"] == LOOP_END and end["data"]["reason"] == "max_steps"


@pytest.mark.parametrize("sequential", [False, True])
async def test_stop_cancels_running_tools(demo_provider: DemoProvider, tmp_path: Path,
                                          sequential: bool) -> None:  # fmt: skip
    box = ToolBox.builtin()
    box.set_slow("sleep", 30.0)
    loop: ToolLoop | None = None

    def on_event(event: ToolEvent) -> None:
        if event.kind == TOOL_DISPATCH and loop is not None:
            loop.stop()

    loop = make_loop(demo_provider, tmp_path, order=["sleep"], box=box, on_event=on_event,
                     sequential=sequential)  # fmt: skip
    async with asyncio.timeout(10):
        await loop.run()
    assert loop.state == "cancelled" and loop.end_reason == "cancelled"
    assert not loop.tasks
    assert not [t for t in asyncio.all_tasks() if t.get_name().startswith("tool ")]
    (result,) = loop.analysis.rounds[0].final.results
    assert result.status == "cancelled"
    records = load(tmp_path / "loop.jsonl").attempts[-1].events
    assert [r["kind"] for r in records][-2:] == [TOOL_RESULT, LOOP_END]
    assert records[-1]["data"]["reason"] == "cancelled"


def _summary(loop: ToolLoop) -> list[list[tuple[str, str, Any, bool]]]:
    return [sorted((r.call_id, r.name, r.output, r.is_error) for r in rnd.results)
            for rnd in loop.analysis.rounds]  # fmt: skip


async def test_parity_streaming_and_sequential(demo_provider: DemoProvider, tmp_path: Path) -> None:
    order = ["get_weather", "search_files", "fail"]
    streaming = make_loop(
        demo_provider, tmp_path, model="demo-parallel", order=order, name="s.jsonl"
    )
    await streaming.run()
    sequential = make_loop(demo_provider, tmp_path, model="demo-parallel", order=order,
                           sequential=True, name="q.jsonl")  # fmt: skip
    await sequential.run()
    assert _summary(streaming) == _summary(sequential)
    assert streaming.final_text == sequential.final_text and "search_files" in streaming.final_text
    seq_results = sequential.analysis.rounds[0].results
    assert all(r.dispatched is None or r.dispatched.ended for r in seq_results)
    assert all(r.saved(sequential.analysis.rounds[0].stream_end or 0) == 0 for r in seq_results)
    assert load(tmp_path / "q.jsonl").meta["loop"]["mode"] == "sequential"


async def test_replay_reproduces_tool_events_in_order(
    demo_provider: DemoProvider, tmp_path: Path
) -> None:
    loop = make_loop(demo_provider, tmp_path, model="demo-parallel", delay=0.005,
                     order=["get_weather", "search_files", "fail"])  # fmt: skip
    await loop.run()
    live = [(e.attempt, e.kind, e.data.get("call_id")) for e in loop.analysis.events]
    replayer = Replayer(load(tmp_path / "loop.jsonl"))
    seen: list[tuple[int, str, Any]] = []
    while not replayer.at_end:
        step = replayer.plan[replayer.position]
        replayer.step()
        if step.event is not None:
            seen.append((step.event.attempt, step.event.kind, step.event.data.get("call_id")))
            pos = step.event.position
            state = replayer.analysis.attempts[-1].state
            assert pos is None or len(state.events) == pos.events  # placed where it landed
    assert seen == live and seen[-1][1] == LOOP_END
    times = [s.t for s in replayer.plan]
    assert times == sorted(times)
    final = replayer.analysis
    assert [r.to_json() for r in final.rounds] == [r.to_json() for r in loop.analysis.rounds]


def test_tool_result_json_round_trip_is_lossless() -> None:
    result = ToolResult.of("c1", "get_weather", {"output": "x", "title": "T"}, slot=2, attempt=3)
    assert ToolResult.from_json(result.to_json()) == result
