"""The pure continuation builder: exact next-round bodies per dialect, ids echoed consistently."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from inspector.core.analysis.continuation import (
    AssistantCall,
    AssistantTurn,
    ToolResult,
    build_continuation,
    parse_arguments,
)
from inspector.core.analysis.session import Analysis
from inspector.core.providers import REGISTRY

WEATHER = AssistantCall("call_1", "get_weather", '{"city": "Paris"}', {"city": "Paris"},
                        wire_id="call_1", slot=0)  # fmt: skip
REPAIRED = AssistantCall("call00001", "fail", "", {}, wire_id=None, slot=1)
TURN = AssistantTurn("Checking.", "", (WEATHER, REPAIRED))
SHAPED = ToolResult.of(
    "call_1", "get_weather", {"output": "Paris: 18 °C", "title": "Weather", "metadata": {"t": 18}}
)
ERROR = ToolResult("call00001", "fail", "RuntimeError: boom", is_error=True, error_kind="raised")
PREFIX: dict[str, Any] = {"model": "m", "stream": True}


def test_openai_chat_exact_shape_and_repaired_id() -> None:
    body = {**PREFIX, "messages": [{"role": "user", "content": "hi"}]}
    before = copy.deepcopy(body)
    chat = REGISTRY.get("openai-chat")
    out = build_continuation(chat, body, TURN, [ERROR, SHAPED])  # any result order
    assert body == before  # the previous body is never modified
    assert out["messages"][1:] == [
        {"role": "assistant", "content": "Checking.", "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
            {"id": "call00001", "type": "function",
             "function": {"name": "fail", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "Paris: 18 °C"},
        {"role": "tool", "tool_call_id": "call00001", "content": "Error: RuntimeError: boom"},
    ]  # fmt: skip
    assert out["model"] == "m" and out["stream"] is True


def test_responses_items_by_call_id() -> None:
    out = build_continuation(
        REGISTRY.get("openai-responses"), {**PREFIX, "input": "hi"}, TURN, [SHAPED, ERROR]
    )
    assert out["input"] == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "Checking."},
        {"type": "function_call", "call_id": "call_1", "name": "get_weather",
         "arguments": '{"city": "Paris"}'},
        {"type": "function_call", "call_id": "call00001", "name": "fail", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_1", "output": "Paris: 18 °C"},
        {"type": "function_call_output", "call_id": "call00001",
         "output": "Error: RuntimeError: boom"},
    ]  # fmt: skip


def test_anthropic_blocks_with_parsed_input_and_is_error() -> None:
    body = {**PREFIX, "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}
    out = build_continuation(REGISTRY.get("anthropic"), body, TURN, [SHAPED, ERROR])
    assert out["messages"][1:] == [
        {"role": "assistant", "content": [
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "call_1", "name": "get_weather",
             "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "call00001", "name": "fail", "input": {}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "call_1", "content": "Paris: 18 °C",
             "is_error": False},
            {"type": "tool_result", "tool_use_id": "call00001",
             "content": "Error: RuntimeError: boom", "is_error": True}]},
    ]  # fmt: skip


def test_gemini_parts_ids_only_when_sent_and_signature_echoed() -> None:
    signed = AssistantCall("call00000", "get_weather", '{"city":"Paris"}', {"city": "Paris"},
                           wire_id=None, extra={"thoughtSignature": "c2ln"})  # fmt: skip
    turn = AssistantTurn("", "thinking", (signed,))
    result = ToolResult.of("call00000", "get_weather", {"temp": 18})
    gemini = REGISTRY.get("gemini")
    out = build_continuation(gemini, {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]},
                             turn, [result])  # fmt: skip
    assert out["contents"][1:] == [
        {"role": "model", "parts": [
            {"text": "thinking", "thought": True},
            {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}},
             "thoughtSignature": "c2ln"}]},
        {"role": "user", "parts": [
            {"functionResponse": {"name": "get_weather", "response": {"output": '{"temp":18}'}}}]},
    ]  # fmt: skip


def test_every_call_needs_a_result() -> None:
    with pytest.raises(ValueError, match="call00001"):
        build_continuation(REGISTRY.get("openai-chat"), {"messages": []}, TURN, [SHAPED])
    with pytest.raises(ValueError, match="dialect"):
        build_continuation(REGISTRY.get("cohere"), {}, TURN, [SHAPED, ERROR])


def test_result_shapes_title_metadata_and_text() -> None:
    assert (SHAPED.title, SHAPED.metadata, SHAPED.text) == ("Weather", {"t": 18}, "Paris: 18 °C")
    plain = ToolResult.of("c", "search", [{"path": "a.md"}])
    assert plain.title is None and plain.metadata is None and plain.text == '[{"path":"a.md"}]'
    odd = ToolResult.of("c", "x", {"output": "o", "extra": 1})  # not the {output, …} shape
    assert odd.title is None and odd.text == '{"output":"o","extra":1}'
    back = ToolResult.from_json(SHAPED.to_json())
    assert back == SHAPED and back.status == "ok" and ERROR.status == "error"


def test_tool_finish_per_dialect_and_argument_parsing() -> None:
    chat, claude, gemini = (REGISTRY.get(n) for n in ("openai-chat", "anthropic", "gemini"))
    assert chat.is_tool_finish("tool_calls", 1)
    assert not chat.is_tool_finish("stop", 1)  # finish_reason_mismatch stops a loop
    assert claude.is_tool_finish("tool_use", 2)
    assert not claude.is_tool_finish("end_turn", 2)
    assert gemini.is_tool_finish("STOP", 1) and not gemini.is_tool_finish("STOP", 0)
    assert REGISTRY.get("openai-responses").is_tool_finish("completed", 1)
    assert parse_arguments("  ") == {} and parse_arguments("[1]") is None
    assert parse_arguments('{"a": 1}') == {"a": 1} and parse_arguments("{") is None


def test_assistant_turn_repairs_a_missing_id_consistently() -> None:
    # a named openai-chat call with no id at all: the id repair gives it one; the turn uses it
    body = (b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,'
            b'"function":{"name":"get_weather","arguments":"{\\"city\\":\\"Paris\\"}"}}]}}]}\n\n'
            b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\n'
            b"data: [DONE]\n\n")  # fmt: skip
    analysis = Analysis(providers=REGISTRY)
    analysis.feed(body)
    analysis.end()
    turn = analysis.assistant_turn(analysis.final)
    (call,) = turn.calls
    assert call.id == "call00000" and call.repaired and call.input == {"city": "Paris"}
    result = ToolResult.of(call.id, call.name, "18 °C")
    out = build_continuation(REGISTRY.get("openai-chat"), {"messages": []}, turn, [result])
    assert out["messages"][0]["tool_calls"][0]["id"] == out["messages"][1]["tool_call_id"]
