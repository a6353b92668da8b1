"""Hostile wire data: one regression test per crash site the fuzzer found (``make fuzz``).

Each input is the smallest that raised at its site before the wire was treated as untrusted.
Now a field of the wrong type is one ``wire_field_type`` problem on its event (naming the
field's path, the kind expected and the kind received), and ``analyze`` prints the whole report
with the exit code the calls earn: the stream's other calls are judged as usual.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from inspector.cli import main
from inspector.core.analysis.session import Analysis
from inspector.core.base.settings import Settings
from inspector.core.capture.reader import load_bytes
from inspector.core.providers import REGISTRY
from inspector.core.reports import report

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}


def sse(*events: Any) -> bytes:
    """``data:`` frames (objects as JSON, strings verbatim)."""
    return b"".join(
        f"data: {e if isinstance(e, str) else json.dumps(e)}\n\n".encode() for e in events
    )


def chat_call(index: Any = 0, args: str = '{"city": "Oslo"}', **more: Any) -> dict[str, Any]:
    entry = {"index": index, "function": {"arguments": args}, **more}
    return {"choices": [{"index": 0, "delta": {"tool_calls": [entry]}}]}


def finish(reason: Any) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]}


OPENER = chat_call(0, '{"city": ', id="call_1", type="function")
OPENER["choices"][0]["delta"]["tool_calls"][0]["function"]["name"] = "get_weather"


def analyze_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, body: bytes, dialect: str = "auto"
) -> tuple[int, dict[str, Any]]:
    """``analyze --json`` on ``body``: (exit code, the report); stderr must stay empty."""
    path = tmp_path / "stream.sse"
    path.write_bytes(body)
    code = main(["analyze", "--json", "--dialect", dialect, str(path)])
    out, err = capsys.readouterr()
    assert err == "", err
    return code, orjson.loads(out)


def wrong_types(doc: dict[str, Any]) -> dict[str, Any]:
    """The report's ``wire_field_type`` quirk (it must be there)."""
    found = [q for q in doc["quirks"] if q["code"] == "wire_field_type"]
    assert found, [q["code"] for q in doc["quirks"]]
    return found[0]


# -- the sites ----------------------------------------------------------------------------------


@pytest.mark.parametrize("index", [[0], {"i": 0}])
def test_chat_tool_call_index_of_the_wrong_type(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, index: Any
) -> None:
    """Site: the quirk scan keyed its per-chunk lanes by the index (unhashable)."""
    body = sse(OPENER, chat_call(index, '"Oslo"}'), finish("tool_calls"), "[DONE]")
    code, doc = analyze_json(capsys, tmp_path, body)
    quirk = wrong_types(doc)
    got = "array" if isinstance(index, list) else "object"
    assert quirk["chunks"] == [1]
    assert f"choices[0].delta.tool_calls[0].index: expected integer, got {got}" in quirk["message"]
    # an index that names no lane continues the open call, as a missing one would
    (call,) = doc["tool_calls"]
    assert call["arguments"] == '{"city": "Oslo"}' and call["valid"] and code == 0


@pytest.mark.parametrize("reason", [["tool_calls"], {"r": "length"}])
def test_chat_finish_reason_of_the_wrong_type(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, reason: Any
) -> None:
    """Site: the accumulator looked the finish reason up among the cut-off reasons
    (unhashable); the provider's tool-finish check did the same."""
    body = sse(OPENER, chat_call(0, '"Oslo"}'), finish(reason), "[DONE]")
    code, doc = analyze_json(capsys, tmp_path, body)
    quirk = wrong_types(doc)
    assert (
        quirk["chunks"] == [2] and "choices[0].finish_reason: expected string" in quirk["message"]
    )
    assert doc["finish_reason"] == reason  # kept as received
    assert [c["valid"] for c in doc["tool_calls"]] == [True] and code == 0


@pytest.mark.parametrize("index", [[1], {"i": 1}])
def test_anthropic_block_stop_index_of_the_wrong_type(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, index: Any
) -> None:
    """Site: the accumulator's close looked the call up by the index (unhashable)."""
    block = {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}
    body = b"".join(
        f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode()
        for e in (
            {"type": "message_start", "message": {"id": "msg_1", "role": "assistant"}},
            {"type": "content_block_start", "index": 1, "content_block": block},
            {"type": "content_block_delta", "index": 1,
             "delta": {"type": "input_json_delta", "partial_json": '{"city": "Oslo"}'}},
            {"type": "content_block_stop", "index": index},
            {"type": "message_delta", "delta": {"stop_reason": "tool_use"}},
            {"type": "message_stop"},
        )
    )  # fmt: skip
    code, doc = analyze_json(capsys, tmp_path, body)
    quirk = wrong_types(doc)
    assert quirk["chunks"] == [3] and "index: expected integer" in quirk["message"]
    # the close names no call: the call stays open until the stream's end marker cuts it
    (call,) = doc["tool_calls"]
    assert call["arguments"] == '{"city": "Oslo"}' and call["closed_by"] == "done"
    assert doc["dialect"] == "anthropic" and code == 1  # truncated: the table's "invalid call"


@pytest.mark.parametrize("response", ["resp_1", [{"tools": []}], 7])
def test_responses_created_whose_response_is_not_an_object(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, response: Any
) -> None:
    """Site: the tool-source lookup read ``response.tools`` from whatever ``response`` was."""
    item = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "search"}
    body = b"".join(
        f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode()
        for e in (
            {"type": "response.created", "response": response},
            {"type": "response.output_item.added", "output_index": 0, "item": item},
            {"type": "response.function_call_arguments.delta", "item_id": "fc_1",
             "output_index": 0, "delta": '{"q": 1}'},
            {"type": "response.output_item.done", "output_index": 0,
             "item": {**item, "arguments": '{"q": 1}'}},
            {"type": "response.completed", "response": {"id": "resp_1"}},
        )
    )  # fmt: skip
    code, doc = analyze_json(capsys, tmp_path, body)
    quirk = wrong_types(doc)
    assert quirk["chunks"] == [0] and "response: expected object" in quirk["message"]
    assert [c["valid"] for c in doc["tool_calls"]] == [True] and code == 0


def test_tool_dispatch_whose_call_id_is_not_a_string(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Site: the text report's rounds keyed the dispatches by their call id (unhashable)."""
    body = sse(OPENER, chat_call(0, '"Oslo"}'), finish("tool_calls"), "[DONE]").decode()
    records = [
        {"format": "toolcall-inspector-capture", "version": 1},
        {"type": "request", "attempt": 1, "t": 0.0, "method": "POST", "headers": {},
         "url": "https://x/v1/chat/completions", "body": {"tools": [WEATHER]}},
        {"type": "response", "attempt": 1, "t": 0.1, "status": 200, "headers": {}},
        {"type": "chunk", "attempt": 1, "t": 0.2, "text": body},
        {"type": "event", "attempt": 1, "t": 0.3, "kind": "tool_dispatch",
         "data": {"call_id": ["call_1"], "name": "get_weather"}},
        {"type": "end", "attempt": 1, "t": 0.4, "reason": "eof"},
    ]  # fmt: skip
    path = tmp_path / "loop.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    code = main(["analyze", str(path)])
    out, err = capsys.readouterr()
    assert err == "" and code == 0
    assert "tool loop: 1 round(s)" in out and "[0] arguments:" in out


# -- every dialect, every field: one problem each, the rest judged -------------------------------


def judged(body: bytes, dialect: str) -> tuple[Analysis, dict[str, Any]]:
    analysis = Analysis.from_capture(
        load_bytes(body), Settings(dialect=dialect), providers=REGISTRY
    )
    report.to_text(analysis)
    return analysis, report.to_json(analysis)


def test_each_wrong_field_is_named_once_and_the_note_counts_the_rest() -> None:
    odd = [[1], {"a": 1}, True, 1.5, "x"]
    body = sse(
        OPENER,
        *(chat_call(i, "") for i in odd),  # 1-5
        {"choices": [{"index": 0, "delta": {"content": 7}}]},  # 6
        finish("tool_calls"),
        "[DONE]",
    )
    _, doc = judged(body, "openai-chat")
    quirk = wrong_types(doc)
    assert quirk["chunks"] == [1, 2, 3, 4, 5, 6]  # "x" is a string: flagged, still a lane key
    assert quirk["message"].count("expected integer") == 4 and quirk["message"].endswith("2 more")


@pytest.mark.parametrize(
    ("dialect", "event", "path"),
    [
        ("gemini", {"candidates": [{"content": {"parts": [{"functionCall": {"name": 5}}]},
                                    "finishReason": ["STOP"]}]},
         "candidates[0].content.parts[0].functionCall.name"),
        ("gemini", {"candidates": "x"}, "candidates"),
        ("anthropic", {"type": "message_delta", "delta": {"stop_reason": {"x": 1}}},
         "delta.stop_reason"),
        ("anthropic", {"type": "content_block_delta", "index": "1",
                       "delta": {"type": "input_json_delta", "partial_json": 5}},
         "delta.partial_json"),
        ("openai-responses", {"type": "response.function_call_arguments.delta",
                              "output_index": [0], "delta": "{}"}, "output_index"),
        ("openai-chat", {"choices": [{"index": [0], "delta": []}]}, "choices[0].delta"),
        ("openai-chat", {"choices": [], "usage": "lots"}, "usage"),
        # a provider error of the wrong type: flagged, and its text still reported
        ("openai-chat", {"choices": [], "error": [1]}, "error"),
        ("anthropic", {"type": "error", "error": [1]}, "error"),
        ("anthropic", {"type": "error", "error": {"type": "x", "message": {"m": 1}}},
         "error.message"),
        ("openai-responses", {"type": "error", "error": 5}, "error"),
        ("openai-responses", {"type": "response.failed", "response": {"error": [1]}},
         "response.error"),
        ("gemini", {"error": True}, "error"),
        # the tool source the judgement reads when the capture has no request
        ("openai-responses", {"type": "response.created", "response": {"tools": "search"}},
         "response.tools"),
    ],
)  # fmt: skip
def test_every_dialect_flags_a_field_of_the_wrong_type(
    dialect: str, event: dict[str, Any], path: str
) -> None:
    analysis, doc = judged(sse(event), dialect)
    assert f"{path}: expected" in wrong_types(doc)["message"]
    assert analysis.final.state.ended  # the stream was read to its end


def test_the_demo_provider_says_where_the_code_is_shown() -> None:
    from inspector.net.demo.scenarios import NOT_SHOWN

    assert NOT_SHOWN["wire_field_type"].startswith("tests/core/test_hostile_wire.py")


# -- an event that is JSON but no object --------------------------------------------------------


NOT_OBJECTS = [("[1,2]", "array"), ('"str"', "string"), ("123", "integer"), ("null", "null"),
               ("true", "boolean")]  # fmt: skip


@pytest.mark.parametrize(("data", "got"), NOT_OBJECTS)
def test_chat_event_that_is_no_object_is_one_problem(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, data: str, got: str
) -> None:
    """A JSON array, string, number, null or boolean where an event object belongs: one
    ``wire_field_type`` at ``(event)`` on its chunk; the call around it is judged as usual
    and ``[DONE]`` (not JSON) stays the end marker."""
    body = sse(OPENER, data, chat_call(0, '"Oslo"}'), finish("tool_calls"), "[DONE]")
    code, doc = analyze_json(capsys, tmp_path, body)
    quirk = wrong_types(doc)
    assert quirk["chunks"] == [1] and f"(event): expected object, got {got}" in quirk["message"]
    (call,) = doc["tool_calls"]
    assert call["valid"] and call["closed_by"] != "done" and code == 0


@pytest.mark.parametrize("dialect", ["anthropic", "openai-responses", "gemini"])
@pytest.mark.parametrize(("data", "got"), NOT_OBJECTS)
def test_every_dialect_flags_an_event_that_is_no_object(dialect: str, data: str, got: str) -> None:
    analysis, doc = judged(sse(data), dialect)
    assert f"(event): expected object, got {got}" in wrong_types(doc)["message"]
    assert analysis.final.state.ended


def test_a_number_beyond_a_double_is_named_so() -> None:
    """Valid JSON the parser cannot hold (a 400-digit index) is undecodable data whose note
    says why, not only "a frame cut mid-JSON?"."""
    _, doc = judged(sse('{"choices": [{"index": ' + "9" * 400 + "}]}"), "openai-chat")
    (quirk,) = [q for q in doc["quirks"] if q["code"] == "undecodable_data"]
    assert "a number out of range (beyond a double)" in quirk["message"]


def test_a_lone_surrogate_quoted_by_a_client_error_still_serialises() -> None:
    """``make fuzz`` (issue 25's run): a Responses event whose ``type`` is a lone surrogate
    (``"\\udc63"`` escaped in the JSON) was quoted by the openai-python replica's error, and
    the JSON report could not be written as UTF-8."""
    body = b'data: {"type": "\\u00f6\\udc63"}\n\n'
    from inspector.core.providers import OPENAI_RESPONSES

    analysis = Analysis.from_capture(
        load_bytes(body, "s.sse"), Settings(dialect=OPENAI_RESPONSES), providers=REGISTRY
    )
    doc = report.to_json(analysis, source="s.sse")
    text = orjson.dumps(doc).decode()
    assert "\\\\udc63" in text  # the escape, as text
