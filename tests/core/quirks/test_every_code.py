"""Provider quirks: every code of the registry on a small hand-built stream, a near miss for each.

Each stream is written in its dialect's wire format and run through ``analyze_bytes``; the
expected ``chunks`` are the SSE event sequence numbers (from 0, comments and wire errors
included) counted by hand in the comment beside each event. ``_quirks`` also checks, for every
stream, that ``absent`` and ``literal`` report the same codes with the same chunks, apart from
the four codes that describe routing (``ROUTING``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import pytest
from conftest import REPO, all_real_fixtures

from core.quirks.test_reported_quirks import REPORTED_NEGATIVE, REPORTED_POSITIVE
from inspector.core.base.settings import ABSENT, EMPTY_ID_POLICIES, LITERAL
from inspector.core.calls.stream import StreamState
from inspector.core.providers import REGISTRY, analyze_bytes
from inspector.core.providers.bedrock_converse.eventstream import event_frame
from inspector.core.quirks.codes import ORDER
from inspector.core.quirks.detect import QuirkScan, detect

ROUTING = {
    "orphan_id_only_entry",
    "id_changed_mid_call",
    "name_changed_mid_call",
    "fragment_after_close",
}
"""Codes that depend on how a policy routed the fragments; every other code is wire-only."""

_ = object()
"""A key left out of the JSON (as opposed to null or "")."""

# -- wire builders -------------------------------------------------------------------------------


def tc(index: Any = _, id: Any = _, name: Any = _, args: Any = _, type: Any = _) -> dict[str, Any]:
    """One ``delta.tool_calls[]`` entry; arguments left as given (a dict stays a JSON object)."""
    entry: dict[str, Any] = {}
    fn: dict[str, Any] = {}
    for key, value in (("index", index), ("id", id), ("type", type)):
        if value is not _:
            entry[key] = value
    for key, value in (("name", name), ("arguments", args)):
        if value is not _:
            fn[key] = value
    entry["function"] = fn
    return entry


def chunk(*calls: dict[str, Any], finish: Any = None, **delta: Any) -> dict[str, Any]:
    """A ``chat.completion.chunk`` with one choice; ``delta`` keys as given, then tool_calls."""
    if calls:
        delta["tool_calls"] = list(calls)
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def usage_only() -> dict[str, Any]:
    """OpenAI's ``stream_options.include_usage`` final chunk."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": [],
        "usage": {"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12},
    }


def frame(item: Any) -> bytes:
    """A dict as one ``data:`` event; bytes/str verbatim (comments, cut frames …)."""
    if isinstance(item, bytes):
        return item
    if isinstance(item, str):
        return item.encode()
    return b"data: " + json.dumps(item, ensure_ascii=False).encode() + b"\n\n"


DONE = b"data: [DONE]\n\n"


def chat(*items: Any, done: bool = True) -> bytes:
    """An OpenAI-compatible Chat Completions body, ``data: [DONE]`` last unless ``done=False``."""
    return b"".join(frame(i) for i in items) + (DONE if done else b"")


def typed(*events: dict[str, Any]) -> bytes:
    """``event: <type>`` / ``data: {...}`` pairs (Anthropic Messages, OpenAI Responses)."""
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


# Anthropic Messages
A_START = {
    "type": "message_start",
    "message": {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude",
        "content": [],
        "stop_reason": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    },
}
A_PING = {"type": "ping"}
A_END = {"type": "message_stop"}


def a_text(index: int, text: str) -> list[dict[str, Any]]:
    return [
        {
            "type": "content_block_start",
            "index": index,
            "content_block": {"type": "text", "text": ""},
        },
        {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": "text_delta", "text": text},
        },
    ]


def a_tool(index: int, id: str, name: str) -> dict[str, Any]:
    return {
        "type": "content_block_start",
        "index": index,
        "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}},
    }


def a_json(index: int, partial: str) -> dict[str, Any]:
    return {
        "type": "content_block_delta",
        "index": index,
        "delta": {"type": "input_json_delta", "partial_json": partial},
    }


def a_stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


def a_reason(reason: str) -> dict[str, Any]:
    return {
        "type": "message_delta",
        "delta": {"stop_reason": reason, "stop_sequence": None},
        "usage": {"output_tokens": 20},
    }


# OpenAI Responses
R_CREATED = {
    "type": "response.created",
    "response": {"id": "resp_1", "status": "in_progress", "output": []},
}
R_COMPLETED = {
    "type": "response.completed",
    "response": {"id": "resp_1", "status": "completed", "usage": {"total_tokens": 9}},
}


def r_item(kind: str, index: int, args: str) -> dict[str, Any]:
    return {
        "type": f"response.output_item.{kind}",
        "output_index": index,
        "item": {
            "id": f"fc_{index}",
            "type": "function_call",
            "status": "in_progress",
            "call_id": f"call_{index}",
            "name": "weather",
            "arguments": args,
        },
    }


def r_delta(index: int, delta: str) -> dict[str, Any]:
    return {
        "type": "response.function_call_arguments.delta",
        "item_id": f"fc_{index}",
        "output_index": index,
        "delta": delta,
    }


def r_args_done(index: int, args: str) -> dict[str, Any]:
    return {
        "type": "response.function_call_arguments.done",
        "item_id": f"fc_{index}",
        "output_index": index,
        "arguments": args,
    }


# Gemini streamGenerateContent?alt=sse (CRLF framing, as Google sends it)
def gemini(*chunks: dict[str, Any]) -> bytes:
    return b"".join(b"data: " + json.dumps(c).encode() + b"\r\n\r\n" for c in chunks)


def g_chunk(*parts: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    cand: dict[str, Any] = {"content": {"parts": list(parts), "role": "model"}, "index": 0}
    if finish is not None:
        cand["finishReason"] = finish
    return {"candidates": [cand], "modelVersion": "gemini-2.5-flash"}


def g_call(name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"functionCall": {"name": name, "args": args}}


# -- analysis --------------------------------------------------------------------------------


def _codes(state: StreamState) -> dict[str, list[int]]:
    return {q.code: q.chunks for q in detect(state)}


def _quirks(body: bytes, dialect: str = "auto", policy: str = ABSENT) -> dict[str, list[int]]:
    """code -> chunks under ``policy``, after checking both policies agree off ``ROUTING``."""
    found = {p: _codes(analyze_bytes(body, dialect, p)) for p in EMPTY_ID_POLICIES}
    wire = [{c: ch for c, ch in found[p].items() if c not in ROUTING} for p in EMPTY_ID_POLICIES]
    assert wire[0] == wire[1], "quirks off ROUTING must not depend on the empty-id policy"
    return found[policy]


# -- the streams ----------------------------------------------------------------------------------

# The empty-id accumulator bug (glm-5.2 via an OpenAI-compatible relay): two calls, continuations
# with id "" name "".
GLM_EMPTY_ID = chat(
    chunk(role="assistant", content=""),  # 0
    chunk(tc(0, "call_b45", "ExecCommand", "{", "function")),  # 1
    chunk(tc(0, "", "", '"cmd": ', "function")),  # 2
    chunk(tc(0, "", "", '"Get-Date"', "function")),  # 3
    chunk(tc(0, "", "", "}", "function")),  # 4
    chunk(tc(1, "call_907", "Glob", "{", "function")),  # 5
    chunk(tc(1, "", "", '"pattern": ', "function")),  # 6
    chunk(tc(1, "", "", '"*.md"}', "function")),  # 7
    chunk(finish="tool_calls"),  # 8
)  # 9 [DONE]

# The same calls the qwen way: continuations omit id and name entirely.
QWEN_OMITTED = chat(
    chunk(tc(0, "call_b45", "ExecCommand", "{", "function"), role="assistant"),  # 0
    chunk(tc(0, args='"cmd": "Get-Date"', type="function")),  # 1
    chunk(tc(0, args="}", type="function")),  # 2
    chunk(tc(1, "call_907", "Glob", '{"pattern": ', "function")),  # 3
    chunk(tc(1, args='"*.md"}', type="function")),  # 4
    chunk(finish="tool_calls"),  # 5
)

# qwen3-max on DashScope: "" ids, then a trailing arguments:"" chunk, then a usage-only chunk.
QWEN_TRAILING = chat(
    chunk(tc(0, "call_eee1", "weather", "", "function"), role="assistant"),  # 0
    chunk(tc(0, "", args='{"location": "San Francisco', type="function")),  # 1
    chunk(tc(0, "", args='"}', type="function")),  # 2
    chunk(tc(0, "", args="", type="function")),  # 3
    chunk(finish="tool_calls"),  # 4
    usage_only(),  # 5
)

# zai-glm-5-2 relayed via Mistral: the continuation omits id but carries "name": "".
GLM_EMPTY_NAME = chat(
    chunk(tc(0, "chatcmpl-tool-9f14", "webSearchTool", "", "function"), role="assistant"),  # 0
    chunk(tc(0, name="", args='{"query": "Berlin weather"}')),  # 1
    chunk(finish="tool_calls"),  # 2
)

NULL_STRING_ID = chat(  # glm-5-2 hosted by Mistral: continuations carry the string "null"
    chunk(tc(0, "call_1", "get_weather", '{"city": ', "function")),  # 0
    chunk(tc(0, "null", args='"Paris"}')),  # 1
    chunk(finish="tool_calls"),  # 2
)

NULL_ID = chat(
    chunk(tc(0, "call_1", "get_weather", '{"city": ', "function")),  # 0
    chunk(tc(0, None, None, '"Paris"}')),  # 1
    chunk(finish="tool_calls"),  # 2
)

MISTRAL_WHOLE_NO_INDEX = chat(  # no index, no type, 9-character id, finish in the same chunk
    chunk(role="assistant", content=""),  # 0
    chunk(
        tc(id="gSIMJiOkT", name="weather", args='{"location": "Paris"}'), finish="tool_calls"
    ),  # 1
)

OLLAMA_NO_INDEX = chat(  # Ollama < 0.4.7: a whole call per chunk, no index
    chunk(tc(id="call_a1", name="get_time", args='{"tz": "UTC"}'), role="assistant"),  # 0
    chunk(tc(id="call_b2", name="get_date", args="{}")),  # 1
    chunk(finish="tool_calls"),  # 2
)

# Ollama / Qwen3 on dynamo / Claude via Bedrock: every parallel call at index 0.
ALL_AT_INDEX_0 = chat(
    chunk(tc(0, "call_a", "write_file", '{"path": "a"}', "function")),  # 0
    chunk(tc(0, "call_b", "write_file", '{"path": "b"}', "function")),  # 1
    chunk(tc(0, "call_c", "write_file", '{"path": "c"}', "function")),  # 2
    chunk(finish="tool_calls"),  # 3
)

REUSED_WITH_FRAGMENTS = chat(  # streamed calls, the second opening at the first one's index
    chunk(tc(0, "call_a", "read", '{"p": ', "function")),  # 0
    chunk(tc(0, args='"a"}')),  # 1
    chunk(tc(0, "call_b", "read", '{"p": ', "function")),  # 2
    chunk(tc(0, args='"b"}')),  # 3
    chunk(finish="tool_calls"),  # 4
)

CLAUDE_GATEWAY_INDEX_1 = chat(  # text first, then the only call at index 1
    chunk(role="assistant"),  # 0
    chunk(content="Reading it."),  # 1
    chunk(tc(1, "toolu_1", "read_file", "", "function")),  # 2
    chunk(tc(1, args='{"path": "a.txt"}')),  # 3
    chunk(finish="tool_calls"),  # 4
)

INDEX_GAP = chat(
    chunk(tc(0, "call_a", "a", "{}", "function")),  # 0
    chunk(tc(2, "call_c", "c", "{}", "function")),  # 1
    chunk(finish="tool_calls"),  # 2
)

VLLM_DUPLICATE_INDEX = chat(  # speculative decoding: two entries for index 0 in one chunk
    chunk(tc(0, "call_1", "f", "", "function")),  # 0
    chunk(tc(0, args='{"a": '), tc(0, args="1}")),  # 1
    chunk(finish="tool_calls"),  # 2
)

FIREWORKS_REPEATED_ID = chat(  # id, type and name repeated on every chunk
    chunk(tc(0, "call_abc", "search", '{"q": ', "function")),  # 0
    chunk(tc(0, "call_abc", "search", '"glm"', "function")),  # 1
    chunk(tc(0, "call_abc", "search", "}", "function")),  # 2
    chunk(finish="tool_calls"),  # 3
)

LMSTUDIO_NEW_ID_EACH_DELTA = chat(  # Gemma on LM Studio: a fresh id, no name, on every delta
    chunk(tc(0, "call_1", "search", '{"q": ', "function")),  # 0
    chunk(tc(0, "call_2", args='"gemma"')),  # 1
    chunk(tc(0, "call_3", args="}")),  # 2
    chunk(finish="tool_calls"),  # 3
)

NAME_CHANGED = chat(
    chunk(tc(0, "call_1", "get_weather", '{"city": ', "function")),  # 0
    chunk(tc(0, name="get_time", args='"Paris"}')),  # 1
    chunk(finish="tool_calls"),  # 2
)

CUMULATIVE = chat(  # DeepSeek / Qianfan: each chunk restates the whole buffer
    chunk(tc(0, "call_1", "f", '{"city', "function")),  # 0
    chunk(tc(0, args='{"city": "Pa')),  # 1
    chunk(tc(0, args='{"city": "Paris"}')),  # 2
    chunk(finish="tool_calls"),  # 3
)

LLAMA_SERVER_OBJECT_ARGS = chat(  # arguments as a JSON object
    chunk(tc(0, "call_1", "get_weather", {"city": "Paris"}, "function")),  # 0
    chunk(finish="tool_calls"),  # 1
)

GROQ_WHOLE_CALL = chat(
    chunk(role="assistant", content=None),  # 0
    chunk(tc(0, "call_g1", "get_weather", '{"city": "Paris"}', "function")),  # 1
    chunk(finish="tool_calls"),  # 2
)

TWO_CHUNK_CALL = chat(
    chunk(tc(0, "call_1", "get_weather", '{"city": ', "function")),  # 0
    chunk(tc(0, args='"Paris"}')),  # 1
    chunk(finish="tool_calls"),  # 2
)

LMSTUDIO_RESPONSES = typed(  # no argument deltas: added -> arguments.done -> item.done
    R_CREATED,  # 0
    r_item("added", 0, ""),  # 1
    r_args_done(0, '{"city":"Paris"}'),  # 2
    r_item("done", 0, '{"city":"Paris"}'),  # 3
    R_COMPLETED,  # 4
)

RESPONSES_NORMAL = typed(
    R_CREATED,  # 0
    r_item("added", 0, ""),  # 1
    r_delta(0, '{"city":'),  # 2
    r_delta(0, '"Paris"}'),  # 3
    r_args_done(0, '{"city":"Paris"}'),  # 4
    r_item("done", 0, '{"city":"Paris"}'),  # 5
    R_COMPLETED,  # 6
)

RESPONSES_DONE_DIFFERS = typed(
    R_CREATED,  # 0
    r_item("added", 0, ""),  # 1
    r_delta(0, '{"city":'),  # 2
    r_delta(0, '"Paris"}'),  # 3
    r_args_done(0, '{"city":"Lyon"}'),  # 4
    r_item("done", 0, '{"city":"Paris"}'),  # 5
    R_COMPLETED,  # 6
)

BACK_TO_CLOSED_INDEX = chat(  # index 0, then 1 (closing 0), then 0 again
    chunk(tc(0, "call_a", "a", '{"x": ', "function")),  # 0
    chunk(tc(1, "call_b", "b", "{}", "function")),  # 1
    chunk(tc(0, args="1}")),  # 2
    chunk(finish="tool_calls"),  # 3
)

ZERO_ARG = chat(
    chunk(tc(0, "call_1", "get_time", "", "function")),  # 0
    chunk(finish="tool_calls"),  # 1
)

BITFUN_ORPHAN = chat(  # a stray id-only entry at index 1 beside a real call
    chunk(tc(0, "call_1", "ls", '{"dir": "."}', "function")),  # 0
    chunk(tc(1, "call_orphan")),  # 1
    chunk(finish="tool_calls"),  # 2
)

ID_ONLY_PRELUDE = chat(  # the id first, then the payload without an id
    chunk(tc(0, "call_1")),  # 0
    chunk(tc(0, name="ls", args='{"dir": "."}')),  # 1
    chunk(finish="tool_calls"),  # 2
)

STOP_WITH_CALLS = chat(  # Gemini's OpenAI-compatible endpoint / vLLM named tool_choice
    chunk(tc(0, "call_1", "get_weather", '{"city": "Paris"}', "function")),  # 0
    chunk(finish="stop"),  # 1
)

NO_FINISH = chat(
    chunk(tc(0, "call_1", "get_weather", '{"city": "Paris"}', "function")),  # 0
)  # 1 [DONE]

NO_DONE = chat(
    chunk(content="Hi", role="assistant"),  # 0
    chunk(finish="stop"),  # 1
    done=False,
)

TEXT_ONLY = chat(
    chunk(content="Hi", role="assistant"),  # 0
    chunk(finish="stop"),  # 1
)  # 2 [DONE]

AFTER_DONE = chat(  # a connection held open after [DONE], still sending
    chunk(content="Hi", role="assistant"),  # 0
    chunk(finish="stop"),  # 1
    DONE,  # 2
    chunk(content=" again"),  # 3
    {"choices": [{"index": 0, "delta": {}, "finish_reason": None}]},  # 4 (no delta)
    done=False,
)

KEEPALIVE_AFTER_DONE = chat(
    chunk(content="Hi", role="assistant"),  # 0
    chunk(finish="stop"),  # 1
    DONE,  # 2
    b": keep-alive\n\n",  # 3
    done=False,
)

USAGE_ON_FINISH = chat(  # mistral: usage rides on the finish chunk, choices not empty
    chunk(content="Hi", role="assistant"),  # 0
    {**chunk(finish="stop"), "usage": {"prompt_tokens": 1, "total_tokens": 2}},  # 1
)

OPENROUTER_COMMENTS = chat(
    b": OPENROUTER PROCESSING\n\n",  # 0
    b": OPENROUTER PROCESSING\n\n",  # 1
    chunk(tc(0, "call_1", "f", '{"a": 1}', "function"), role="assistant"),  # 2
    chunk(finish="tool_calls"),  # 3
)

COMMENT_IN_DATA = chat(  # a proxy re-wrapped the comment as data
    b"data: : OPENROUTER PROCESSING\n\n",  # 0
    chunk(content="Hi", role="assistant"),  # 1
    chunk(finish="stop"),  # 2
)

COLON_TEXT = chat(  # text that starts with a colon is not a keep-alive
    chunk(content=": OPENROUTER PROCESSING", role="assistant"),  # 0
    chunk(finish="stop"),  # 1
)

EMPTY_ROLE = chat(  # zhipu glm-5
    chunk(role="", content="Hi"),  # 0
    chunk(finish="stop"),  # 1
)

ERROR_OBJECT = chat(  # OpenRouter: an error chunk mid-stream, then [DONE]
    chunk(content="Hi", role="assistant"),  # 0
    {"error": {"code": 502, "message": "Provider disconnected"}},  # 1
)

VLLM_ERROR = chat(
    chunk(content="Hi", role="assistant"),  # 0
    {
        "object": "error",
        "message": "out of memory",
        "type": "InternalServerError",
        "code": 500,
    },  # 1
    done=False,
)

ANTHROPIC_ERROR = typed(
    A_START,  # 0
    {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},  # 1
)

ERROR_LOOKING_ARGS = chat(  # "error" inside the arguments is the model's business
    chunk(tc(0, "call_1", "report", '{"error": "disk full"}', "function")),  # 0
    chunk(finish="tool_calls"),  # 1
)

ZAI_CUT_FRAME = chat(  # GLM-5.1 on z.ai: a frame cut mid-JSON, the next data: inline
    chunk(tc(0, "call_1", "f", "", "function"), role="assistant"),  # 0
    b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":'
    b'{"arguments":"{\\"a\\""data: {"choices":[{"index":0,"delta":{"tool_calls":'
    b'[{"index":0,"function":{"arguments":":1}"}}]}}]}\n\n',  # 1
    chunk(finish="tool_calls"),  # 2
)

WRONG_TYPES = chat(  # hostile wire data: each field of the wrong type is one problem
    chunk(tc(0, "call_1", "get_weather", '{"city": ', "function"), role="assistant"),  # 0
    chunk(tc([0], args='"Oslo"}')),  # 1: an index that is an array
    chunk(content="ok"),  # 2
    chunk(finish={"reason": "tool_calls"}),  # 3: a finish reason that is an object
)

BAD_UTF8 = chat(
    chunk(content="Hi", role="assistant"),  # 0
    b'data: {"choices":[{"index":0,"delta":{"content":"caf\xe9"}}]}\n\n',  # 1 error, 2
    chunk(finish="stop"),  # 3
)

_FRAME = event_frame("messageStart", b'{"role":"assistant"}')
_TEXT_FRAME = event_frame("contentBlockDelta", b'{"contentBlockIndex":0,"delta":{"text":"Hi"}}')
BEDROCK_FRAMES = _FRAME + _TEXT_FRAME
BEDROCK_BAD_CRC = _FRAME + _TEXT_FRAME[:-1] + bytes([_TEXT_FRAME[-1] ^ 1])
"""Two Bedrock frames, the second's message CRC one bit off: its event, then the error."""

GOOD_UTF8 = chat(
    chunk(content="工具调用 ✓ 🔧", role="assistant"),  # 0
    chunk(finish="stop"),  # 1
)

TEXT_MODE_SPLIT = chat(  # Hermes/Qwen style call written into content, tag split in two
    chunk(role="assistant", content="Sure. <tool_"),  # 0
    chunk(content='call>{"name": "ls", "arguments": {}}'),  # 1
    chunk(content="</tool_call>"),  # 2
    chunk(finish="stop"),  # 3
)

ANTHROPIC_NORMAL = typed(
    A_START,  # 0
    *a_text(0, "Let me check."),  # 1, 2
    a_stop(0),  # 3
    A_PING,  # 4
    a_tool(1, "toolu_1", "get_weather"),  # 5
    a_json(1, ""),  # 6
    a_json(1, '{"city": '),  # 7
    a_json(1, '"Paris"}'),  # 8
    a_stop(1),  # 9
    a_reason("tool_use"),  # 10
    A_END,  # 11
)

ANTHROPIC_ZERO_ARG = typed(
    A_START,  # 0
    a_tool(1, "toolu_1", "updateIssueList"),  # 1
    A_PING,  # 2
    a_json(1, ""),  # 3
    a_stop(1),  # 4
    a_reason("tool_use"),  # 5
    A_END,  # 6
)

ANTHROPIC_INTERLEAVED = typed(  # parallel tool_use blocks interleaving their deltas
    A_START,  # 0
    a_tool(1, "toolu_1", "a"),  # 1
    a_tool(2, "toolu_2", "b"),  # 2
    a_json(1, '{"x": '),  # 3
    a_json(2, '{"y": '),  # 4
    a_json(1, "1}"),  # 5
    a_json(2, "2}"),  # 6
    a_stop(1),  # 7
    a_stop(2),  # 8
    a_reason("tool_use"),  # 9
    A_END,  # 10
)

ANTHROPIC_NO_STOP = typed(
    A_START,  # 0
    *a_text(0, "Hi"),  # 1, 2
    a_stop(0),  # 3
    a_reason("end_turn"),  # 4
)

RESPONSES_NO_COMPLETED = typed(
    R_CREATED,  # 0
    r_item("added", 0, ""),  # 1
    r_delta(0, "{}"),  # 2
)

GEMINI_CALL = gemini(
    g_chunk(g_call("get_weather", {"city": "Paris"})),  # 0
    g_chunk({"text": ""}, finish="STOP"),  # 1
)

GEMINI_NO_FINISH = gemini(
    g_chunk(g_call("get_weather", {"city": "Paris"})),  # 0
)


# -- one test per code: the quirk shows, at exactly these chunks ---------------------------------


@dataclass
class Case:
    code: str
    body: bytes
    chunks: list[int]
    dialect: str = "auto"


POSITIVE: dict[str, Case] = {
    "glm-empty-id": Case("empty_string_continuation_id", GLM_EMPTY_ID, [2, 3, 4, 6, 7]),
    "qwen-empty-id": Case("empty_string_continuation_id", QWEN_TRAILING, [1, 2, 3]),
    "glm-empty-name": Case("empty_string_continuation_name", GLM_EMPTY_ID, [2, 3, 4, 6, 7]),
    "glm-mistral-empty-name": Case("empty_string_continuation_name", GLM_EMPTY_NAME, [1]),
    "null-string-id": Case("null_string_id", NULL_STRING_ID, [1]),
    "null-id": Case("null_id", NULL_ID, [1]),
    "mistral-no-index": Case("missing_index", MISTRAL_WHOLE_NO_INDEX, [1]),
    "ollama-no-index": Case("missing_index", OLLAMA_NO_INDEX, [0, 1]),
    "all-at-index-0": Case("index_reused_with_new_id", ALL_AT_INDEX_0, [1, 2]),
    "reused-streamed": Case("index_reused_with_new_id", REUSED_WITH_FRAGMENTS, [2]),
    "index-starts-at-1": Case("sparse_index", CLAUDE_GATEWAY_INDEX_1, [2]),
    "index-gap": Case("sparse_index", INDEX_GAP, [1]),
    "vllm-duplicate": Case("duplicate_index_in_chunk", VLLM_DUPLICATE_INDEX, [1]),
    "fireworks-id-repeated": Case("id_repeated_every_chunk", FIREWORKS_REPEATED_ID, [1, 2]),
    "lmstudio-new-id": Case("id_changed_mid_call", LMSTUDIO_NEW_ID_EACH_DELTA, [1, 2]),
    "name-changed": Case("name_changed_mid_call", NAME_CHANGED, [1]),
    "cumulative": Case("cumulative_arguments", CUMULATIVE, [1, 2]),
    "llama-server-object": Case("arguments_not_string", LLAMA_SERVER_OBJECT_ARGS, [0]),
    "groq-whole-call": Case("whole_call_single_chunk", GROQ_WHOLE_CALL, [1]),
    "mistral-whole-call": Case("whole_call_single_chunk", MISTRAL_WHOLE_NO_INDEX, [1]),
    "lmstudio-responses": Case("arguments_only_in_done", LMSTUDIO_RESPONSES, [2]),
    "done-differs": Case("done_arguments_mismatch", RESPONSES_DONE_DIFFERS, [4]),
    "back-to-closed": Case("fragment_after_close", BACK_TO_CLOSED_INDEX, [2]),
    "qwen-trailing": Case("trailing_empty_arguments", QWEN_TRAILING, [3]),
    "zero-arg": Case("zero_arg_empty_string", ZERO_ARG, [0]),
    "anthropic-zero-arg": Case("zero_arg_empty_string", ANTHROPIC_ZERO_ARG, [3]),
    "bitfun-orphan": Case("orphan_id_only_entry", BITFUN_ORPHAN, [1]),
    "stop-with-calls": Case("finish_reason_mismatch", STOP_WITH_CALLS, [1]),
    "no-finish": Case("missing_finish_reason", NO_FINISH, [1]),
    "gemini-no-finish": Case("missing_finish_reason", GEMINI_NO_FINISH, [0]),
    "no-done": Case("missing_done", NO_DONE, [1]),
    "anthropic-no-message-stop": Case("missing_done", ANTHROPIC_NO_STOP, [4]),
    "responses-no-completed": Case("missing_done", RESPONSES_NO_COMPLETED, [2]),
    "after-done": Case("data_after_done", AFTER_DONE, [3, 4]),
    "usage-only": Case("usage_only_chunk", QWEN_TRAILING, [5]),
    "openrouter-comments": Case("keepalive_comments", OPENROUTER_COMMENTS, [0, 1]),
    "comment-in-data": Case("keepalive_in_data", COMMENT_IN_DATA, [0]),
    "empty-role": Case("empty_role", EMPTY_ROLE, [0]),
    "error-object": Case("error_after_200", ERROR_OBJECT, [1]),
    "vllm-error": Case("error_after_200", VLLM_ERROR, [1]),
    "anthropic-error": Case("error_after_200", ANTHROPIC_ERROR, [1]),
    "zai-cut-frame": Case("undecodable_data", ZAI_CUT_FRAME, [1]),
    "wrong-types": Case("wire_field_type", WRONG_TYPES, [1, 3]),
    "bad-utf8": Case("invalid_utf8", BAD_UTF8, [1]),
    "bedrock-bad-crc": Case("bad_frame", BEDROCK_BAD_CRC, [2]),
    "text-mode-split": Case("text_mode_tool_call", TEXT_MODE_SPLIT, [0, 1]),
}
POSITIVE.update({name: Case(*case) for name, case in REPORTED_POSITIVE.items()})  # 2025-2026


def test_every_code_has_a_positive_and_a_negative_case() -> None:
    assert {c.code for c in POSITIVE.values()} == set(ORDER)
    assert {code for code, _ in NEGATIVE.values()} == set(ORDER)


@pytest.mark.parametrize("name", list(POSITIVE))
def test_quirk_shows_at_exactly_its_chunks(name: str) -> None:
    case = POSITIVE[name]
    found = _quirks(case.body, case.dialect)
    assert case.code in found, f"{case.code} not detected; got {sorted(found)}"
    assert found[case.code] == case.chunks


# -- near misses: each must NOT show the code -------------------------------------------------

NEGATIVE: dict[str, tuple[str, bytes]] = {
    "qwen-omitted-id": ("empty_string_continuation_id", QWEN_OMITTED),
    "qwen-omitted-name": ("empty_string_continuation_name", QWEN_OMITTED),
    "id-containing-null": (
        "null_string_id",
        chat(chunk(tc(0, "call_null", "f", "{}", "function")), chunk(finish="tool_calls")),
    ),
    "id-omitted-not-null": ("null_id", QWEN_OMITTED),
    "indexed-stream": ("missing_index", GLM_EMPTY_ID),
    "gemini-has-no-index": ("missing_index", GEMINI_CALL),
    "same-id-repeated-at-0": ("index_reused_with_new_id", FIREWORKS_REPEATED_ID),
    "new-id-without-name": ("index_reused_with_new_id", LMSTUDIO_NEW_ID_EACH_DELTA),
    "prelude-then-named-payload": ("index_reused_with_new_id", ID_ONLY_PRELUDE),
    "anthropic-block-index-1": ("sparse_index", ANTHROPIC_NORMAL),
    "index-0-and-1": ("sparse_index", QWEN_OMITTED),
    "indexes-0-1-in-one-chunk": (
        "duplicate_index_in_chunk",
        chat(
            chunk(tc(0, "call_a", "a", "{}", "function"), tc(1, "call_b", "b", "{}", "function")),
            chunk(finish="tool_calls"),
        ),
    ),
    "id-on-first-chunk-only": ("id_repeated_every_chunk", QWEN_OMITTED),
    "id-repeated-on-some": (
        "id_repeated_every_chunk",
        chat(
            chunk(tc(0, "call_abc", "f", '{"q": ', "function")),
            chunk(tc(0, "call_abc", args='"x"')),
            chunk(tc(0, args="}")),
            chunk(finish="tool_calls"),
        ),
    ),
    "new-id-with-name-is-a-new-call": ("id_changed_mid_call", ALL_AT_INDEX_0),
    "empty-name-under-absent": ("name_changed_mid_call", GLM_EMPTY_NAME),
    "split-fragments": (
        "cumulative_arguments",
        chat(
            chunk(tc(0, "call_1", "f", '{"a', "function")),
            chunk(tc(0, args='":1}')),
            chunk(finish="tool_calls"),
        ),
    ),
    "gemini-args-object": ("arguments_not_string", GEMINI_CALL),
    "two-chunk-call": ("whole_call_single_chunk", TWO_CHUNK_CALL),
    "glm-opener": ("whole_call_single_chunk", GLM_EMPTY_ID),
    "responses-with-deltas": ("arguments_only_in_done", RESPONSES_NORMAL),
    "done-agrees": ("done_arguments_mismatch", RESPONSES_NORMAL),
    "anthropic-interleaved": ("fragment_after_close", ANTHROPIC_INTERLEAVED),
    "leading-empty-arguments": ("trailing_empty_arguments", CLAUDE_GATEWAY_INDEX_1),
    "anthropic-leading-empty": ("trailing_empty_arguments", ANTHROPIC_NORMAL),
    "empty-object-arguments": ("zero_arg_empty_string", GROQ_WHOLE_CALL),
    "empty-then-payload": ("zero_arg_empty_string", CLAUDE_GATEWAY_INDEX_1),
    "id-only-prelude": ("orphan_id_only_entry", ID_ONLY_PRELUDE),
    "gemini-stop-with-calls": ("finish_reason_mismatch", GEMINI_CALL),
    "stop-without-calls": ("finish_reason_mismatch", TEXT_ONLY),
    "finish-present": ("missing_finish_reason", TEXT_ONLY),
    "normal-done": ("missing_done", TEXT_ONLY),
    "gemini-has-no-marker": ("missing_done", GEMINI_CALL),
    "keepalive-after-done": ("data_after_done", KEEPALIVE_AFTER_DONE),
    "usage-on-finish-chunk": ("usage_only_chunk", USAGE_ON_FINISH),
    "comment-in-data-is-not-a-comment": ("keepalive_comments", COMMENT_IN_DATA),
    "colon-text": ("keepalive_in_data", COLON_TEXT),
    "role-assistant": ("empty_role", TEXT_ONLY),
    "error-in-arguments": ("error_after_200", ERROR_LOOKING_ARGS),
    "bad-utf8-is-not-a-provider-error": ("error_after_200", BAD_UTF8),
    "done-and-comment-in-data": ("undecodable_data", COMMENT_IN_DATA),
    "odd-values-of-the-right-type": ("wire_field_type", NULL_ID),
    "multibyte-utf8": ("invalid_utf8", GOOD_UTF8),
    "bedrock-frames-whole": ("bad_frame", BEDROCK_FRAMES),
    "bad-crc-is-not-bad-utf8": ("invalid_utf8", BEDROCK_BAD_CRC),
    "tool-call-word": (
        "text_mode_tool_call",
        chat(
            chunk(content="I will use the tool_call API, not <tool>.", role="assistant"),
            chunk(finish="stop"),
        ),
    ),
}
NEGATIVE.update(REPORTED_NEGATIVE)  # the reported quirks' conforming twins


@pytest.mark.parametrize("name", list(NEGATIVE))
def test_near_miss_does_not_show_the_code(name: str) -> None:
    code, body = NEGATIVE[name]
    assert code not in _quirks(body)


# -- what the streams mean beyond the code -------------------------------------------------------


def test_the_empty_id_bug_sequence_accumulates_valid_json_under_absent() -> None:
    state = analyze_bytes(GLM_EMPTY_ID)
    got = [(c.id, c.name, json.loads(c.arguments)) for c in state.acc.assembled()]
    assert got == [
        ("call_b45", "ExecCommand", {"cmd": "Get-Date"}),
        ("call_907", "Glob", {"pattern": "*.md"}),
    ]
    assert set(_quirks(GLM_EMPTY_ID)) == {
        "empty_string_continuation_id",
        "empty_string_continuation_name",
    }


def test_omitted_continuation_fields_are_no_quirk_at_all() -> None:
    state = analyze_bytes(QWEN_OMITTED)
    assert [json.loads(c.arguments) for c in state.calls] == [
        {"cmd": "Get-Date"},
        {"pattern": "*.md"},
    ]
    assert _quirks(QWEN_OMITTED) == {}


@pytest.mark.parametrize("policy", EMPTY_ID_POLICIES)
def test_parallel_calls_at_index_0_stay_separate(policy: str) -> None:
    state = analyze_bytes(ALL_AT_INDEX_0, empty_id=policy)
    assert [(c.id, c.arguments) for c in state.acc.assembled()] == [
        ("call_a", '{"path": "a"}'),
        ("call_b", '{"path": "b"}'),
        ("call_c", '{"path": "c"}'),
    ]
    assert [c.index for c in state.calls] == [0, 0, 0]


def test_parallel_streamed_calls_at_index_0_keep_their_own_fragments() -> None:
    state = analyze_bytes(REUSED_WITH_FRAGMENTS)
    assert [(c.id, c.arguments) for c in state.calls] == [
        ("call_a", '{"p": "a"}'),
        ("call_b", '{"p": "b"}'),
    ]


def test_index_reuse_keeps_each_calls_id_repeat_tally() -> None:
    """The first call at a reused index still counts: its continuations repeated its id."""
    body = chat(
        chunk(tc(0, "call_a", "f", '{"a": ', "function")),  # 0
        chunk(tc(0, "call_a", "f", "1}", "function")),  # 1
        chunk(tc(0, "call_b", "f", '{"b": ', "function")),  # 2
        chunk(tc(0, "call_b", "f", "2}", "function")),  # 3
        chunk(finish="tool_calls"),
    )
    found = _quirks(body)
    assert found["index_reused_with_new_id"] == [2]
    assert found["id_repeated_every_chunk"] == [1, 3]


def test_missing_index_whole_calls_are_separate_calls() -> None:
    state = analyze_bytes(OLLAMA_NO_INDEX)
    assert [(c.id, c.name, c.arguments) for c in state.calls] == [
        ("call_a1", "get_time", '{"tz": "UTC"}'),
        ("call_b2", "get_date", "{}"),
    ]


def test_legacy_function_call_is_not_missing_index() -> None:
    body = chat(
        chunk(function_call={"name": "f", "arguments": '{"a": 1}'}, role="assistant"),
        chunk(finish="function_call"),
    )
    state = analyze_bytes(body)
    assert [(c.name, c.arguments) for c in state.calls] == [("f", '{"a": 1}')]
    assert "missing_index" not in _quirks(body)


def test_repeated_id_is_not_concatenated() -> None:
    (call,) = analyze_bytes(FIREWORKS_REPEATED_ID).calls
    assert (call.id, call.name, call.arguments) == ("call_abc", "search", '{"q": "glm"}')


def test_new_id_each_delta_stays_one_call_under_absent_and_drops_under_literal() -> None:
    (call,) = analyze_bytes(LMSTUDIO_NEW_ID_EACH_DELTA).calls
    assert call.id == "call_1" and call.arguments == '{"q": "gemma"}'
    assert [seq for seq, _ in call.id_changes] == [1, 2]
    (lit,) = analyze_bytes(LMSTUDIO_NEW_ID_EACH_DELTA, empty_id=LITERAL).calls
    assert lit.arguments == '{"q": ' and [f.seq for f in lit.dropped] == [1, 2]
    assert "id_changed_mid_call" not in _quirks(LMSTUDIO_NEW_ID_EACH_DELTA, policy=LITERAL)


def test_arguments_object_is_kept_as_json_text() -> None:
    (call,) = analyze_bytes(LLAMA_SERVER_OBJECT_ARGS).calls
    assert json.loads(call.arguments) == {"city": "Paris"}


def test_lmstudio_responses_arguments_come_from_the_done_event() -> None:
    (call,) = analyze_bytes(LMSTUDIO_RESPONSES).calls
    assert (call.id, call.arguments, call.args_from_final) == ("call_0", '{"city":"Paris"}', True)


def test_every_disagreeing_done_event_is_pointed_at() -> None:
    body = typed(
        R_CREATED,
        r_item("added", 0, ""),
        r_delta(0, "{}"),  # 0, 1, 2
        r_args_done(0, '{"a":1}'),
        r_item("done", 0, '{"a":1}'),
        R_COMPLETED,
    )  # 3, 4
    (call,) = analyze_bytes(body).calls
    assert call.arguments == "{}"  # the deltas win; the done events are compared, not appended
    assert _quirks(body)["done_arguments_mismatch"] == [3, 4]


def test_done_event_with_non_string_arguments_is_still_pointed_at() -> None:
    done = {**r_args_done(0, ""), "arguments": 5}  # not a string: kept by repr, never a crash
    body = typed(r_item("added", 0, ""), done, R_COMPLETED)  # 0, 1, 2
    assert _quirks(body)["arguments_only_in_done"] == [1]


def test_fragment_after_close_is_appended_to_its_call() -> None:
    state = analyze_bytes(BACK_TO_CLOSED_INDEX)
    assert [(c.id, c.arguments) for c in state.calls] == [("call_a", '{"x": 1}'), ("call_b", "{}")]
    assert state.calls[0].late_fragments == [2]


def test_duplicate_index_fragments_are_both_appended_in_order() -> None:
    (call,) = analyze_bytes(VLLM_DUPLICATE_INDEX).calls
    assert call.arguments == '{"a": 1}'
    assert [(f.seq, f.pos) for f in call.fragments] == [(0, 0), (1, 0), (1, 1)]


def test_orphan_is_left_out_of_the_turn() -> None:
    state = analyze_bytes(BITFUN_ORPHAN)
    assert [c.id for c in state.calls] == ["call_1", "call_orphan"]
    assert [c.id for c in state.acc.assembled()] == ["call_1"]
    assert "orphan_id_only_entry" not in _quirks(BITFUN_ORPHAN, policy=LITERAL)  # dropped there
    assert [c.id for c in analyze_bytes(BITFUN_ORPHAN, empty_id=LITERAL).acc.assembled()] == [
        "call_1"
    ]


def test_id_only_prelude_joins_its_payload() -> None:
    state = analyze_bytes(ID_ONLY_PRELUDE)
    assert [(c.id, c.name, c.arguments) for c in state.acc.assembled()] == [
        ("call_1", "ls", '{"dir": "."}')
    ]


def test_zero_arg_tool_has_no_trailing_quirk() -> None:
    found = _quirks(ZERO_ARG)
    assert "trailing_empty_arguments" not in found and "whole_call_single_chunk" not in found
    (call,) = analyze_bytes(ZERO_ARG).calls
    assert call.arguments == ""


def test_length_with_calls_is_a_finish_mismatch() -> None:
    body = chat(chunk(tc(0, "call_1", "f", '{"a": ', "function")), chunk(finish="length"))
    assert _quirks(body)["finish_reason_mismatch"] == [1]


def test_text_mode_tag_in_one_delta_points_at_that_chunk_only() -> None:
    body = chat(
        chunk(content="ok ", role="assistant"),  # 0
        chunk(content='<tool_call>{"name": "ls"}</tool_call>'),  # 1
        chunk(content=" <tool_call>{}</tool_call>"),  # 2
        chunk(finish="stop"),
    )
    assert _quirks(body)["text_mode_tool_call"] == [1, 2]


def test_text_mode_tag_over_three_deltas_points_at_all_three() -> None:
    body = chat(
        chunk(content="<", role="assistant"),
        chunk(content="tool"),  # 0, 1
        chunk(content='_call>{"name": "ls"}'),
        chunk(content="x" * 40),  # 2, 3
        chunk(content="[TOOL_"),
        chunk(content="CALLS]"),  # 4, 5
        chunk(finish="stop"),
    )
    assert _quirks(body)["text_mode_tool_call"] == [0, 1, 2, 4, 5]


def test_data_comment_with_extra_space_is_still_a_keepalive_in_data() -> None:
    body = chat(
        b"data:  : OPENROUTER PROCESSING\n\n",
        chunk(content="Hi"),  # 0, 1
        chunk(finish="stop"),
    )
    found = _quirks(body)
    assert found["keepalive_in_data"] == [0] and "undecodable_data" not in found


def test_id_first_sent_on_a_continuation_is_not_a_repeat() -> None:
    body = chat(
        chunk(tc(0, name="f", args='{"a": ')),  # 0
        chunk(tc(0, "call_1", "f", "1}")),  # 1
        chunk(finish="tool_calls"),
    )
    assert "id_repeated_every_chunk" not in _quirks(body)


def test_choices_number_their_calls_independently() -> None:
    """n=2: choice 0 and choice 1 each have a call at index 0; that is no reuse, no duplicate."""
    body = chat(
        {
            "object": "chat.completion.chunk",
            "choices": [
                {"index": 0, "delta": {"tool_calls": [tc(0, "call_1", "f", '{"a": ')]}},
                {"index": 1, "delta": {"tool_calls": [tc(0, "call_2", "f", '{"a": ')]}},
            ],
        },
        {
            "object": "chat.completion.chunk",
            "choices": [
                {"index": 0, "delta": {"tool_calls": [tc(0, args="1}")]}},
                {"index": 1, "delta": {"tool_calls": [tc(0, args="2}")]}},
            ],
        },
        chunk(finish="tool_calls"),
    )
    found = _quirks(body)
    assert "index_reused_with_new_id" not in found and "duplicate_index_in_chunk" not in found


def test_cut_frame_loses_the_inline_fragment() -> None:
    (call,) = analyze_bytes(ZAI_CUT_FRAME).calls
    assert call.arguments == ""  # what was inside the cut frame never reached the call


def test_sse_comment_and_data_comment_and_error_together() -> None:
    body = chat(
        b": OPENROUTER PROCESSING\n\n",  # 0
        b"data: : OPENROUTER PROCESSING\n\n",  # 1
        {"error": {"code": 429, "message": "Rate limited"}},  # 2
        done=False,
    )
    found = _quirks(body)
    assert found["keepalive_comments"] == [0]
    assert found["keepalive_in_data"] == [1]
    assert found["error_after_200"] == [2]
    assert found["missing_done"] == [2]


# -- policy independence ---------------------------------------------------------------------------

ALL_STREAMS = sorted(
    {case.body for case in POSITIVE.values()} | {body for _, body in NEGATIVE.values()}
)


@pytest.mark.parametrize("body", ALL_STREAMS, ids=lambda b: f"{len(b)}B")
def test_quirks_do_not_depend_on_the_policy(body: bytes) -> None:
    by_policy = [
        {q.code for q in detect(analyze_bytes(body, empty_id=p))} - ROUTING
        for p in EMPTY_ID_POLICIES
    ]
    assert by_policy[0] == by_policy[1]


def test_routing_codes_do_differ_between_policies() -> None:
    """The exceptions are real: each of them shows under one policy only on some stream."""
    differ = set()
    for body in ALL_STREAMS:
        a, lit = (set(_quirks(body, policy=p)) for p in EMPTY_ID_POLICIES)
        differ |= a ^ lit
    assert differ <= ROUTING
    assert {"orphan_id_only_entry", "id_changed_mid_call", "name_changed_mid_call"} <= differ


@pytest.mark.parametrize("path", all_real_fixtures(), ids=lambda p: p.stem)
def test_recorded_streams_are_policy_independent(path: Any) -> None:
    _quirks(path.read_bytes())


def test_docs_explain_every_code_in_table_order() -> None:
    doc = (REPO / "docs" / "quirks.md").read_text()
    assert re.findall(r"^## `(\w+)`", doc, re.M) == list(ORDER)


# -- incremental detection ------------------------------------------------------------------------


def _as_dicts(quirks: list[Any]) -> list[dict[str, Any]]:
    return [q.to_json() for q in quirks]


def _incremental_matches_fresh(body: bytes, step: int) -> None:
    """One QuirkScan asked after every ``step`` bytes, through a policy flip half-way, reports
    exactly what a fresh detect() of the same state does, at every point."""
    state = StreamState(REGISTRY.dialect("auto"), ABSENT)
    scan = QuirkScan()
    cuts = [*range(0, len(body), step), len(body)]
    for n, (a, b) in enumerate(pairwise(cuts)):
        state.feed(body[a:b])
        if n == len(cuts) // 2:
            state.rejudge(LITERAL if state.empty_id == ABSENT else ABSENT)
        assert _as_dicts(detect(state, scan)) == _as_dicts(detect(state)), (n, a)
    state.end()
    assert _as_dicts(detect(state, scan)) == _as_dicts(detect(state))
    state.rejudge(ABSENT if state.empty_id == LITERAL else LITERAL)
    assert _as_dicts(detect(state, scan)) == _as_dicts(detect(state))


@pytest.mark.parametrize(
    "steps",
    [(7, 64), pytest.param((1,), id="bytewise", marks=pytest.mark.slow)],  # O(n^2): -m slow
)
@pytest.mark.parametrize("body", ALL_STREAMS, ids=lambda b: f"{len(b)}B")
def test_incremental_detection_equals_fresh_on_every_quirk_stream(
    body: bytes, steps: tuple[int, ...]
) -> None:
    for step in steps:
        _incremental_matches_fresh(body, step)


@pytest.mark.parametrize("path", all_real_fixtures(), ids=lambda p: p.stem)
def test_incremental_detection_equals_fresh_on_recorded_streams(path: Any) -> None:
    _incremental_matches_fresh(path.read_bytes(), 97)


def test_a_scan_reads_each_delta_once() -> None:
    state = analyze_bytes(LMSTUDIO_NEW_ID_EACH_DELTA)  # id_changed_mid_call under absent only
    scan = QuirkScan()
    first = detect(state, scan)
    done = scan.wire.deltas_done
    assert done == len(state.deltas) > 0
    state.rejudge(LITERAL)  # the wire half is kept across a flip; routing codes are redone
    assert scan.wire.deltas_done == done
    flipped = {q.code for q in detect(state, scan)}
    assert flipped == {q.code for q in detect(state)} != {q.code for q in first}


def test_wire_chunks_stay_sorted_when_a_hit_points_back() -> None:
    from inspector.core.quirks.wirescan import WireScan

    scan = WireScan()
    added: list[int] = []
    for seq in (5, 6, 6, 5, 7, 3, 9):  # a tag straddling chunks reports an earlier one again
        scan.seen.add("text_mode_tool_call", seq)
        added.append(seq)
        assert scan.chunks("text_mode_tool_call") == sorted(set(added))
    assert scan.chunks("text_mode_tool_call") == [3, 5, 6, 7, 9]
    assert list(scan.chunks("missing_done")) == []


def test_finish_reasons_are_judged_per_dialect() -> None:
    """Another dialect's tool finish ("STOP" is Gemini's, "completed" the Responses API's) is
    no tool finish for a Chat Completions stream."""
    for reason in ("STOP", "completed", "tool_use"):
        body = chat(chunk(tc(0, "call_1", "f", "{}", "function")), chunk(finish=reason))
        assert "finish_reason_mismatch" in _quirks(body), reason
    body = chat(chunk(tc(0, "call_1", "f", "{}", "function")), chunk(finish="tool_calls"))
    assert "finish_reason_mismatch" not in _quirks(body)
