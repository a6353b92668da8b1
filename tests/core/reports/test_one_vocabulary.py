"""The one vocabulary (inspector/core/reports/words.py): every view and the report say the same
word for the same state, and validation "off" is never shown as valid anywhere."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, real_fixture

from inspector.core.analysis.session import Analysis
from inspector.core.base.settings import Settings, ValidationMode
from inspector.core.capture.reader import load, load_bytes
from inspector.core.providers import REGISTRY
from inspector.core.reports import report, words
from inspector.core.reports.compare import compare_capture
from inspector.core.reports.words import attempt_word, call_word

TWO_TOOLS = "gpt-4o-two-tools-usage-chunk"
CUT = "anthropic-max-tokens-mid-arguments"
HEADER = {"format": "toolcall-inspector-capture", "version": 1, "meta": {"dialect": "openai-chat"}}
CHUNK = (
    'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function",'
    '"function":{"name":"f","arguments":"{}"}}]}}]}\n\n'
    'data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n'
)


def _analysis(name: str, validation: ValidationMode = "structural") -> Analysis:
    capture = load(real_fixture(name))
    return Analysis.from_capture(capture, Settings(validation=validation), providers=REGISTRY)


def _capture(tmp_path: Path, *records: dict[str, Any]) -> Analysis:
    path = tmp_path / "c.jsonl"
    lines = [json.dumps(HEADER)] + [json.dumps({"attempt": 1, **r}) for r in records]
    path.write_text("\n".join(lines) + "\n")
    return Analysis.from_capture(load(path), Settings(dialect="openai-chat"), providers=REGISTRY)


def test_every_word_has_a_symbol_and_a_meaning() -> None:
    every = words.CALL_WORDS + words.FRAGMENT_WORDS + words.ATTEMPT_WORDS
    assert "not checked" in every and "interrupted" in every and "dropped" in every
    for word in every:
        assert words.MEANING[word] and words.label(word).endswith(words.shown_word(word))
    assert words.label("invalid") == "✖ INVALID" and words.label("not checked") == "– not checked"


def test_call_words_follow_validation() -> None:
    assert {call_word(v, validation="structural") for v in _analysis(TWO_TOOLS).final.verdicts} == {
        "valid"
    }
    off = _analysis(TWO_TOOLS, "off")
    assert {call_word(v, validation="off") for v in off.final.verdicts} == {"not checked"}
    (cut,) = _analysis(CUT).final.verdicts
    assert call_word(cut, validation="structural") == "invalid"
    (cut_off,) = _analysis(CUT, "off").final.verdicts
    assert call_word(cut_off, validation="off") == "truncated"
    assert call_word(None, validation="off") == "streaming"


def test_attempt_words_from_the_recording(tmp_path: Path) -> None:
    def word(analysis: Analysis) -> str:
        return attempt_word(analysis.final, analysis.records[-1], analysis.capture)

    request = {"type": "request", "t": 0, "method": "POST", "url": "http://x/v1/chat/completions"}
    chunk = {"type": "chunk", "t": 0.1, "text": CHUNK}
    assert word(_capture(tmp_path, request, chunk, {"type": "end", "t": 1, "reason": "eof"})) == (
        "accepted"
    )
    assert word(_capture(tmp_path, request, chunk)) == "interrupted"
    assert word(_capture(tmp_path)) == "interrupted"  # a header and nothing else
    cancelled = {"type": "end", "t": 1, "reason": "cancelled", "error": "cancelled"}
    assert word(_capture(tmp_path, request, chunk, cancelled)) == "cancelled"
    status = {"type": "response", "t": 0.1, "status": 401, "headers": {}}
    end = {"type": "end", "t": 1, "reason": "error", "error": "HTTP 401"}
    assert word(_capture(tmp_path, request, status, end)) == "failed"
    raw = Analysis.from_capture(load_bytes(CHUNK.encode()), providers=REGISTRY)
    assert word(raw) == "accepted"  # a raw body has no end record to miss


def test_report_says_not_checked_and_json_carries_the_words() -> None:
    off = _analysis(TWO_TOOLS, "off")
    text = report.to_text(off)
    assert "not checked" in text and " valid " not in text
    doc = report.to_json(off)
    assert [c["word"] for c in doc["tool_calls"]] == ["not checked", "not checked"]
    assert doc["attempts"][0]["word"] == "accepted" and doc["exit"] == {"code": 0, "reasons": []}


def test_json_valid_is_null_when_nothing_was_checked() -> None:
    """A script reading ``valid`` must not take validation off for a pass."""
    off = report.to_json(_analysis(TWO_TOOLS, "off"))
    assert off["format_version"] == 4
    assert off["valid"] is None and [c["valid"] for c in off["tool_calls"]] == [None, None]
    on = report.to_json(_analysis(TWO_TOOLS, "structural"))
    assert on["valid"] is True and [c["valid"] for c in on["tool_calls"]] == [True, True]


def test_compare_never_says_valid_when_validation_is_off() -> None:
    capture = load(real_fixture("qwen3-max-empty-id-continuations"))
    both_off = compare_capture(
        capture, Settings(validation="off"), Settings(validation="off", empty_id="literal")
    )
    lines = both_off.lines()
    assert any("not checked on both sides" in line for line in lines)
    assert not any("valid" in line.replace("not checked", "") for line in lines)
    one_off = compare_capture(capture, Settings(validation="off"), Settings())
    assert "call 0 weather: not checked → valid" in one_off.lines()


def test_a_quirk_check_that_does_not_apply_says_so() -> None:
    anthropic = _analysis("anthropic-tool-use")
    notes = [f for f in report.findings(anthropic) if f.kind == "note"]
    assert len(notes) == 1 and "not checked for this dialect" in notes[0].message
    assert "sparse_index" in notes[0].message
    assert "sparse_index" in report.to_json(anthropic)["quirks_not_checked"]
    assert report.to_json(_analysis(TWO_TOOLS))["quirks_not_checked"] == []


# -- the views say the same words (pytest-qt) ------------------------------------------------


@pytest.fixture
def off_analysis() -> Analysis:
    return _analysis(TWO_TOOLS, "off")


def test_attempts_tree_with_validation_off(qtbot: Any, off_analysis: Analysis) -> None:
    from inspector.ui.panes.panes import AttemptsPane

    tree = AttemptsPane()
    qtbot.addWidget(tree)
    tree.show_analysis(off_analysis, None)
    top = tree.topLevelItem(0)
    assert top.text(1) == "✔ accepted"
    calls = [top.child(i).text(1) for i in range(top.childCount())]
    assert calls == ["– not checked", "– not checked"]


def test_timeline_draws_no_valid_call_with_validation_off(off_analysis: Analysis) -> None:
    from inspector.ui.timeline.timeline import bands

    (band,) = bands(off_analysis)
    calls = [b.text for b in band.bars if "call" in b.text]
    assert calls == ["– call · not checked"] * 2
    assert not any(b.colour == "#1e88e5" for b in band.bars if "call" in b.text)
    assert band.word == "✔ accepted"
    (on,) = bands(_analysis(TWO_TOOLS))
    assert [b.text for b in on.bars if "call" in b.text] == ["✔ call · valid"] * 2


def test_compare_window_lanes_with_validation_off(qtbot: Any) -> None:
    from inspector.ui.compare.compare import CompareWindow

    capture = load(real_fixture("qwen3-max-empty-id-continuations"))
    window = CompareWindow(capture, None)
    qtbot.addWidget(window)
    window.left.validation.setCurrentText("off")
    window.right.validation.setCurrentText("off")
    summary = [window.summary.item(i).text() for i in range(window.summary.count())]
    assert any("not checked on both sides" in line for line in summary)
    lanes = window.left.lanes.lanes + window.right.lanes.lanes
    assert lanes and all("not checked" in lane.status.text() for lane in lanes)
    assert not any("✔ valid" in lane.status.text() for lane in lanes)


RETRY_SAMPLE = REPO / "resources/samples/retry-truncated-then-valid.jsonl"
CUT_CALL = (
    'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function",'
    '"function":{"name":"f","arguments":"{\\"a\\": "}}]}}]}\n\n'
)


def test_no_retry_reason_for_an_attempt_that_never_reached_the_retry(
    qtbot: Any, tmp_path: Path
) -> None:
    from inspector.ui.panes.panes import AttemptsPane

    request = {"type": "request", "t": 0, "method": "POST", "url": "http://x/v1/chat/completions"}
    cut = {"type": "chunk", "t": 0.1, "text": CUT_CALL}
    stopped = {"type": "end", "t": 1, "reason": "cancelled", "error": "cancelled"}
    a = _capture(tmp_path, request, cut, stopped)
    assert a.records[0].reason == "stream_invalid_tool_call"  # the policy's view of its calls
    assert "  1: cancelled\n" in report.to_text(a)  # ... but no retry ever followed
    tree = AttemptsPane()
    qtbot.addWidget(tree)
    tree.show_analysis(a, None)
    assert tree.topLevelItem(0).text(1) == "⊘ cancelled"


@pytest.mark.parametrize("validation", ["off", "structural"])
def test_an_attempt_followed_by_a_retry_is_retried_in_every_mode(
    qtbot: Any, validation: ValidationMode
) -> None:
    from inspector.ui.panes.panes import AttemptsPane

    a = Analysis.from_capture(
        load(RETRY_SAMPLE), Settings(validation=validation), providers=REGISTRY
    )
    text = report.to_text(a)
    assert "  1: retried reason=stream_invalid_tool_call recovery=retry_streaming\n" in text
    assert "  2: accepted\n" in text
    tree = AttemptsPane()
    qtbot.addWidget(tree)
    tree.show_analysis(a, None)
    assert tree.topLevelItem(0).text(1) == (
        "↻ retried · stream_invalid_tool_call → retry_streaming"
    )
    assert tree.topLevelItem(1).text(1) == "✔ accepted"


def test_the_glossary_lists_every_client_and_matrix_word() -> None:

    from inspector.core.reports.words import CLIENT_WORDS, MATRIX_WORDS, MEANING, label

    glossary = (REPO / "docs" / "glossary.md").read_text()
    missing = [w for w in (*CLIENT_WORDS, *MATRIX_WORDS) if f"| {label(w)} |" not in glossary]
    assert not missing, f"docs/glossary.md lacks {missing}"
    assert all(MEANING[w] in glossary for w in CLIENT_WORDS)
