"""What the realworld streams do not show: the Interactions API's trailing ``[DONE]`` (its
``event: done``), its earlier ``content.*`` events with a whole function call, a step cut off
before its ``step.stop``, its error event; Cohere's error body inside a stream, a call cut
before ``tool-call-end``, and its v1 tool shape.
"""

from __future__ import annotations

from typing import Any

import orjson

from inspector.core.analysis.session import Analysis
from inspector.core.base.model import DeltaKind
from inspector.core.base.settings import Settings
from inspector.core.providers import COHERE_V2, GEMINI_INTERACTIONS, REGISTRY, analyze_bytes
from inspector.core.quirks.codes import DATA_AFTER_DONE, MISSING_DONE
from inspector.core.verdicts.tools import ToolRegistry


def _sse(*events: dict[str, Any], name: bool = False) -> bytes:
    out = b""
    for ev in events:
        head = f"event: {ev.get('event_type') or ev.get('type')}\n".encode() if name else b""
        out += head + b"data: " + orjson.dumps(ev) + b"\n\n"
    return out


def _codes(body: bytes, dialect: str) -> set[str]:
    analysis = Analysis(Settings(dialect=dialect), providers=REGISTRY)
    analysis.feed(body)
    analysis.end()
    return {q.code for q in analysis.final.quirks}


CREATED = {"interaction": {"id": "v1_x", "status": "in_progress"},
           "event_type": "interaction.created"}  # fmt: skip
DONE_OK = {"interaction": {"id": "v1_x", "status": "requires_action"},
           "event_type": "interaction.completed"}  # fmt: skip


def test_a_done_line_after_the_completed_interaction_is_no_data_after_the_end() -> None:
    start = {"index": 0, "step": {"id": "c1", "type": "function_call", "name": "f",
                                  "arguments": {}}, "event_type": "step.start"}  # fmt: skip
    args = {"index": 0, "delta": {"arguments": '{"a":1}', "type": "arguments_delta"},
            "event_type": "step.delta"}  # fmt: skip
    stop = {"index": 0, "event_type": "step.stop"}
    body = _sse(CREATED, start, args, stop, DONE_OK, name=True) + b"event: done\ndata: [DONE]\n\n"
    state = analyze_bytes(body)
    assert state.dialect_name == GEMINI_INTERACTIONS and state.calls[0].arguments == '{"a":1}'
    assert not _codes(body, GEMINI_INTERACTIONS) & {DATA_AFTER_DONE, MISSING_DONE}


def test_the_earlier_content_events_give_a_whole_function_call() -> None:
    start = {"index": 0, "content": {"type": "function_call"}, "event_type": "content.start"}
    whole = {"index": 0, "delta": {"type": "function_call", "id": "c9", "name": "get",
                                   "arguments": {"city": "Oslo"}},
             "event_type": "content.delta"}  # fmt: skip
    stop = {"index": 0, "event_type": "content.stop"}
    state = analyze_bytes(_sse(CREATED, start, whole, stop, DONE_OK))
    (call,) = [c for c in state.calls if c.name == "get"]
    assert (call.id, call.arguments) == ("c9", '{"city":"Oslo"}')


def test_a_step_cut_before_its_stop_is_truncated_and_an_error_event_is_an_error() -> None:
    start = {"index": 0, "step": {"id": "c1", "type": "function_call", "name": "f"},
             "event_type": "step.start"}  # fmt: skip
    args = {"index": 0, "delta": {"arguments": '{"a":', "type": "arguments_delta"},
            "event_type": "step.delta"}  # fmt: skip
    err = {"error": {"code": 500, "message": "Internal error encountered."},
           "event_type": "error"}  # fmt: skip
    state = analyze_bytes(_sse(CREATED, start, args, err))
    assert state.calls[0].truncated and state.calls[0].close_reason == "end_of_stream"
    assert state.errors and "Internal error encountered." in str(state.errors[0])


def test_cohere_cut_call_and_in_stream_error() -> None:
    start = {
        "type": "tool-call-start",
        "index": 0,
        "delta": {
            "message": {
                "tool_calls": {
                    "id": "f_1",
                    "type": "function",
                    "function": {"name": "f", "arguments": ""},
                }
            }
        },
    }
    part = {
        "type": "tool-call-delta",
        "index": 0,
        "delta": {"message": {"tool_calls": {"function": {"arguments": '{"a"'}}}},
    }
    end = {"type": "message-end", "delta": {"finish_reason": "ERROR",
                                            "error": "internal server error"}}  # fmt: skip
    state = analyze_bytes(_sse(start, part, end, name=True))
    assert state.dialect_name == COHERE_V2
    (call,) = state.calls
    assert call.truncated and state.finish_reason == "ERROR"
    assert any(d.kind == DeltaKind.ERROR for d in state.deltas)
    provider = REGISTRY.get(COHERE_V2)
    assert provider.error_message({"id": "x", "message": "invalid api token"}) == (
        "invalid api token"
    )


def test_cohere_v1_tools_are_read_as_its_own_shape() -> None:
    v1 = [{"name": "query_daily_sales_report", "description": "Sales",
           "parameter_definitions": {"day": {"type": "str", "description": "YYYY-MM-DD",
                                             "required": True},
                                     "limit": {"type": "int"}}}]  # fmt: skip
    registry = ToolRegistry.from_definitions(v1, REGISTRY)
    (spec,) = registry
    assert spec.shape == COHERE_V2 and spec.required == ("day",) and registry.warnings == []
