"""Rounds in the core: events merged into arrival order, attempt records planned per round."""

from __future__ import annotations

import json
from pathlib import Path

from inspector.core.analysis.rounds import ROUND, ToolEvent, merged
from inspector.core.analysis.session import Analysis
from inspector.core.capture.reader import load
from inspector.core.capture.records import Attempt
from inspector.core.capture.writer import CaptureWriter
from inspector.core.providers import REGISTRY
from inspector.core.replay.replayer import Replayer, replay_plan

VALID = (b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1",'
         b'"function":{"name":"get_weather","arguments":"{\\"city\\":\\"Paris\\"}"}}]}}]}\n\n'
         b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\n'
         b"data: [DONE]\n\n")  # fmt: skip
CUT = (b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c2",'
       b'"function":{"name":"get_weather","arguments":"{\\"ci"}}]}}]}\n\n'
       b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}\n\n')  # fmt: skip


def _event(attempt: int, kind: str, data: dict[str, object], t: float = 0.0) -> ToolEvent:
    return ToolEvent(kind, attempt, t, data)


def test_records_are_planned_per_round() -> None:
    analysis = Analysis(providers=REGISTRY)
    analysis.begin_attempt()
    analysis.add_event(_event(1, ROUND, {"round": 1}))
    analysis.feed(VALID)
    analysis.end()
    analysis.begin_attempt()
    analysis.add_event(_event(2, ROUND, {"round": 2}))
    analysis.feed(CUT)
    analysis.end()
    # round 2's only attempt is invalid: "invalid" (a retry would follow), not a degraded retry
    assert [r.outcome for r in analysis.records] == ["accepted", "invalid"]
    assert [r.attempt for r in analysis.records] == [1, 2]
    assert [[v.number for v in r.attempts] for r in analysis.rounds] == [[1], [2]]
    # the same attempts without round events: one round, as before
    one_round = Analysis(providers=REGISTRY)
    for body in (VALID, CUT):
        one_round.begin_attempt()
        one_round.feed(body)
        one_round.end()
    assert [r.outcome for r in one_round.records] == ["accepted", "accepted_degraded"]
    assert len(one_round.rounds) == 1


def test_merge_places_events_by_position_else_time() -> None:
    attempt = Attempt(1, chunks=[(0.1, b"a"), (0.2, b"b"), (0.3, b"c")])
    attempt.events = [
        {"type": "event", "attempt": 1, "t": 0.25, "kind": "note", "data": {}},  # by time
        {"type": "event", "attempt": 1, "t": 0.05, "kind": "tool_result",
         "data": {"position": {"t": 0.05, "chunks": 1, "events": 1}}},  # after chunk 1
    ]  # fmt: skip
    order = [data.decode() if data else ev.kind for _, data, ev in merged(attempt)
             if data or ev]  # fmt: skip
    assert order == ["a", "tool_result", "b", "note", "c"]


def test_event_records_round_trip_through_a_capture(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    with CaptureWriter(path) as w:
        w.event(1, 0.0, ROUND, {"round": 1, "position": {"t": 0, "chunks": 0, "events": 0}})
        w.request(1, "POST", "http://x/v1/chat/completions", {}, {"messages": []})
        w.chunk(1, 0.01, VALID)
        w.event(
            1,
            0.02,
            "tool_result",
            {
                "call_id": "c1",
                "name": "get_weather",
                "output": "ok",
                "position": {"t": 0.02, "chunks": 1, "events": 3, "ended": True},
            },
        )
        w.end(1, 0.03, "eof")
    capture = load(path)
    plan = replay_plan(capture)
    assert [s.event.kind if s.event else "chunk" for s in plan] == [ROUND, "chunk", "tool_result"]
    replayer = Replayer(capture)
    replayer.step(3)
    view = replayer.analysis.attempts[-1]
    assert view.state.ended  # the result landed after the body ended: replay ends it first
    assert [r.call_id for r in view.results] == ["c1"]
    assert Analysis.from_capture(capture, providers=REGISTRY).rounds[0].results == view.results


def test_all_valid_looks_at_every_round_not_only_the_last() -> None:
    from inspector.core.base.settings import Settings

    def stream(args: str) -> bytes:
        entry = {
            "index": 0,
            "id": "call_1",
            "type": "function",
            "function": {"name": "f", "arguments": args},
        }
        chunks = [
            {"choices": [{"index": 0, "delta": {"tool_calls": [entry]}}]},
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
        ]
        return b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks)

    analysis = Analysis(Settings(), providers=REGISTRY)
    analysis.begin_attempt()
    analysis.feed(stream('{"a": '))  # round 1 ends with an invalid call
    analysis.end()
    analysis.begin_attempt()
    analysis.add_event(ToolEvent(ROUND, 2, 0.0, {"round": 2}))
    analysis.feed(stream('{"a": 1}'))  # round 2 is fine
    analysis.end()
    assert [r.final.number for r in analysis.rounds] == [1, 2]
    assert [v.valid for v in analysis.final.verdicts] == [True]
    assert not analysis.all_valid


def test_attempts_are_named_by_their_place_in_their_round() -> None:
    from types import SimpleNamespace

    from inspector.core.analysis.numbering import place_names

    one_round = [SimpleNamespace(number=1, round=1), SimpleNamespace(number=2, round=1)]
    assert place_names(one_round) == {1: "attempt 1", 2: "attempt 2"}
    loop = [*one_round, SimpleNamespace(number=3, round=2), SimpleNamespace(number=4, round=3)]
    assert place_names(loop) == {
        1: "round 1 · attempt 1",
        2: "round 1 · attempt 2",
        3: "round 2 · attempt 1",
        4: "round 3 · attempt 1",
    }
