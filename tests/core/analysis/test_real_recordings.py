"""Every recorded provider stream in ../shared/fixtures/real analyzed end to end.

Expectations were worked out by reading each stream (see its .meta.json): the calls with
their ids, names and arguments as the provider meant them, the verdicts, and the quirks.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest
from conftest import all_real_fixtures, real_fixture

from inspector.core.analysis.session import Analysis
from inspector.core.base.model import OMITTED
from inspector.core.base.settings import Settings
from inspector.core.capture.reader import load
from inspector.core.providers import REGISTRY


@dataclass
class Expect:
    dialect: str
    calls: list[tuple[Any, Any, Any, str]]  # (index, id, name, arguments) as received
    valid: list[bool]
    quirks: set[str] = field(default_factory=set)
    finish: Any = None
    problems: list[list[str]] = field(default_factory=list)
    repaired: list[bool] = field(default_factory=list)


TAX_ARGS_PREFIX = '{"filename": "taxes.txt", "lines_of_text": [\n"# COMPREHENSIVE TAX GUIDE'

EXPECTED: dict[str, Expect] = {
    "anthropic-max-tokens-mid-arguments": Expect(
        "anthropic",
        [(1, "toolu_01EKqbqmZrGRXy18eN7m9kvY", "make_file", TAX_ARGS_PREFIX)],
        [False],
        {"finish_reason_mismatch"},
        "max_tokens",
        [["truncated", "invalid_json"]],
    ),
    "anthropic-tool-no-args": Expect(
        "anthropic",
        [(1, "toolu_01QE1WLsSVp5hy5Q3GmGTmjP", "updateIssueList", "")],
        [True],
        {"zero_arg_empty_string"},
        "tool_use",
    ),
    "anthropic-tool-use": Expect(
        "anthropic",
        [(1, "toolu_01NRLabsLyVHZPKxbKvkfSMn", "get_weather", '{"location": "Paris"}')],
        [True],
        set(),
        "tool_use",
    ),
    "claude-via-gateway-index-starts-at-1": Expect(
        "openai-chat",
        [(1, "toolu_sanitized", "read_file", '{"path": "a.txt"}')],
        [True],
        {"sparse_index"},
        "tool_calls",
    ),
    "deepseek-reasoner-token-args": Expect(
        "openai-chat",
        [(0, "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF", "weather", '{"location": "San Francisco"}')],
        [True],
        set(),
        "tool_calls",
    ),
    "gemini-3-function-call": Expect(
        "gemini",
        [(OMITTED, OMITTED, "weather", '{"location":"San Francisco"}')],
        [True],
        set(),
        "STOP",
        repaired=[True],
    ),
    "glm-5-2-empty-name-continuation": Expect(
        "openai-chat",
        [
            (
                0,
                "chatcmpl-tool-9f149c74c42f265b",
                "webSearchTool",
                '{"query": "current Berlin weather"}',
            )
        ],
        [True],
        {"empty_string_continuation_name"},
        "tool_calls",
    ),
    "gpt-4o-two-tools-usage-chunk": Expect(
        "openai-chat",
        [
            (
                0,
                "call_JMW1whyEaYG438VE1OIflxA2",
                "GetWeatherArgs",
                '{"city": "Edinburgh", "country": "GB", "units": "c"}',
            ),
            (
                1,
                "call_DNYTawLBoN8fj3KN6qU9N1Ou",
                "get_stock_price",
                '{"ticker": "AAPL", "exchange": "NASDAQ"}',
            ),
        ],
        [True, True],
        {"usage_only_chunk"},
        "tool_calls",
    ),
    "mistral-no-index-whole-call": Expect(
        "openai-chat",
        [(OMITTED, "gSIMJiOkT", "weather", '{"location": "San Francisco"}')],
        [True],
        {"missing_index", "whole_call_single_chunk"},
        "tool_calls",
    ),
    "qwen3-max-empty-id-continuations": Expect(
        "openai-chat",
        [(0, "call_eee11723464a4b9eb8cee71d", "weather", '{"location": "San Francisco"}')],
        [True],
        {"empty_string_continuation_id", "trailing_empty_arguments", "usage_only_chunk"},
        "tool_calls",
    ),
    "responses-gpt-5-1-function-call": Expect(
        "openai-responses",
        [(0, "call_H5DxLSFnsGhiROnUiDHmgyc8", "weather", '{"location":"San Francisco"}')],
        [True],
        set(),
        "completed",
    ),
    "responses-lmstudio-no-deltas": Expect(
        "openai-responses",
        [(2, "call_2025306790300011", "weather", '{"location":"San Francisco"}')],
        [True],
        {"arguments_only_in_done"},
        "completed",
    ),
}


def test_every_fixture_has_expectations() -> None:
    names = {p.stem for p in all_real_fixtures()}
    assert names == set(EXPECTED), "a new recording needs its expectations written down"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture(name: str) -> None:
    exp = EXPECTED[name]
    path = real_fixture(name)
    meta = json.loads(path.with_suffix(".meta.json").read_text())
    analysis = Analysis.from_capture(load(path), providers=REGISTRY)
    final = analysis.final
    assert analysis.dialect == exp.dialect == meta["dialect"]
    got = [(v.call.index, v.call.id, v.call.name, v.call.arguments) for v in final.verdicts]
    if name == "anthropic-max-tokens-mid-arguments":
        got = [(i, d, n, a[: len(TAX_ARGS_PREFIX)]) for i, d, n, a in got]
    assert got == exp.calls
    assert [v.valid for v in final.verdicts] == exp.valid
    assert {q.code for q in final.quirks} == exp.quirks
    assert final.state.finish_reason == exp.finish
    if exp.problems:
        assert [[p.code for p in v.problems] for v in final.verdicts] == exp.problems
    assert [v.repaired_id is not None for v in final.verdicts] == (
        exp.repaired or [False] * len(exp.calls)
    )


def test_truncated_anthropic_call_reports_where_json_stops() -> None:
    analysis = Analysis.from_capture(
        load(real_fixture("anthropic-max-tokens-mid-arguments")), providers=REGISTRY
    )
    (v,) = analysis.final.verdicts
    assert v.call.truncated and not v.call.open and v.call.close_reason == "done"
    bad = next(p for p in v.problems if p.code == "invalid_json")
    assert bad.offset == len(v.call.arguments.encode())
    assert "inside a string" in bad.message
    assert analysis.records[0].reason == "stream_invalid_tool_call"
    assert analysis.records[0].invalid_tool_calls[0]["raw_arguments"] == v.call.arguments


def test_qwen_literal_drops_three_continuations() -> None:
    """The issue's acceptance case: under literal the weather call keeps only its opener."""
    analysis = Analysis.from_capture(
        load(real_fixture("qwen3-max-empty-id-continuations")),
        Settings(empty_id="literal"),
        providers=REGISTRY,
    )
    (v,) = analysis.final.verdicts
    assert v.call.arguments == ""
    assert [d.text for d in v.call.dropped] == ['{"location": "San Francisco', '"}', ""]
    # no tools known: blank arguments would count as {}, but the dropped text makes it invalid
    assert not v.valid and [p.code for p in v.problems] == ["dropped_fragments"]


def test_responses_stream_supplies_its_own_tools() -> None:
    """Responses echoes the request's tools in response.created: they judge the call."""
    analysis = Analysis.from_capture(
        load(real_fixture("responses-gpt-5-1-function-call")), providers=REGISTRY
    )
    assert analysis.registry is not None and analysis.registry.names() == ("weather",)


@pytest.mark.parametrize("path", all_real_fixtures(), ids=lambda p: p.stem)
def test_rejudge_round_trip_is_stable(path: Any) -> None:
    """absent -> literal -> absent gives back exactly the first judgement."""
    analysis = Analysis.from_capture(load(path), providers=REGISTRY)
    before = [(v.call.arguments, v.valid) for v in analysis.final.verdicts]
    analysis.apply(analysis.with_settings(empty_id="literal", validation="strict"))
    analysis.final  # noqa: B018 - judge under the other settings
    analysis.apply(analysis.with_settings(empty_id="absent", validation="structural"))
    assert [(v.call.arguments, v.valid) for v in analysis.final.verdicts] == before
