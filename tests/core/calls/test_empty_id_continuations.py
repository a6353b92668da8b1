"""The empty-id accumulator bug: glm-5.2 continuations carry "id": "" and "name": ""; a literal
id lookup drops them.

The chunk sequence is rebuilt from the bug report's SSE evidence (lines 17-34): two parallel
calls, ExecCommand and Glob, each opening with id+name+"{" and continuing with empty-string
id/name (see docs/glossary.md).
"""

from __future__ import annotations

import json

import pytest

from inspector.core.analysis.session import Analysis
from inspector.core.base.settings import Settings
from inspector.core.capture.reader import load_bytes
from inspector.core.providers import REGISTRY, analyze_bytes
from inspector.core.verdicts.tools import ToolRegistry

EXEC_ID = "call_b45f0e6a0c9d4c8fb2a4a7d1"
GLOB_ID = "call_9072c7daa3af466782cee2ea"
EXEC_PARTS = [
    '"cmd": ',
    '"Get-',
    "Date; ",
    "Write-",
    "Output ",
    '\\"',
    "PowerShell ",
    "工具运行",
    "正常",
    '"}',
]
GLOB_PARTS = ['"pattern": ', '"*.', 'md"', "}"]


def _chunk(entry: dict[str, object] | None = None, finish: str | None = None) -> bytes:
    delta: dict[str, object] = {"tool_calls": [entry]} if entry else {}
    obj = {
        "id": "chatcmpl-glm52",
        "object": "chat.completion.chunk",
        "model": "glm-5.2",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + json.dumps(obj, ensure_ascii=False).encode() + b"\n\n"


def _entry(index: int, id_: str | None, name: str | None, args: str) -> dict[str, object]:
    """A tool_calls entry; None means the key is omitted (the qwen3.8 form)."""
    fn: dict[str, object] = {"arguments": args}
    if name is not None:
        fn["name"] = name
    e: dict[str, object] = {"index": index, "type": "function", "function": fn}
    if id_ is not None:
        e["id"] = id_
    return e


def glm_stream(continuation: str = "") -> bytes:
    """The bug report's stream; continuation "" (glm-5.2) or None (qwen3.8: fields omitted)."""
    cont = None if continuation is None else continuation
    out = [_chunk(_entry(0, EXEC_ID, "ExecCommand", "{"))]
    out += [_chunk(_entry(0, cont, cont, p)) for p in EXEC_PARTS]
    out.append(_chunk(_entry(1, GLOB_ID, "Glob", "{")))
    out += [_chunk(_entry(1, cont, cont, p)) for p in GLOB_PARTS]
    out.append(_chunk(finish="tool_calls"))
    out.append(b"data: [DONE]\n\n")
    return b"".join(out)


EXPECTED_EXEC = '{"cmd": "Get-Date; Write-Output \\"PowerShell 工具运行正常"}'
EXPECTED_GLOB = '{"pattern": "*.md"}'


@pytest.mark.parametrize("continuation", ["", None], ids=["empty-string", "omitted"])
def test_absent_assembles_both_forms(continuation: str | None) -> None:
    state = analyze_bytes(glm_stream(continuation))  # type: ignore[arg-type]
    calls = state.acc.assembled() if state.acc else []
    assert [(c.id, c.name) for c in calls] == [(EXEC_ID, "ExecCommand"), (GLOB_ID, "Glob")]
    assert [c.arguments for c in calls] == [EXPECTED_EXEC, EXPECTED_GLOB]
    assert json.loads(calls[0].arguments)["cmd"].startswith("Get-Date")
    assert all(c.accepted.count(False) == 0 for c in calls)


def test_literal_reproduces_the_bug_exactly() -> None:
    """Every call ends with arguments "{" (raw length 1), the continuations dropped."""
    state = analyze_bytes(glm_stream(""), empty_id="literal")
    calls = state.acc.assembled() if state.acc else []
    assert [c.arguments for c in calls] == ["{", "{"]
    assert [len(c.arguments) for c in calls] == [1, 1]
    assert [c.accepted.count(False) for c in calls] == [len(EXEC_PARTS), len(GLOB_PARTS)]
    dropped = calls[1].dropped
    assert [d.text for d in dropped] == GLOB_PARTS
    assert all(d.id == "" and d.name == "" for d in dropped)


def test_literal_is_harmless_when_fields_are_omitted() -> None:
    """qwen3.8's form (id/name omitted) works under both policies: the bug needs ""."""
    state = analyze_bytes(glm_stream(None), empty_id="literal")  # type: ignore[arg-type]
    assert [c.arguments for c in state.calls] == [EXPECTED_EXEC, EXPECTED_GLOB]


def test_literal_verdict_is_invalid_json_and_flip_repairs_it() -> None:
    analysis = Analysis.from_capture(
        load_bytes(glm_stream("")), Settings(empty_id="literal"), providers=REGISTRY
    )
    verdicts = analysis.final.verdicts
    assert [v.valid for v in verdicts] == [False, False]
    for v in verdicts:
        codes = [p.code for p in v.problems]
        assert codes == ["invalid_json", "dropped_fragments"]
        assert "end of input" in v.problems[0].message
        assert v.problems[0].offset == 1
    assert analysis.records[0].reason == "stream_invalid_tool_call"
    analysis.apply(analysis.with_settings(empty_id="absent"))
    assert [v.valid for v in analysis.final.verdicts] == [True, True]
    assert analysis.records[0].reason is None


def test_literal_with_required_tools_reports_invalid_json_not_missing() -> None:
    tools = ToolRegistry.from_definitions(
        [
            {
                "type": "function",
                "function": {
                    "name": "ExecCommand",
                    "parameters": {
                        "type": "object",
                        "properties": {"cmd": {"type": "string"}},
                        "required": ["cmd"],
                    },
                },
            },
            {
                "type": "function",
                "function": {
                    "name": "Glob",
                    "parameters": {
                        "type": "object",
                        "properties": {"pattern": {"type": "string"}},
                        "required": ["pattern"],
                    },
                },
            },
        ],
        REGISTRY,
    )
    analysis = Analysis.from_capture(
        load_bytes(glm_stream("")), Settings(empty_id="literal"), tools, providers=REGISTRY
    )
    assert [v.problems[0].code for v in analysis.final.verdicts] == ["invalid_json"] * 2
    # under `off` only the legacy empty-required condition counts: "{" is not empty
    analysis.apply(analysis.with_settings(validation="off"))
    assert [v.valid for v in analysis.final.verdicts] == [True, True]
