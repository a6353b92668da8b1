"""Attempt reasons and outcomes (from validating streamed tool calls before execution), from
captures holding one or two physical requests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.core.analysis.session import Analysis
from inspector.core.base.settings import Settings
from inspector.core.capture.reader import load
from inspector.core.capture.writer import CaptureWriter
from inspector.core.providers import REGISTRY
from inspector.core.reports import report
from inspector.core.verdicts.attempts import (
    ATTEMPT_REASONS,
    OUTCOMES,
    AttemptRecord,
    should_retry,
)

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "weather",
            "parameters": {
                "type": "object",
                "properties": {"location": {"type": "string"}},
                "required": ["location"],
            },
        },
    }
]


def body(args: str) -> bytes:
    chunks = [
        {
            "index": 0,
            "id": "call_1",
            "type": "function",
            "function": {"name": "weather", "arguments": ""},
        },
        {"index": 0, "function": {"arguments": args}},
    ]
    out = b""
    for c in chunks:
        obj = {
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {"tool_calls": [c]}, "finish_reason": None}],
        }
        out += b"data: " + json.dumps(obj).encode() + b"\n\n"
    fin = {
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}],
        "usage": {"total_tokens": len(args)},
    }
    return out + b"data: " + json.dumps(fin).encode() + b"\n\ndata: [DONE]\n\n"


def capture(tmp_path: Path, *attempt_args: str) -> Path:
    path = tmp_path / "session.jsonl"
    with CaptureWriter(path) as w:
        for n, args in enumerate(attempt_args, start=1):
            if n > 1:
                w.attempt(n, "stream_invalid_tool_call", "retry_streaming")
            w.request(
                n,
                "POST",
                "http://127.0.0.1/v1/chat/completions",
                {"authorization": "Bearer sk-secret"},
                {"model": "m", "stream": True, "tools": TOOLS},
            )
            w.response(n, 200, {"content-type": "text/event-stream"}, 0.01)
            w.chunk(n, 0.02, body(args))
            w.end(n, 0.03, "eof")
    return path


def outcomes(path: Path, **settings: str) -> list[tuple[str, str | None, str | None]]:
    analysis = Analysis.from_capture(load(path), Settings(**settings), providers=REGISTRY)
    return [(r.outcome, r.reason, r.recovery_action) for r in analysis.records]


def test_valid_first_attempt_is_accepted(tmp_path: Path) -> None:
    assert outcomes(capture(tmp_path, '{"location":"Oslo"}')) == [("accepted", None, None)]


def test_invalid_then_valid_retry(tmp_path: Path) -> None:
    path = capture(tmp_path, '{"location":', '{"location":"Oslo"}')
    assert outcomes(path) == [
        ("retried", "stream_invalid_tool_call", "retry_streaming"),
        ("accepted", None, None),
    ]


def test_invalid_retry_is_accepted_degraded_with_raw_arguments(tmp_path: Path) -> None:
    path = capture(tmp_path, '{"location":', '{"loc')
    analysis = Analysis.from_capture(load(path), providers=REGISTRY)
    first, second = analysis.records
    assert (first.outcome, second.outcome) == ("retried", "accepted_degraded")
    assert second.reason == "stream_invalid_tool_call"
    (diag,) = second.invalid_tool_calls
    assert diag["raw_arguments"] == '{"loc' and diag["name"] == "weather"
    assert diag["problems"][0]["code"] == "invalid_json"
    assert [r.usage["total_tokens"] for r in analysis.records] == [12, 5]  # each its own usage


def test_empty_required_arguments_keep_their_legacy_reasons(tmp_path: Path) -> None:
    path = capture(tmp_path, "", "{}")
    assert outcomes(path) == [
        ("retried", "stream_empty_tool_arguments", "retry_streaming"),
        ("accepted_degraded", "stream_empty_args_replay", None),
    ]


@pytest.mark.parametrize(
    "mode, expected",
    [
        ("off", [("accepted", None, None)]),
        ("structural", [("invalid", "stream_invalid_tool_call", "retry_streaming")]),
        ("strict", [("invalid", "stream_invalid_tool_call", "retry_streaming")]),
    ],
)
def test_validation_mode_decides_what_needs_a_retry(
    tmp_path: Path, mode: str, expected: list[tuple[str, str, str]]
) -> None:
    assert outcomes(capture(tmp_path, '{"location": 5'), validation=mode) == expected


def test_strict_catches_types_structural_lets_through(tmp_path: Path) -> None:
    path = capture(tmp_path, '{"location": 5}')
    assert outcomes(path, validation="structural") == [("accepted", None, None)]
    assert outcomes(path, validation="strict")[0][1] == "stream_invalid_tool_call"


def test_report_json_lists_attempts_with_their_own_calls(tmp_path: Path) -> None:
    path = capture(tmp_path, '{"location":', '{"location":"Oslo"}')
    doc = report.to_json(Analysis.from_capture(load(path), providers=REGISTRY))
    assert [a["outcome"] for a in doc["attempts"]] == ["retried", "accepted"]
    assert [a["tool_calls"][0]["valid"] for a in doc["attempts"]] == [False, True]
    assert doc["tool_calls"][0]["arguments"] == '{"location":"Oslo"}'
    assert "sk-secret" not in path.read_text()


def test_should_retry_at_most_once_within_budget() -> None:
    bad = AttemptRecord(1, "invalid", "stream_invalid_tool_call")
    assert should_retry(bad, retries_done=0, remaining_budget=5.0)
    assert not should_retry(bad, retries_done=1, remaining_budget=5.0)
    assert not should_retry(bad, retries_done=0, remaining_budget=0.0)
    assert not should_retry(AttemptRecord(1, "accepted"), retries_done=0, remaining_budget=5)


def test_reasons_and_outcomes_are_the_capture_spellings() -> None:
    assert ATTEMPT_REASONS == (
        "stream_empty_tool_arguments",
        "stream_empty_args_replay",
        "stream_invalid_tool_call",
    )
    assert OUTCOMES == ("accepted", "retried", "accepted_degraded", "invalid", "failed")


def test_settings_from_strings_checks_each_choice() -> None:
    strict = Settings.from_strings(validation="strict", empty_id="literal")
    assert strict == Settings(validation="strict", empty_id="literal")
    assert strict.with_strings(validation="off") == Settings(validation="off", empty_id="literal")
    with pytest.raises(ValueError, match="unknown empty-id policy 'blank'"):
        Settings.from_strings(empty_id="blank")
    with pytest.raises(ValueError, match="unknown validation mode 'lax'"):
        Settings().with_strings(validation="lax")
