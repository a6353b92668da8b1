"""The Bedrock dialect and provider: ConverseStream events (framed or wrapped), exceptions and
error bodies as the provider's errors, InvokeModelWithResponseStream chunks read as Anthropic
Messages, the checks that apply, recognition, tool definitions, requests and continuations."""

from __future__ import annotations

import base64
from typing import Any

import orjson
from bedrock_fixtures import framed, recorded

from inspector.core.analysis.session import Analysis
from inspector.core.base.model import DeltaKind
from inspector.core.base.provider import LIKELY, NO, PROVES, Head
from inspector.core.base.settings import Settings
from inspector.core.capture.reader import load_bytes
from inspector.core.providers import BEDROCK_CONVERSE, REGISTRY, analyze_bytes, sniff_url
from inspector.core.providers.bedrock_converse.eventstream import (
    CONTENT_TYPE,
    event_frame,
    exception_frame,
)
from inspector.core.verdicts.tools import ToolRegistry

PROVIDER = REGISTRY.get(BEDROCK_CONVERSE)


def lines(*events: dict[str, Any]) -> bytes:
    return b"".join(orjson.dumps(e) + b"\n" for e in events)


START = {"contentBlockStart": {"contentBlockIndex": 0,
         "start": {"toolUse": {"toolUseId": "tooluse_1", "name": "get_weather"}}}}  # fmt: skip


def args(text: Any) -> dict[str, Any]:
    return {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolUse": {"input": text}}}}


STOP = {"contentBlockStop": {"contentBlockIndex": 0}}
END = {"messageStop": {"stopReason": "tool_use"}}


def analysis_of(body: bytes, dialect: str = "auto") -> Analysis:
    return Analysis.from_capture(load_bytes(body), Settings(dialect), providers=REGISTRY)


def test_a_call_opens_with_its_tool_use_id_and_name_and_closes_at_its_block_stop() -> None:
    body = framed(lines({"messageStart": {"role": "assistant"}}, START, args('{"city"'),
                        args(': "Oslo"}'), STOP, END))  # fmt: skip
    final = analysis_of(body).final
    (v,) = final.verdicts
    assert (v.call.id, v.call.name, v.call.arguments, v.call.item_type) == (
        "tooluse_1", "get_weather", '{"city": "Oslo"}', "toolUse"
    )  # fmt: skip
    assert v.valid and final.state.finish_reason == "tool_use" and final.quirks == []


def test_a_call_left_open_by_the_end_is_cut_off() -> None:
    final = analysis_of(framed(lines(START, args('{"city"')))).final
    (v,) = final.verdicts
    assert not v.valid and "truncated" in [p.code for p in v.problems]


def test_arguments_sent_as_an_object_and_a_call_without_id_are_its_quirks() -> None:
    start = {"contentBlockStart": {"contentBlockIndex": 0, "start": {"toolUse": {"name": "f"}}}}
    final = analysis_of(framed(lines(start, args({"city": "Oslo"}), STOP, END))).final
    codes = {q.code for q in final.quirks}
    assert {"arguments_not_string", "missing_call_id"} <= codes


def test_an_exception_frame_is_the_providers_error_and_the_report_goes_on() -> None:
    body = framed(lines(START, args('{"ci'))) + exception_frame(
        "throttlingException", b'{"message":"Too many tokens, please wait before trying again."}'
    )
    final = analysis_of(body).final
    (err,) = final.state.errors
    assert err.value == ("throttlingException: Too many tokens, please wait before trying again.")
    assert [v.call.arguments for v in final.verdicts] == ['{"ci']


def test_a_wrapped_exception_line_and_an_error_body_are_errors_too() -> None:
    state = analyze_bytes(lines({"validationException": {"message": "bad input"}}),
                          BEDROCK_CONVERSE)  # fmt: skip
    assert [d.value for d in state.errors] == ["validationException: bad input"]
    state = analyze_bytes(lines({"message": "The security token is invalid."}), BEDROCK_CONVERSE)
    assert [d.value for d in state.errors] == ["The security token is invalid."]
    assert PROVIDER.error_message(PROVIDER.error_body(403, "denied")) == "denied"


def test_reasoning_text_and_usage_are_read() -> None:
    state = analyze_bytes(recorded()[8].framed, BEDROCK_CONVERSE)  # amazon-bedrock-reasoning
    assert "".join(state.reasoning).startswith("Let me count the r's in")
    assert "".join(state.text).startswith("There are **3** r's")
    assert state.usage == {"inputTokens": 51, "outputTokens": 94, "serverToolUsage": {},
                           "totalTokens": 145}  # fmt: skip
    kinds = [d.kind for d in state.deltas]
    assert DeltaKind.UNKNOWN not in kinds and kinds.count(DeltaKind.META) >= 2  # signature


def test_an_unknown_event_is_kept_verbatim() -> None:
    state = analyze_bytes(event_frame("contentBlockFuture", b'{"x":1}'), BEDROCK_CONVERSE)
    (d,) = state.deltas
    assert d.kind == DeltaKind.UNKNOWN and d.value == {"x": 1}


# -- InvokeModelWithResponseStream: Anthropic Messages events in base64 chunks -----------------

ANTHROPIC_EVENTS = [
    {"type": "message_start", "message": {"id": "msg_bdrk_1", "type": "message",
     "role": "assistant", "model": "claude", "content": [], "usage": {"input_tokens": 9}}},
    {"type": "content_block_start", "index": 0,
     "content_block": {"type": "tool_use", "id": "toolu_bdrk_1", "name": "get_weather",
                       "input": {}}},
    {"type": "content_block_delta", "index": 0,
     "delta": {"type": "input_json_delta", "partial_json": '{"city": '}},
    {"type": "content_block_delta", "index": 0,
     "delta": {"type": "input_json_delta", "partial_json": '"Oslo"}'}},
    {"type": "content_block_stop", "index": 0},
    {"type": "message_delta", "delta": {"stop_reason": "tool_use"},
     "usage": {"output_tokens": 12}},
    {"type": "message_stop", "amazon-bedrock-invocationMetrics": {"inputTokenCount": 9}},
]  # fmt: skip


def chunk(event: dict[str, Any]) -> bytes:
    return event_frame("chunk", orjson.dumps({"bytes": base64.b64encode(orjson.dumps(event))
                                              .decode()}))  # fmt: skip


def test_invoke_model_chunks_are_read_as_anthropic_messages_inside_the_frames() -> None:
    body = b"".join(map(chunk, ANTHROPIC_EVENTS))
    analysis = analysis_of(body)
    assert analysis.dialect == BEDROCK_CONVERSE
    (v,) = analysis.final.verdicts
    assert (v.call.id, v.call.name, v.call.arguments, v.valid) == (
        "toolu_bdrk_1", "get_weather", '{"city": "Oslo"}', True
    )  # fmt: skip
    state = analysis.final.state
    assert state.finish_reason == "tool_use" and state.usage == {"output_tokens": 12}
    assert [ev.event for ev in state.events] == ["chunk"] * len(ANTHROPIC_EVENTS)
    assert analysis.final.quirks == []


def test_a_chunk_that_is_not_base64_json_is_unknown_not_a_crash() -> None:
    state = analyze_bytes(event_frame("chunk", b'{"bytes":"%%%"}'), BEDROCK_CONVERSE)
    (d,) = state.deltas
    assert d.kind == DeltaKind.UNKNOWN and "base64" in d.value["undecodable"]


# -- recognition, tools, requests ---------------------------------------------------------------


def test_recognition_proves_frames_urls_and_the_content_type_and_finds_lines_likely() -> None:
    rec = recorded()[2]
    assert PROVIDER.recognises(Head((), rec.framed[:256]), None, None) == PROVES
    assert PROVIDER.recognises(Head((), rec.framed[:12]), None, None) == LIKELY
    assert PROVIDER.recognises(Head((), rec.lines), None, None) == LIKELY
    assert PROVIDER.recognises(Head(), CONTENT_TYPE, None) == PROVES
    for other in (b'{"id":"chatcmpl-1"}\n', b"data: {}\n\n", b'{"message":"x"}\n', b"\x00" * 40):
        assert PROVIDER.recognises(Head((), other), None, None) == NO
    url = "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-v2%3A1/"
    assert sniff_url(url + "converse-stream") == BEDROCK_CONVERSE
    assert sniff_url(url + "invoke-with-response-stream") == BEDROCK_CONVERSE


def test_tool_config_tools_are_read_and_calls_checked_against_them() -> None:
    neutral = [
        {
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
    ]
    config = {"tools": [*PROVIDER.tools(neutral), {"cachePoint": {"type": "default"}}]}
    registry = ToolRegistry.from_definitions(config, REGISTRY)
    assert registry.warnings == [] and list(registry.names()) == ["get_weather"]
    body = framed(lines(START, args('{"town": "Oslo"}'), STOP, END))
    analysis = Analysis.from_capture(load_bytes(body), tools=registry, providers=REGISTRY)
    (v,) = analysis.final.verdicts
    assert not v.valid and [p.code for p in v.problems] == ["missing_required"]


def test_a_request_body_lists_its_tools_under_tool_config() -> None:
    neutral = [
        {
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
    ]
    wire = PROVIDER.request("https://b", "m", [{"role": "user", "content": "hi"}], neutral)
    registry = ToolRegistry.from_definitions(wire.body, REGISTRY)
    assert registry.warnings == [] and list(registry.names()) == ["get_weather"]
    assert ToolRegistry.from_definitions({"messages": []}, REGISTRY).warnings == []


def test_the_request_and_a_continuation_are_in_converse_shape() -> None:
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]
    wire = PROVIDER.request("https://bedrock", "us.anthropic.claude:0", messages, [])
    assert wire.url == "https://bedrock/model/us.anthropic.claude%3A0/converse-stream"
    assert wire.body == {"messages": [{"role": "user", "content": [{"text": "hi"}]}],
                         "inferenceConfig": {"maxTokens": 1024},
                         "system": [{"text": "Be brief."}]}  # fmt: skip
    analysis = analysis_of(framed(lines(START, args('{"city": "Oslo"}'), STOP, END)))
    turn = analysis.assistant_turn(analysis.final)

    class Result:
        call_id, text, is_error = "tooluse_1", "12 C", False

    body = dict(wire.body)
    PROVIDER.append_turn(body, turn, [Result()])
    assert body["messages"][-2:] == [
        {"role": "assistant", "content": [{"toolUse": {"toolUseId": "tooluse_1",
                                                       "name": "get_weather",
                                                       "input": {"city": "Oslo"}}}]},
        {"role": "user", "content": [{"toolResult": {"toolUseId": "tooluse_1",
                                                     "content": [{"text": "12 C"}],
                                                     "status": "success"}}]},
    ]  # fmt: skip
