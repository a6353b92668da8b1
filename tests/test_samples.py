"""The Samples menu's captures: each loads, shows what its README says, and is reproducible."""

from __future__ import annotations

import importlib.util
import itertools
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from inspector.core.analysis.session import Analysis
from inspector.core.base.model import OMITTED
from inspector.core.base.settings import Settings
from inspector.core.capture.format import REDACTED
from inspector.core.capture.reader import load
from inspector.core.providers import REGISTRY

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "resources" / "samples"
SCRIPT = REPO / "scripts" / "make_samples.py"
SECRET_HEADERS = {"authorization", "x-api-key", "x-goog-api-key"}


@dataclass
class Expect:
    dialect: str
    names: list[list[str]]  # per attempt, the calls' names
    valid: list[list[bool]]
    quirks: list[set[str]]
    finish: list[Any]
    noisy: bool = False  # prose in the arguments where one fragment starts with the previous
    problems: list[list[list[str]]] = field(default_factory=list)


EXPECTED: dict[str, Expect] = {
    "glm-empty-string-continuations": Expect(
        "openai-chat",
        [["ExecCommand", "Glob"]],
        [[True, True]],
        [{"empty_string_continuation_id", "empty_string_continuation_name"}],
        ["tool_calls"],
    ),
    "ollama-parallel-calls-index-0": Expect(
        "openai-chat",
        [["get_weather"] * 3],
        [[True] * 3],
        [{"index_reused_with_new_id", "whole_call_single_chunk", "usage_only_chunk"}],
        ["tool_calls"],
    ),
    "anthropic-parallel-tool-use": Expect(
        "anthropic", [["get_weather", "get_time"]], [[True, True]], [set()], ["tool_use"]
    ),
    "responses-function-call": Expect(
        "openai-responses", [["search_flights"]], [[True]], [set()], ["completed"]
    ),
    "gemini-parallel-function-calls": Expect(
        "gemini", [["get_weather", "convert_currency"]], [[True, True]], [set()], ["STOP"]
    ),
    "retry-truncated-then-valid": Expect(
        "openai-chat",
        [["write_file"], ["write_file"]],
        [[False], [True]],
        [{"finish_reason_mismatch"}, set()],
        ["length", "tool_calls"],
        noisy=True,
        problems=[[["truncated", "invalid_json"]], [[]]],
    ),
    "openrouter-keepalives-no-done": Expect(
        "openai-chat",
        [["fetch_url"]],
        [[False]],
        [
            {
                "keepalive_comments",
                "cumulative_arguments",
                "finish_reason_mismatch",
                "missing_done",
                "usage_only_chunk",
            }
        ],
        ["stop"],
        problems=[[["invalid_json"]]],
    ),
    "large-arguments": Expect(
        "openai-chat", [["write_file"]], [[True]], [set()], ["tool_calls"], noisy=True
    ),
}


def _paths() -> list[Path]:
    return sorted(SAMPLES.glob("*.jsonl"))


def test_every_sample_has_expectations_and_a_readme_entry() -> None:
    assert {p.stem for p in _paths()} == set(EXPECTED)
    readme = (SAMPLES / "README.md").read_text()
    for name in EXPECTED:
        assert f"`{name}.jsonl`" in readme


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_sample_analyzes_as_expected(name: str) -> None:
    exp = EXPECTED[name]
    capture = load(SAMPLES / f"{name}.jsonl")
    assert capture.kind == "capture" and capture.timed and not capture.warnings
    assert set(capture.meta) >= {"title", "description", "dialect"}
    assert capture.meta["dialect"] == exp.dialect
    analysis = Analysis.from_capture(capture, providers=REGISTRY)
    assert analysis.dialect == exp.dialect and not analysis.warnings
    analysis.judge()
    assert len(analysis.attempts) == len(exp.names)
    for i, view in enumerate(analysis.attempts):
        assert [v.call.name for v in view.verdicts] == exp.names[i]
        assert [v.valid for v in view.verdicts] == exp.valid[i]
        assert {q.code for q in view.quirks} == exp.quirks[i]
        assert view.state.finish_reason == exp.finish[i]
        if exp.problems:
            assert [[p.code for p in v.problems] for v in view.verdicts] == exp.problems[i]
    for attempt in capture.attempts:
        assert attempt.status == 200 and attempt.complete
        assert attempt.response is not None
        assert attempt.response["headers"]["content-type"].startswith("text/event-stream")


@pytest.mark.parametrize("name", [n for n, e in sorted(EXPECTED.items()) if e.noisy])
def test_no_false_cumulative_quirk(name: str) -> None:
    """'e fram' then 'e frame r' in prose is a coincidence, not a cumulative stream."""
    analysis = Analysis.from_capture(load(SAMPLES / f"{name}.jsonl"), providers=REGISTRY)
    assert "cumulative_arguments" not in {q.code for q in analysis.final.quirks}


def test_glm_sample_reproduces_the_empty_id_bug_under_literal() -> None:
    capture = load(SAMPLES / "glm-empty-string-continuations.jsonl")
    literal = Analysis.from_capture(capture, Settings(empty_id="literal"), providers=REGISTRY)
    verdicts = literal.final.verdicts
    assert [v.arguments for v in verdicts] == ["{", "{"]
    assert [[p.code for p in v.problems] for v in verdicts] == [
        ["invalid_json", "dropped_fragments"]
    ] * 2
    assert [len(v.call.dropped) for v in verdicts] == [10, 4]
    absent = Analysis.from_capture(capture, providers=REGISTRY).final.verdicts
    assert json.loads(absent[0].arguments)["cmd"].startswith("Get-Date; Write-Output")
    assert json.loads(absent[1].arguments) == {"pattern": "*.md"}


def test_ollama_calls_keep_their_ids_at_one_index() -> None:
    final = Analysis.from_capture(
        load(SAMPLES / "ollama-parallel-calls-index-0.jsonl"), providers=REGISTRY
    ).final
    assert [v.call.index for v in final.verdicts] == [0, 0, 0]
    assert len({v.call.id for v in final.verdicts}) == 3
    assert [json.loads(v.arguments)["city"] for v in final.verdicts] == ["Paris", "Tokyo", "Lima"]
    assert final.state.usage is not None and final.state.done_seq is not None


def test_dialect_specific_details() -> None:
    anthropic = Analysis.from_capture(
        load(SAMPLES / "anthropic-parallel-tool-use.jsonl"), providers=REGISTRY
    ).final
    assert [v.call.index for v in anthropic.verdicts] == [1, 2]
    assert anthropic.state.full_text.startswith("I'll check the weather")
    assert sum(e.event == "ping" for e in anthropic.state.events) >= 2
    responses = Analysis.from_capture(
        load(SAMPLES / "responses-function-call.jsonl"), providers=REGISTRY
    ).final
    (call,) = responses.verdicts
    assert call.call.id.startswith("call_") and sum(f.final for f in call.call.fragments) == 2
    assert call.call.final_mismatch is None and not call.call.args_from_final
    assert responses.state.reasoning
    gemini_capture = load(SAMPLES / "gemini-parallel-function-calls.jsonl")
    assert b"\r\n\r\n" in gemini_capture.attempts[0].body
    gemini = Analysis.from_capture(gemini_capture, providers=REGISTRY).final
    assert all(v.call.id is OMITTED and v.repaired_id for v in gemini.verdicts)


def test_retry_sample_records_the_retry() -> None:
    capture = load(SAMPLES / "retry-truncated-then-valid.jsonl")
    assert capture.attempts[1].reason == "stream_invalid_tool_call"
    assert capture.attempts[1].recovery_action == "retry_streaming"
    analysis = Analysis.from_capture(capture, providers=REGISTRY)
    assert [r.reason for r in analysis.records] == ["stream_invalid_tool_call", None]
    first, second = (view.verdicts[0] for view in analysis.attempts)
    assert first.call.truncated and second.arguments.startswith(first.arguments)
    assert json.loads(second.arguments)["path"] == "docs/RELEASE.md"


def test_openrouter_sample_has_keepalives_and_no_done() -> None:
    state = Analysis.from_capture(
        load(SAMPLES / "openrouter-keepalives-no-done.jsonl"), providers=REGISTRY
    ).final.state
    comments = [e.comment for e in state.events if e.kind == "comment"]
    assert comments and set(comments) == {"OPENROUTER PROCESSING"}
    assert state.done_seq is None
    (call,) = state.calls
    texts = [f.text for f in call.fragments]
    assert all(b.startswith(a) and len(b) > len(a) for a, b in itertools.pairwise(texts))


def test_large_sample_size_and_fragments() -> None:
    path = SAMPLES / "large-arguments.jsonl"
    assert path.stat().st_size < 3_000_000
    (v,) = Analysis.from_capture(load(path), providers=REGISTRY).final.verdicts
    assert len(v.arguments) > 180_000
    sizes = [len(f.text) for f in v.call.fragments[1:]]
    assert 7.5 <= sum(sizes) / len(sizes) <= 9.0


@pytest.mark.parametrize("path", _paths(), ids=lambda p: p.stem)
def test_no_secret_is_written(path: Path) -> None:
    data = path.read_bytes()
    assert b"NOT-A-REAL-KEY" not in data and b"Bearer" not in data
    capture = load(path)
    for attempt in capture.attempts:
        assert attempt.request is not None
        secret = {
            k: v for k, v in attempt.request["headers"].items() if k.lower() in SECRET_HEADERS
        }
        assert secret and set(secret.values()) == {REDACTED}
        body = attempt.request["body"]
        assert body.get("tools") or body.get("contents")


@pytest.mark.parametrize("path", _paths(), ids=lambda p: p.stem)
def test_timings_are_realistic(path: Path) -> None:
    for attempt in load(path).attempts:
        times = [t for t, _ in attempt.chunks]
        gaps = [b - a for a, b in itertools.pairwise(times)]
        assert all(0.0095 <= g <= 0.0805 for g in gaps)
        assert attempt.response is not None and attempt.response["t"] < times[0]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_samples", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it executes
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


def test_script_reproduces_the_files(tmp_path: Path) -> None:
    """Byte for byte, except the header's `created` (CaptureWriter stamps the current time)."""
    assert _script().main(["make_samples.py", str(tmp_path)]) == 0
    made = sorted(tmp_path.glob("*.jsonl"))
    assert [p.name for p in made] == [p.name for p in _paths()]
    for new in made:
        old_head, _, old_rest = (SAMPLES / new.name).read_bytes().partition(b"\n")
        new_head, _, new_rest = new.read_bytes().partition(b"\n")
        assert new_rest == old_rest, f"{new.name} changed: re-run scripts/make_samples.py"
        old_header, new_header = json.loads(old_head), json.loads(new_head)
        assert old_header.pop("created") and new_header.pop("created")
        assert new_header == old_header
