"""Replaying a capture step by step must reproduce, at every position, what a live session had."""

from __future__ import annotations

import gc
import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, all_real_fixtures, real_fixture

from inspector.core.analysis.session import Analysis
from inspector.core.base.model import EventKind
from inspector.core.base.settings import Settings
from inspector.core.capture.reader import load, load_bytes
from inspector.core.capture.records import Capture
from inspector.core.capture.writer import CaptureWriter
from inspector.core.events.sse import decode_all
from inspector.core.providers import REGISTRY
from inspector.core.replay import replayer as replayer_module
from inspector.core.replay.cuts import split_body
from inspector.core.replay.plan import Step
from inspector.core.replay.replayer import Replayer, replay_plan

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        },
    }
]


def _chat(entry: dict[str, Any] | None = None, finish: str | None = None) -> bytes:
    delta: dict[str, Any] = {"tool_calls": [entry]} if entry else {}
    obj = {
        "id": "chatcmpl-r",
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + json.dumps(obj).encode() + b"\n\n"


def _call(args: str, first: bool = False) -> dict[str, Any]:
    fn: dict[str, Any] = {"arguments": args}
    entry: dict[str, Any] = {"index": 0, "function": fn}
    if first:
        entry.update(id="call_1", type="function")
        fn["name"] = "read_file"
    return entry


def two_attempt_capture(path: Path) -> Capture:
    """Attempt 1 is cut off by a length finish; attempt 2 (a retry) is valid."""
    attempts = [
        (["{", '"path": "/tmp/', "notes"], "length"),
        (["{", '"path": "/tmp/', 'notes.txt"}'], "tool_calls"),
    ]
    with CaptureWriter(path, meta={"dialect": "openai-chat"}) as w:
        for n, (parts, finish) in enumerate(attempts, start=1):
            if n == 2:
                w.attempt(2, "stream_invalid_tool_call", "retry_streaming")
            body = {"model": "m", "messages": [], "tools": TOOLS, "stream": True}
            w.request(
                n,
                "POST",
                "https://api.example.test/v1/chat/completions",
                {"Authorization": "Bearer sk-test"},
                body,
            )
            w.response(n, 200, {"content-type": "text/event-stream"}, 0.1)
            events = [_chat(_call(parts[0], first=True))] + [_chat(_call(p)) for p in parts[1:]]
            events += [_chat(finish=finish), b"data: [DONE]\n\n"]
            events[1] = events[1] + events[2]  # two events in one network chunk
            del events[2]
            for i, chunk in enumerate(events):
                w.chunk(n, 0.2 + 0.03 * i, chunk)
            w.end(n, 0.2 + 0.03 * len(events), "eof")
    return load(path)


def snapshot(analysis: Analysis) -> list[Any]:
    """Everything a view shows, as plain values."""
    analysis.judge()
    out: list[Any] = []
    for view in analysis.attempts:
        state = view.state
        calls = [
            (
                v.call.index,
                v.call.id,
                v.call.name,
                v.call.arguments,
                v.valid,
                v.orphan,
                [p.code for p in v.problems],
                v.call.truncated,
                v.call.close_reason,
                list(v.call.accepted),
            )
            for v in view.verdicts
        ]
        quirks = [(q.code, q.chunks) for q in view.quirks]
        out.append(
            (
                view.number,
                state.ended,
                len(state.events),
                len(state.deltas),
                calls,
                quirks,
                state.finish_reason,
                state.full_text,
                view.source is not None,
            )
        )
    out.append([(r.reason, r.recovery_action) for r in analysis.records])
    return out


def _captures(tmp_path: Path) -> list[Capture]:
    return [load(p) for p in all_real_fixtures()] + [two_attempt_capture(tmp_path / "two.jsonl")]


def test_real_fixtures_replay_to_the_same_analysis(tmp_path: Path) -> None:
    for capture in _captures(tmp_path):
        for settings in (Settings(), Settings(empty_id="literal", validation="strict")):
            replayer = Replayer(capture, settings)
            while not replayer.at_end:
                assert replayer.step() == 1
            assert replayer.step() == 0
            assert replayer.analysis.capture is capture
            assert snapshot(replayer.analysis) == snapshot(
                Analysis.from_capture(capture, settings, providers=REGISTRY)
            )


def test_two_attempt_capture_replays_both_attempts(tmp_path: Path) -> None:
    capture = two_attempt_capture(tmp_path / "two.jsonl")
    replayer = Replayer(capture)
    replayer.finish()
    a = replayer.analysis
    a.judge()
    assert [len(v.state.calls) for v in a.attempts] == [1, 1]
    assert [v.valid for v in a.attempts[0].verdicts] == [False]
    assert a.attempts[1].verdicts[0].arguments == '{"path": "/tmp/notes.txt"}'
    assert a.attempts[1].source is capture.attempts[1]
    assert a.records[0].reason == "stream_invalid_tool_call"
    assert a.registry is not None and a.registry.names() == ("read_file",)
    # the Analysis is fed recorded times: event times equal from_capture's
    ref = Analysis.from_capture(capture, providers=REGISTRY)
    for view, ref_view in zip(a.attempts, ref.attempts, strict=True):
        assert [e.t for e in view.state.events] == [e.t for e in ref_view.state.events]


def test_plan_lays_attempts_on_one_clock(tmp_path: Path) -> None:
    capture = two_attempt_capture(tmp_path / "two.jsonl")
    plan = replay_plan(capture)
    first = [s for s in plan if s.attempt == 1]
    second = [s for s in plan if s.attempt == 2]
    assert len(first) == len(capture.attempts[0].chunks) and len(second) == len(first)
    assert [s.t for s in first] == [t for t, _ in capture.attempts[0].chunks]
    end1 = first[-1].t
    assert [s.t for s in second] == pytest.approx([end1 + t for t, _ in capture.attempts[1].chunks])
    assert [s.source_t for s in second] == [t for t, _ in capture.attempts[1].chunks]
    assert all(a.t <= b.t for a, b in itertools.pairwise(plan))
    assert b"".join(s.data for s in first) == capture.attempts[0].body


def test_live_state_at_every_position(tmp_path: Path) -> None:
    """Position k equals a live session that received k chunks (current attempt still open)."""
    capture = two_attempt_capture(tmp_path / "two.jsonl")
    replayer = Replayer(capture)
    plan = replayer.plan
    for k in range(len(plan) + 1):
        replayer.seek(k)
        live = Analysis(providers=REGISTRY)
        live.capture = capture
        current = None
        for step in plan[:k]:
            if step.attempt != current:
                live.end()
                live.begin_attempt(capture.attempts[step.attempt - 1])
                current = step.attempt
            live.feed(step.data, step.source_t)
        if k == len(plan):
            live.end()
        assert snapshot(replayer.analysis) == snapshot(live), k
        if 0 < k < len(plan):
            assert not replayer.analysis.attempts[-1].state.ended


def test_intermediate_arguments_are_prefixes_and_seeking_back_restores(tmp_path: Path) -> None:
    compared = 0
    for capture in _captures(tmp_path):
        final = Analysis.from_capture(capture, providers=REGISTRY)
        final_args = [[c.arguments for c in view.state.calls] for view in final.attempts]
        replayer = Replayer(capture)
        middle = len(replayer.plan) // 2
        replayer.seek(middle)
        partial = [
            (call.arguments, args)
            for view, want in zip(replayer.analysis.attempts, final_args, strict=False)
            for call, args in zip(view.state.calls, want, strict=False)
        ]
        compared += len(partial)
        for arguments, args in partial:
            assert args.startswith(arguments)
        at_middle = snapshot(replayer.analysis)
        replayer.finish()
        assert snapshot(replayer.analysis) == snapshot(final)
        before = replayer.analysis
        replayer.seek(middle)
        assert replayer.analysis is not before  # rebuilt, not un-fed
        assert replayer.position == middle
        assert snapshot(replayer.analysis) == at_middle
        replayer.seek(len(replayer.plan))
        assert snapshot(replayer.analysis) == snapshot(final)
    assert compared > 0  # calls half-way through their captures were actually compared


def test_prefix_property_holds_mid_call() -> None:
    capture = load(real_fixture("deepseek-reasoner-token-args"))
    final = Analysis.from_capture(capture, providers=REGISTRY).final.verdicts[0].arguments
    replayer = Replayer(capture)
    seen = set()
    while not replayer.at_end:
        replayer.step()
        calls = replayer.analysis.attempts[-1].state.calls
        if calls:
            assert final.startswith(calls[0].arguments)
            seen.add(calls[0].arguments)
    assert len(seen) > 5  # the arguments really grew step by step


def test_raw_body_is_split_one_step_per_wire_event() -> None:
    for path in all_real_fixtures():
        body = path.read_bytes()
        capture = load(path)
        assert not capture.timed
        plan = replay_plan(capture, untimed_interval=0.1)
        assert b"".join(s.data for s in plan) == body
        events = [e for e in decode_all(body) if e.kind != EventKind.ERROR]
        assert len(plan) == len(events)
        assert [s.t for s in plan] == pytest.approx([0.1 * i for i in range(len(plan))])
        replayer = Replayer(capture)
        for _ in plan[:-1]:
            before = (
                len(replayer.analysis.attempts[-1].state.events)
                if replayer.analysis.attempts
                else 0
            )
            replayer.step()
            assert len(replayer.analysis.attempts[-1].state.events) == before + 1


def test_split_body_attaches_gaps_to_the_following_event() -> None:
    body = (
        b"\xef\xbb\xbf\n\ndata: a\n\n: keep-alive\r\n\r\n\r\nid: 7\n\n"
        b"event: x\ndata: b\n: inside\ndata: c\n\ndata: tail-without-blank-line"
    )
    pieces = split_body(body)
    assert b"".join(pieces) == body
    assert pieces == [
        b"\xef\xbb\xbf\n\ndata: a\n\n",
        b": keep-alive\r\n",
        b"\r\n\r\nid: 7\n\nevent: x\ndata: b\n: inside\n",
        b"data: c\n\n",
        b"data: tail-without-blank-line",
    ]
    assert split_body(b"\n\n") == [b"\n\n"]
    assert split_body(b"data: a\n\n\n\n") == [b"data: a\n\n\n\n"]
    assert split_body(b"") == []


def test_invalid_utf8_does_not_split_a_line() -> None:
    body = b'data: {"a": "\xff"}\n\ndata: [DONE]\n\n'
    assert split_body(body) == [b'data: {"a": "\xff"}\n\n', b"data: [DONE]\n\n"]


def test_advance_to_time_and_max_steps(tmp_path: Path) -> None:
    capture = two_attempt_capture(tmp_path / "two.jsonl")
    replayer = Replayer(capture)
    plan = replayer.plan
    assert replayer.advance_to_time(-1.0) == 0
    assert replayer.advance_to_time(plan[2].t) == 3
    assert replayer.time_at(replayer.position) == plan[2].t
    assert replayer.next_time == plan[3].t
    assert replayer.advance_to_time(replayer.duration, max_steps=2) == 2
    assert replayer.position == 5
    assert replayer.advance_to_time(replayer.duration) == len(plan) - 5
    assert replayer.at_end and replayer.next_time is None
    assert replayer.time_at(0) == 0.0
    assert replayer.time_at(10**6) == replayer.duration == plan[-1].t


def test_apply_rejudges_in_place_and_rebuilds_on_a_dialect_change() -> None:
    capture = load_bytes(_glm_like())
    replayer = Replayer(capture)
    replayer.seek(len(replayer.plan) - 2)
    analysis = replayer.analysis
    literal = Settings(empty_id="literal")
    replayer.apply(literal)
    assert replayer.analysis is analysis
    assert [c.arguments for c in analysis.attempts[-1].state.calls] == ["{"]
    replayer.apply(Settings(dialect="openai-chat", empty_id="literal"))
    assert replayer.analysis is not analysis
    assert replayer.position == len(replayer.plan) - 2
    assert replayer.settings.dialect == "openai-chat"
    assert [c.arguments for c in replayer.analysis.attempts[-1].state.calls] == ["{"]
    replayer.finish()
    want = Analysis.from_capture(
        capture, Settings(dialect="openai-chat", empty_id="literal"), providers=REGISTRY
    )
    assert snapshot(replayer.analysis) == snapshot(want)


def _glm_like() -> bytes:
    first = {
        "index": 0,
        "id": "call_x",
        "type": "function",
        "function": {"name": "Glob", "arguments": "{"},
    }
    parts = [_chat(first)]
    parts += [
        _chat({"index": 0, "id": "", "function": {"name": "", "arguments": p}})
        for p in ('"pattern": ', '"*.md"', "}")
    ]
    return b"".join([*parts, _chat(finish="tool_calls"), b"data: [DONE]\n\n"])


def test_empty_capture_and_attempt_without_chunks(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    CaptureWriter(path).close()
    empty = load(path)
    replayer = Replayer(empty)
    assert replayer.plan == [] and replayer.at_end and replayer.duration == 0.0
    assert snapshot(replayer.analysis) == snapshot(Analysis.from_capture(empty, providers=REGISTRY))
    replayer.finish()
    replayer.seek(0)
    assert snapshot(replayer.analysis) == snapshot(Analysis.from_capture(empty, providers=REGISTRY))

    path = tmp_path / "nochunks.jsonl"
    with CaptureWriter(path) as w:
        w.request(1, "POST", "https://x.test/v1", {}, {"stream": True})
        w.end(1, 0.5, "error", "connection refused")
        w.attempt(2, "transport_error", "retry_streaming")
        w.chunk(2, 0.1, _glm_like())
        w.end(2, 0.2, "eof")
    capture = load(path)
    plan = replay_plan(capture)
    assert plan[0] == Step(1, 0.0, b"", 0.0)
    replayer = Replayer(capture)
    replayer.finish()
    assert len(replayer.analysis.attempts) == 2
    assert replayer.analysis.attempts[0].error == "connection refused"
    assert snapshot(replayer.analysis) == snapshot(
        Analysis.from_capture(capture, providers=REGISTRY)
    )


def test_non_monotonic_chunk_times_are_clamped(tmp_path: Path) -> None:
    path = tmp_path / "odd.jsonl"
    with CaptureWriter(path) as w:
        for t in (0.3, 0.1, 0.2, 0.5):
            w.chunk(1, t, b": ping\n")
    plan = replay_plan(load(path))
    assert [s.t for s in plan] == [0.3, 0.3, 0.3, 0.5]
    assert [s.source_t for s in plan] == [0.3, 0.1, 0.2, 0.5]


SAMPLES = sorted((REPO / "resources" / "samples").glob("*.jsonl"))


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_sample_captures_replay_to_the_same_analysis(path: Path) -> None:
    capture = load(path)
    replayer = Replayer(capture)
    assert len(replayer.plan) == sum(len(a.chunks) for a in capture.attempts)
    clock = 0.0
    while not replayer.at_end:  # as a UI timer drives it: every 0.25 s, what is due
        clock += 0.25
        replayer.advance_to_time(clock)
        assert replayer.next_time is None or replayer.next_time > clock
    assert clock - 0.25 < replayer.duration <= clock
    assert snapshot(replayer.analysis) == snapshot(
        Analysis.from_capture(capture, providers=REGISTRY)
    )


def test_set_tools_rejudges_now_and_survives_a_backward_seek() -> None:
    from inspector.core.verdicts.tools import ToolRegistry

    replayer = Replayer(
        load(real_fixture("qwen3-max-empty-id-continuations")), Settings(empty_id="literal")
    )
    replayer.finish()

    def codes() -> list[str]:
        return [p.code for v in replayer.analysis.final.verdicts for p in v.problems]

    # no tools known: blank arguments count as {}; only the dropped text is wrong
    assert codes() == ["dropped_fragments"]
    tools = ToolRegistry.from_definitions(
        [
            {
                "type": "function",
                "function": {
                    "name": "weather",
                    "parameters": {
                        "type": "object",
                        "required": ["location"],
                        "properties": {"location": {"type": "string"}},
                    },
                },
            }
        ],
        REGISTRY,
    )
    replayer.set_tools(tools)
    assert "missing_required" in codes()
    replayer.seek(2)  # backward: a fresh Analysis must keep the user's tools
    replayer.finish()
    assert replayer.analysis.registry is tools and "missing_required" in codes()


def test_bulk_feeding_pauses_the_collector_and_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    capture = two_attempt_capture(tmp_path / "two.jsonl")
    expected = Replayer(capture)
    expected.finish()
    monkeypatch.setattr(replayer_module, "RUN_STEPS", 2)  # several feed_many calls a run
    monkeypatch.setattr(replayer_module, "BULK_STEPS", 3)
    seen: list[bool] = []
    feed_many = Analysis.feed_many

    def spy(self: Analysis, chunks: Any) -> int:
        seen.append(gc.isenabled())
        return feed_many(self, chunks)

    monkeypatch.setattr(Analysis, "feed_many", spy)
    replayer = Replayer(capture)
    replayer.step(2)  # below BULK_STEPS: the collector runs
    assert seen == [True] and gc.isenabled()
    replayer.finish()
    assert len(seen) > 2 and not any(seen[1:]) and gc.isenabled()
    assert snapshot(replayer.analysis) == snapshot(expected.analysis)
    gc.disable()
    try:
        Replayer(capture).finish()  # a collector paused by the caller stays paused
        assert not gc.isenabled()
    finally:
        gc.enable()
