"""An attempt's verdicts kept current in O(calls that changed)
(:mod:`inspector.core.analysis.verdictlist`): after every piece of a stream, every policy flip
and every tools change, they are exactly the verdicts judging every call afresh gives."""

from __future__ import annotations

import random

import pytest
from conftest import all_real_fixtures

from core.quirks.test_every_code import ALL_STREAMS, chat, chunk, tc
from inspector.core.analysis.attempt import AttemptView
from inspector.core.analysis.session import Analysis
from inspector.core.base.settings import LITERAL, Settings
from inspector.core.providers import REGISTRY
from inspector.core.verdicts.judge import judge_call
from inspector.core.verdicts.tools import ToolRegistry


def _check(analysis: Analysis) -> None:
    """Every attempt's verdicts are those of every call judged afresh."""
    mode = analysis.settings.validation
    for view in analysis.attempts:
        got = view.verdicts
        calls = view.state.calls
        assert [v.call for v in got] == calls  # the very call objects, in lane order
        j = view._judgement
        registry = j.tools()
        for v, call in zip(got, calls, strict=True):
            fresh = judge_call(view.state, call, mode, registry)
            assert (v.valid, v.problems, v.effective_id, v.orphan) == (
                fresh.valid,
                fresh.problems,
                fresh.effective_id,
                fresh.orphan,
            ), call.slot


def _feed(body: bytes, rng: random.Random, settings: Settings | None = None) -> Analysis:
    analysis = Analysis(settings, providers=REGISTRY)
    pos = 0
    while pos < len(body):
        step = rng.choice((1, 5, 40, 300))
        analysis.feed(body[pos : pos + step])
        pos += step
        _check(analysis)
    analysis.end()
    _check(analysis)
    return analysis


@pytest.mark.parametrize("body", ALL_STREAMS, ids=lambda b: f"{len(b)}B")
def test_verdicts_follow_every_quirk_stream_piece_by_piece(body: bytes) -> None:
    rng = random.Random(len(body))
    _feed(body, rng)
    analysis = _feed(body, rng, Settings(empty_id=LITERAL, validation="strict"))
    analysis.apply(analysis.with_settings(empty_id="absent"))  # a flip rebuilds every call
    _check(analysis)


def test_verdicts_follow_recorded_streams_piece_by_piece() -> None:
    for path in all_real_fixtures()[:12]:
        _feed(path.read_bytes(), random.Random(path.stem))


def test_a_late_fragment_to_a_closed_call_is_judged_again() -> None:
    body = chat(
        chunk(tc(0, "call_a", "f", '{"a": 1}')),
        chunk(tc(1, "call_b", "g", '{"b": 2}')),  # the next index closes call 0
        chunk(tc(0, args="x")),  # late: call 0's arguments are no JSON now
        chunk(finish="tool_calls"),
    )
    analysis = Analysis(providers=REGISTRY)
    frames = body.split(b"\n\n")
    analysis.feed(b"\n\n".join(frames[:2]) + b"\n\n")
    view = analysis.attempts[0]
    assert [(v.valid, v.call.open) for v in view.verdicts] == [(True, False), (True, True)]
    analysis.feed(b"\n\n".join(frames[2:]))
    analysis.end()
    assert [v.valid for v in view.verdicts] == [False, True]
    _check(analysis)


def test_new_tools_judge_every_call_again() -> None:
    body = chat(chunk(tc(0, "call_a", "f", '{"a": 1}')), chunk(finish="tool_calls"))
    analysis = Analysis(providers=REGISTRY)
    analysis.feed(body)
    analysis.end()
    assert analysis.attempts[0].verdicts[0].valid
    tools = ToolRegistry.from_definitions(
        [{"type": "function", "function": {"name": "f", "parameters": {"required": ["z"]}}}],
        REGISTRY,
    )
    analysis.set_tools(tools)
    assert not analysis.attempts[0].verdicts[0].valid
    _check(analysis)


def test_only_changed_calls_are_judged_again(monkeypatch: pytest.MonkeyPatch) -> None:
    frames = [chunk(tc(i, f"call_{i}", "f", '{"a": 1}')) for i in range(300)]
    analysis = Analysis(providers=REGISTRY)
    analysis.feed(chat(*frames, done=False))
    view: AttemptView = analysis.attempts[0]
    assert len(view.verdicts) == 300
    judged: list[int] = []
    original = view._judgement.verdict

    def counting(state, call):  # type: ignore[no-untyped-def]
        judged.append(call.slot)
        return original(state, call)

    monkeypatch.setattr(view._judgement, "verdict", counting)
    analysis.feed(chat(chunk(tc(300, "call_300", "f", '{"a": 1}')), done=False))
    assert len(view.verdicts) == 301
    assert judged == [299, 300]  # the call the new one closed, and the new one
