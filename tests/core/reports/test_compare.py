"""Comparing one stream under two settings: which calls, verdicts and fragments differ."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO

from core.calls.test_empty_id_continuations import EXEC_PARTS, GLOB_PARTS, glm_stream
from inspector.core.analysis.session import Analysis
from inspector.core.base.settings import EMPTY_ID_POLICIES, VALIDATION_MODES, Settings
from inspector.core.capture.reader import load, load_bytes
from inspector.core.capture.writer import CaptureWriter
from inspector.core.providers import REGISTRY
from inspector.core.reports.compare import compare, compare_capture
from inspector.core.verdicts.tools import ToolRegistry

ABSENT = Settings()
LITERAL = Settings(empty_id="literal")


def _chunk(entries: list[dict[str, Any]] | None = None, finish: str | None = None) -> bytes:
    delta: dict[str, Any] = {"tool_calls": entries} if entries else {}
    obj = {
        "id": "chatcmpl-c",
        "object": "chat.completion.chunk",
        "model": "glm-5.2",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + json.dumps(obj, ensure_ascii=False).encode() + b"\n\n"


def _entry(index: int, id_: str | None, name: str | None, args: str | None) -> dict[str, Any]:
    fn: dict[str, Any] = {}
    if args is not None:
        fn["arguments"] = args
    if name is not None:
        fn["name"] = name
    e: dict[str, Any] = {"index": index, "type": "function", "function": fn}
    if id_ is not None:
        e["id"] = id_
    return e


def _stream(*entries: dict[str, Any], finish: str = "tool_calls") -> bytes:
    return b"".join([*(_chunk([e]) for e in entries), _chunk(finish=finish), b"data: [DONE]\n\n"])


def test_the_empty_id_bug_absent_vs_literal() -> None:
    body = glm_stream()
    cmp = compare_capture(load_bytes(body), ABSENT, LITERAL)
    assert cmp.differs
    assert [d.key for d in cmp.calls] == [(0, 0), (1 + len(EXEC_PARTS), 0)]
    exec_, glob = cmp.calls
    for diff in cmp.calls:
        assert diff.verdict_changed and diff.arguments_changed
        assert not diff.identity_changed
        assert diff.left is not None and diff.right is not None
        assert diff.left.valid and not diff.right.valid
        assert diff.right.arguments == "{"
        assert diff.dropped_left_only == []
    assert len(exec_.dropped_right_only) == len(EXEC_PARTS) == 10
    assert len(glob.dropped_right_only) == len(GLOB_PARTS) == 4
    assert exec_.dropped_right_only == list(range(1, 1 + len(EXEC_PARTS)))
    full = "{" + "".join(EXEC_PARTS)
    assert exec_.left is not None and exec_.left.arguments == full
    assert exec_.summary() == (
        "call 0 ExecCommand: valid → INVALID (invalid_json, dropped_fragments); "
        f"arguments {len(full)} → 1 chars; 10 fragments dropped on the right only"
    )
    assert glob.summary().startswith(
        "call 1 Glob: valid → INVALID (invalid_json, dropped_fragments)"
    )
    assert cmp.quirks_left_only == cmp.quirks_right_only == []  # quirks describe the wire
    lines = cmp.lines()
    assert lines[0] == "settings: empty_id absent → literal"
    assert lines[1:] == [exec_.summary(), glob.summary()]
    # the other way round, the drops are on the left
    back = compare_capture(load_bytes(body), LITERAL, ABSENT)
    assert [len(d.dropped_left_only) for d in back.calls] == [10, 4]
    assert all(d.dropped_right_only == [] for d in back.calls)


def test_identical_settings_show_no_difference() -> None:
    cmp = compare_capture(load_bytes(glm_stream()), LITERAL, LITERAL)
    assert not cmp.differs
    assert all(not d.changed for d in cmp.calls) and len(cmp.calls) == 2
    assert cmp.lines() == ["settings: identical", "no differences"]
    assert (
        cmp.calls[0].summary()
        == "call 0 ExecCommand: INVALID (invalid_json, dropped_fragments) on both sides"
    )


def test_structural_vs_strict_on_a_type_error() -> None:
    tools = ToolRegistry.from_definitions(
        [
            {
                "type": "function",
                "function": {
                    "name": "read_file",
                    "parameters": {
                        "type": "object",
                        "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
                        "required": ["path"],
                    },
                },
            }
        ],
        REGISTRY,
    )
    body = _stream(
        _entry(0, "call_r", "read_file", '{"path": "a.txt", '),
        _entry(0, None, None, '"limit": "ten"}'),
    )
    cmp = compare_capture(
        load_bytes(body), Settings(validation="structural"), Settings(validation="strict"), tools
    )
    (diff,) = cmp.calls
    assert diff.verdict_changed
    assert not diff.arguments_changed and not diff.identity_changed
    assert diff.dropped_left_only == diff.dropped_right_only == []
    assert diff.summary() == "call 0 read_file: valid → INVALID (schema_violation)"
    assert cmp.lines()[0] == "settings: validation structural → strict"


def test_literal_opens_an_extra_call() -> None:
    """A continuation with id "" and a real name: literal looks "" up, finds nothing, opens."""
    body = _stream(_entry(0, "call_a", "Read", "{"), _entry(0, "", "Read", '"path": "a"}'))
    cmp = compare_capture(load_bytes(body), ABSENT, LITERAL)
    first, extra = cmp.calls
    assert first.key == (0, 0) and extra.key == (1, 0)
    assert first.left is not None and first.right is not None
    assert first.left.arguments == '{"path": "a"}' and first.right.arguments == "{"
    assert extra.left is None and extra.right is not None
    assert extra.right.arguments == '"path": "a"}'
    assert extra.verdict_changed and extra.arguments_changed and extra.identity_changed
    assert extra.summary() == "call 1 Read: only on the right: INVALID (invalid_json)"
    assert first.dropped_right_only == [] and extra.dropped_right_only == []


def test_orphan_on_one_side_and_its_fragment_dropped_on_the_other() -> None:
    """An id-only entry with "name": "": an orphan call under absent; under literal its id is
    unknown and it has no real name, so the fragment is dropped (shown in the open call's lane)."""
    body = _stream(_entry(0, "call_a", "Read", '{"path": "a"}'), _entry(1, "call_o", "", None))
    cmp = compare_capture(load_bytes(body), ABSENT, LITERAL)
    read, orphan = cmp.calls
    assert orphan.key == (1, 0)
    assert orphan.left is not None and orphan.left.orphan and orphan.right is None
    assert orphan.summary() == "call 1 (no name): only on the left: orphan"
    assert read.dropped_right_only == [1] and not read.verdict_changed
    assert read.summary() == (
        "call 0 Read: valid on both sides; 1 fragment dropped on the right only"
    )
    assert cmp.quirks_left_only == ["orphan_id_only_entry"] and cmp.quirks_right_only == []
    assert "quirk orphan_id_only_entry on the left only" in cmp.lines()


def test_repaired_id_is_an_identity_change() -> None:
    """A named call with id "": absent repairs the id, literal keeps "" as the id."""
    body = _stream(_entry(0, "", "Read", '{"path": "a"}'))
    (diff,) = compare_capture(load_bytes(body), ABSENT, LITERAL).calls
    assert diff.identity_changed and not diff.arguments_changed
    assert "effective id 'call00000' → ''" in diff.summary()


def _two_attempts(path: Path) -> None:
    with CaptureWriter(path) as w:
        w.chunk(1, 0.1, glm_stream())
        w.end(1, 0.2, "eof")
        w.attempt(2, "stream_invalid_tool_call", "retry_streaming")
        w.chunk(2, 0.1, _stream(_entry(0, "call_g", "Glob", '{"pattern": "*.md"}')))
        w.end(2, 0.2, "eof")


def test_attempt_selection(tmp_path: Path) -> None:
    _two_attempts(tmp_path / "two.jsonl")
    capture = load(tmp_path / "two.jsonl")
    left = Analysis.from_capture(capture, ABSENT, providers=REGISTRY)
    right = Analysis.from_capture(capture, LITERAL, providers=REGISTRY)
    assert not compare(left, right).differs  # the final attempt has no empty ids
    first = compare(left, right, attempt=1)
    assert first.differs and len(first.calls) == 2
    assert not compare(left, right, attempt=2).differs
    with pytest.raises(ValueError, match="no attempt 3"):
        compare(left, right, attempt=3)


# -- forks: the other side without reading the stream again ---------------------------------

_FORK_SETTINGS = [
    Settings(validation=v, empty_id=e) for v in VALIDATION_MODES for e in EMPTY_ID_POLICIES
]


def _fork_sources() -> list[Path]:
    from conftest import all_real_fixtures

    samples = REPO / "resources" / "samples"
    return [*all_real_fixtures(), *sorted(samples.glob("*.jsonl"))]


@pytest.mark.parametrize("path", _fork_sources(), ids=lambda p: p.stem)
def test_a_fork_judges_as_a_fresh_read_and_leaves_its_origin_alone(path: Path) -> None:
    from core.replay.test_replay_positions import snapshot

    capture = load(path)
    base = Analysis.from_capture(capture, Settings(), providers=REGISTRY)
    before = snapshot(base)
    for settings in _FORK_SETTINGS:
        fork = base.fork(settings)
        assert snapshot(fork) == snapshot(
            Analysis.from_capture(capture, settings, providers=REGISTRY)
        ), settings
        assert fork.attempts[0].state.events is base.attempts[0].state.events  # shared
        fresh = compare(
            Analysis.from_capture(capture, Settings(), providers=REGISTRY),
            Analysis.from_capture(capture, settings, providers=REGISTRY),
        )
        assert compare(base, fork).lines() == fresh.lines()
    assert snapshot(base) == before


def test_a_fork_keeps_the_dialect_and_needs_an_ended_stream() -> None:
    base = Analysis.from_capture(load_bytes(b"data: [DONE]\n\n"), Settings(), providers=REGISTRY)
    with pytest.raises(ValueError, match="dialect"):
        base.fork(Settings(dialect="anthropic"))
    live = Analysis(Settings(), providers=REGISTRY)
    live.feed(b"data: {}\n\n")
    with pytest.raises(ValueError, match="ended"):
        live.fork(Settings(empty_id="literal"))
