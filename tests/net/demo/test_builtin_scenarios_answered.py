"""The demo models answer each built-in request scenario (resources/scenarios) as a
well-behaved model would: the calls its ``expect`` block asks for, in every dialect whose
request carries the prompt, with the model's quirk left to its renderer; any other prompt gets
the demo scenario's own calls, as before (inspector.net.demo.asked)."""

from __future__ import annotations

import json

import pytest

from inspector.core.matrix.expect import judge_expect
from inspector.core.requests.scenarios import Profile, build_request, load_scenarios
from inspector.core.requests.scenarios import Scenario as Request
from inspector.net.demo.asked import recognise
from inspector.net.demo.conversation import read_request
from inspector.net.demo.planner import plan
from inspector.net.demo.scenarios import SCENARIOS

REQUESTS = load_scenarios()
DIALECTS = ["openai-chat", "openai-responses", "anthropic", "gemini"]


def _ask(request: Request, model: str, dialect: str, prompt: str | None = None) -> object:
    profile = Profile("t", dialect, "http://127.0.0.1:1/v1", model)
    messages = [{"role": "user", "content": prompt}] if prompt is not None else None
    body = build_request(profile, request, messages=messages).body
    return read_request(dialect, body, model if dialect == "gemini" else None)


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("model", ["demo-clean", "demo-parallel"])
def test_clean_models_make_the_calls_every_builtin_scenario_asks_for(
    dialect: str, model: str
) -> None:
    assert len(REQUESTS) >= 6
    for request in REQUESTS:
        if not request.functions_only and dialect != "openai-responses":
            continue  # a custom tool is declared in Responses alone (sql)
        ask = _ask(request, model, dialect)
        assert ask.asked == request.expect, request.name  # type: ignore[attr-defined]
        turn = plan(SCENARIOS[model], ask, 0, 0)  # type: ignore[arg-type]
        calls = [(c.name, json.dumps(c.args)) for c in turn.calls]
        assert judge_expect(request.expect, calls) == [], (request.name, calls)
        if request.functions_only:
            assert len(calls) >= SCENARIOS[model].calls  # a parallel model keeps its three
        else:  # only a custom tool offered: one call of it, by every model
            assert [c.name for c in turn.calls] == ["write_sql"]


def test_another_prompt_gets_the_models_own_calls() -> None:
    weather = next(r for r in REQUESTS if r.name == "parallel")
    ask = _ask(weather, "demo-clean", "openai-chat", prompt="Just say hello, then call one tool.")
    assert ask.asked is None  # type: ignore[attr-defined]
    assert len(plan(SCENARIOS["demo-clean"], ask, 0, 0).calls) == 1  # type: ignore[arg-type]
    assert recognise("something else entirely") is None


def test_a_forced_tool_choice_wins_over_the_scenario() -> None:
    parallel = next(r for r in REQUESTS if r.name == "parallel")
    ask = _ask(parallel, "demo-clean", "openai-chat")
    ask.choice = "get_exchange_rate"  # type: ignore[attr-defined]
    calls = plan(SCENARIOS["demo-clean"], ask, 0, 0).calls  # type: ignore[arg-type]
    assert [c.name for c in calls] == ["get_exchange_rate"]
