"""Hypothesis strategies for hostile wire data: the four dialects' events, and captures.

Every strategy builds JSON of the *right shape* (the keys each dialect reads, nested where it
reads them) whose fields are usually of the right type and sometimes of any other type, or
missing, or odd values of the right type (``""``, ``"null"``, negative or huge integers).
Streams are then framed as SSE (with or without ``event:`` lines, with comments, ``[DONE]``
and cut-off frames) and delivered raw or inside a capture whose records may themselves hold
wrong types.

:func:`inputs` is the one strategy the smoke test and the runner draw from: ``(bytes,
variant)`` pairs for :func:`fuzz.target.run`.
"""

from __future__ import annotations

import base64
import json
from typing import Any, Final

from hypothesis import strategies as st

from inspector.core.capture.format import FORMAT

TOOL_NAMES: Final = ("get_weather", "search", "ExecCommand")
"""Names the generated calls use; the capture's request offers the first two."""

TOOLS: Final = [
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
    },
    {"type": "function", "function": {"name": "search", "parameters": {"type": "object"}}},
]

Draw = st.SearchStrategy[Any]

_SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["", "null", "0", "tool_calls", "stop", "tool_use", "[DONE]"]),
    st.text(max_size=6),
)
ODD: Final[Draw] = st.one_of(
    _SCALAR,
    st.lists(_SCALAR, max_size=3),
    st.dictionaries(st.sampled_from(["index", "type", "a", "0"]), _SCALAR, max_size=2),
)
"""A JSON value of any type (what a hostile field holds instead of the right one)."""


def field(right: Draw) -> Draw:
    """Mostly ``right``, sometimes any value at all."""
    return st.one_of(right, right, right, ODD)


def obj(required: dict[str, Draw], optional: dict[str, Draw] | None = None) -> Draw:
    """A JSON object: ``required`` keys always there (each possibly of a wrong type), the
    ``optional`` ones present or not."""
    return st.fixed_dictionaries(
        {k: field(v) for k, v in required.items()},
        optional={k: field(v) for k, v in (optional or {}).items()},
    )


def const(value: Any) -> Draw:
    return st.just(value)


_INDEX = st.integers(-1, 3)
_ID = st.sampled_from(["call_1", "call_2", "", "null", "toolu_01", "fc_1"])
_NAME = st.sampled_from((*TOOL_NAMES, ""))
_ARGS = st.sampled_from(['{"city": "Paris"}', '{"ci', 'ty": "Oslo"}', "", "{}", '{"q": 1', "}"])
_TEXT = st.text(max_size=12)
_USAGE = obj({}, {"prompt_tokens": st.integers(0, 9), "completion_tokens": st.integers(0, 9)})
_ERROR = obj({}, {"message": _TEXT, "type": _TEXT, "code": st.integers(400, 599)})

# -- openai-chat ----------------------------------------------------------------------------

_FUNCTION = obj({}, {"name": _NAME, "arguments": _ARGS})
_CHAT_TOOL_CALL = obj(
    {"index": _INDEX}, {"id": _ID, "type": const("function"), "function": _FUNCTION}
)
_CHAT_DELTA = obj(
    {},
    {
        "role": st.sampled_from(["assistant", ""]),
        "content": _TEXT,
        "reasoning_content": _TEXT,
        "reasoning": _TEXT,
        "tool_calls": st.lists(_CHAT_TOOL_CALL, max_size=3),
        "function_call": _FUNCTION,
    },
)
_CHOICE = obj(
    {"index": st.integers(0, 1), "delta": _CHAT_DELTA},
    {"finish_reason": st.sampled_from(["tool_calls", "stop", "length", "function_call"])},
)
CHAT_CHUNK: Final[Draw] = obj(
    {"choices": st.lists(_CHOICE, max_size=2)},
    {"object": const("chat.completion.chunk"), "usage": _USAGE, "error": _ERROR},
)
"""One ``chat.completion.chunk``."""

# -- anthropic ------------------------------------------------------------------------------

_BLOCK = obj(
    {"type": st.sampled_from(["tool_use", "text", "thinking", "server_tool_use"])},
    {"id": _ID, "name": _NAME, "input": st.just({}), "text": _TEXT, "thinking": _TEXT},
)
_BLOCK_DELTA = obj(
    {"type": st.sampled_from(["input_json_delta", "text_delta", "thinking_delta"])},
    {"partial_json": _ARGS, "text": _TEXT, "thinking": _TEXT, "signature": _TEXT},
)
ANTHROPIC_EVENT: Final[Draw] = st.one_of(
    obj({"type": const("message_start"), "message": obj({}, {"id": _ID, "usage": _USAGE})}),
    obj({"type": const("content_block_start"), "index": _INDEX, "content_block": _BLOCK}),
    obj({"type": const("content_block_delta"), "index": _INDEX, "delta": _BLOCK_DELTA}),
    obj({"type": const("content_block_stop"), "index": _INDEX}),
    obj(
        {"type": const("message_delta")},
        {
            "delta": obj({}, {"stop_reason": st.sampled_from(["tool_use", "end_turn"])}),
            "usage": _USAGE,
        },
    ),
    obj({"type": const("message_stop")}),
    obj({"type": const("ping")}),
    obj({"type": const("error"), "error": _ERROR}),
)
"""One Anthropic Messages event."""

# -- openai-responses -----------------------------------------------------------------------

_ITEM = obj(
    {"type": st.sampled_from(["function_call", "custom_tool_call", "message"])},
    {"id": st.sampled_from(["fc_1", "fc_2"]), "call_id": _ID, "name": _NAME, "arguments": _ARGS},
)
_RESPONSE = obj(
    {},
    {
        "id": _TEXT,
        "tools": st.just([{"type": "function", "name": "search", "parameters": {}}]),
        "usage": _USAGE,
        "incomplete_details": obj({}, {"reason": st.just("max_output_tokens")}),
        "error": _ERROR,
    },
)
_ITEM_REF = {"item_id": st.sampled_from(["fc_1", "fc_2", "x"]), "output_index": _INDEX}
RESPONSES_EVENT: Final[Draw] = st.one_of(
    obj({"type": st.sampled_from(["response.created", "response.in_progress"])},
        {"response": _RESPONSE}),
    obj({"type": st.sampled_from(["response.output_item.added", "response.output_item.done"])},
        {"output_index": _INDEX, "item": _ITEM}),
    obj({"type": const("response.function_call_arguments.delta")}, {**_ITEM_REF, "delta": _ARGS}),
    obj({"type": const("response.function_call_arguments.done")},
        {**_ITEM_REF, "arguments": _ARGS, "name": _NAME}),
    obj({"type": const("response.output_text.delta")}, {"delta": _TEXT}),
    obj({"type": st.sampled_from(["response.completed", "response.incomplete",
                                  "response.failed"])}, {"response": _RESPONSE}),
    obj({"type": const("error")}, {"message": _TEXT, "code": _TEXT}),
)  # fmt: skip
"""One Responses API event."""

# -- gemini ---------------------------------------------------------------------------------

_CALL = obj(
    {"name": _NAME},
    {
        "args": st.just({"city": "Rome"}),
        "id": _ID,
        "partialArgs": st.just([]),
        "willContinue": st.booleans(),
    },
)
_PART = st.one_of(
    obj({"text": _TEXT}, {"thought": st.booleans(), "thoughtSignature": _TEXT}),
    obj({"functionCall": _CALL}, {"thoughtSignature": _TEXT}),
)
_CANDIDATE = obj(
    {"content": obj({"parts": st.lists(_PART, max_size=3)}, {"role": const("model")})},
    {"index": st.integers(0, 1), "finishReason": st.sampled_from(["STOP", "MAX_TOKENS"])},
)
GEMINI_CHUNK: Final[Draw] = obj(
    {"candidates": st.lists(_CANDIDATE, max_size=2)},
    {
        "usageMetadata": obj({}, {"totalTokenCount": st.integers(0, 9)}),
        "promptFeedback": obj({}, {"blockReason": _TEXT}),
        "error": _ERROR,
    },
)
"""One Gemini ``GenerateContentResponse`` chunk."""

EVENTS: Final = {
    "openai-chat": CHAT_CHUNK,
    "anthropic": ANTHROPIC_EVENT,
    "openai-responses": RESPONSES_EVENT,
    "gemini": GEMINI_CHUNK,
}
"""Each dialect's event strategy, by provider name."""

# -- framing --------------------------------------------------------------------------------


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))  # stdlib: integers of any width


@st.composite
def frame(draw: st.DrawFn, event: Draw) -> str:
    """One SSE frame: an event's JSON (with or without an ``event:`` line), or a frame of
    what a stream also carries: comments, ``[DONE]``, a frame cut mid-JSON, bare values."""
    kind = draw(st.integers(0, 19))
    if kind < 14:
        value = draw(event)
        head = ""
        if kind < 4 and isinstance(value, dict) and isinstance(value.get("type"), str):
            head = f"event: {value['type']}\n"
        return f"{head}data: {_dumps(value)}\n\n"
    if kind == 14:
        return ": keep-alive\n\n"
    if kind == 15:
        return "data: [DONE]\n\n"
    if kind == 16:
        text = _dumps(draw(event))
        return f"data: {text[: draw(st.integers(0, len(text)))]}\n\n"
    if kind == 17:
        return f"data: {_dumps(draw(ODD))}\n\n"
    if kind == 18:
        return "data: : OPENROUTER PROCESSING\n\n"
    return f"data: {_dumps(draw(event))}\ndata: {_dumps(draw(event))}\n\n"


@st.composite
def body(draw: st.DrawFn, dialect: str | None = None) -> bytes:
    """A response body of one dialect's frames (any dialect's, when None)."""
    name = dialect or draw(st.sampled_from(sorted(EVENTS)))
    frames = draw(st.lists(frame(EVENTS[name]), min_size=1, max_size=10))
    return "".join(frames).encode()


# -- captures -------------------------------------------------------------------------------

_TYPE = st.sampled_from(["object", "string", "integer", "array", "boolean", "null"])
_SCHEMA = obj(
    {"type": _TYPE},
    {
        "properties": st.dictionaries(st.sampled_from(["city", "q"]), obj({"type": _TYPE}),
                                      max_size=2),
        "required": st.lists(st.sampled_from(["city", "q"]), max_size=2),
        "additionalProperties": st.booleans(),
        "items": obj({"type": _TYPE}),
        "enum": st.lists(_SCALAR, max_size=2),
    },
)  # fmt: skip
TOOL_DEFINITIONS: Final[Draw] = st.lists(
    st.one_of(
        obj({"type": const("function"), "function": obj({"name": _NAME}, {"parameters": _SCHEMA,
                                                                          "description": _TEXT})}),
        obj({"name": _NAME}, {"input_schema": _SCHEMA}),
        obj({"type": const("function"), "name": _NAME}, {"parameters": _SCHEMA}),
        obj({"functionDeclarations": st.lists(obj({"name": _NAME}, {"parameters": _SCHEMA}),
                                              max_size=2)}),
    ),
    max_size=3,
)  # fmt: skip
"""Tool definitions in every shape the registry reads, with hostile schemas."""

_POSITION = obj({"t": st.floats(0, 1e308), "chunks": st.integers(-1, 9),
                 "events": st.integers(-1, 9)}, {"ended": st.booleans()})  # fmt: skip
_EVENT_DATA: Final = {
    "round": obj({"round": st.integers(0, 3)}, {"mode": st.sampled_from(["streaming", "x"]),
                                                "session_t": st.floats(0, 9)}),
    "tool_dispatch": obj({"call_id": _ID, "name": _NAME},
                         {"slot": st.integers(-1, 3), "arguments": _ARGS, "position": _POSITION,
                          "session_t": st.floats(0, 9)}),
    "tool_result": obj({"call_id": _ID, "name": _NAME},
                       {"output": _TEXT, "is_error": st.booleans(), "error_kind": _TEXT,
                        "status": st.sampled_from(["ok", "error", "cancelled"]), "title": _TEXT,
                        "metadata": obj({}, {"a": _TEXT}), "duration": st.floats(0, 9),
                        "dispatched": _POSITION, "completed": _POSITION, "position": _POSITION,
                        "slot": st.integers(-1, 3), "attempt": st.integers(0, 3)}),
    "loop_end": obj({"reason": _TEXT}, {"rounds": st.integers(0, 3), "final_text": _TEXT,
                                        "error": _TEXT}),
}  # fmt: skip
"""Each tool-loop event kind's ``data``, fields possibly of wrong types."""


@st.composite
def tool_event(draw: st.DrawFn, attempt: int) -> dict[str, Any]:
    """An ``event`` record of a tool loop (or of a kind this version does not know) whose
    ``data`` is hostile."""
    kind = draw(st.sampled_from([*sorted(_EVENT_DATA), "novel"]))
    data = draw(field(_EVENT_DATA.get(kind, obj({}, {"x": _TEXT}))))
    t = draw(st.one_of(st.floats(0, 1), st.floats(0, 1e308)))
    return {"type": "event", "attempt": attempt, "t": t, "kind": kind, "data": data}


@st.composite
def capture(draw: st.DrawFn, payload: bytes) -> bytes:
    """``payload`` as a capture: a header, then per attempt a request offering (hostile) tools,
    a response, the body in chunks, tool-loop events and an end record, in file order.

    Records are well formed unless this capture is one of the hostile ones (one in four): then
    one field of one record holds any value (a reader must refuse it cleanly, or read past
    it); a capture may also be shuffled, cut short, or carry a line that is not a record."""
    header: dict[str, Any] = {"format": FORMAT, "version": 1}
    header.update(draw(obj({}, {"meta": obj({}, {"dialect": st.sampled_from(sorted(EVENTS))})})))
    records: list[Any] = []
    tools = st.one_of(st.just(TOOLS), st.just([TOOLS[0]]), TOOL_DEFINITIONS, ODD)
    for n in range(1, draw(st.integers(1, 2)) + 1):
        records.append({"type": "request", "attempt": n, "t": 0.0, "method": "POST",
                        "url": "https://x/v1/chat/completions", "headers": {"a": "b"},
                        "body": {"model": "m", "tools": draw(tools)}})  # fmt: skip
        status = draw(st.sampled_from([200, 200, 200, 401]))
        records.append({"type": "response", "attempt": n, "t": 0.1, "status": status,
                        "headers": {}})  # fmt: skip
        cuts = sorted(draw(st.lists(st.integers(0, len(payload)), max_size=4)))
        pieces = [payload[a:b] for a, b in zip([0, *cuts], [*cuts, len(payload)], strict=True)]
        for i, piece in enumerate(pieces):
            chunk: dict[str, Any] = {"type": "chunk", "attempt": n, "t": 0.1 + i / 100}
            try:
                chunk["text"] = piece.decode()
            except UnicodeDecodeError:
                chunk["b64"] = base64.b64encode(piece).decode()
            records.append(chunk)
        for _ in range(draw(st.integers(0, 3))):
            records.insert(draw(st.integers(2, len(records))), draw(tool_event(n)))
        if draw(st.integers(0, 3)):
            records.append({"type": "end", "attempt": n, "t": 0.3, "reason": "eof",
                            "error": draw(st.one_of(st.none(), _TEXT))})  # fmt: skip
    if draw(st.integers(0, 3)) == 0:
        record = draw(st.sampled_from(records))
        record[draw(st.sampled_from(sorted(record)))] = draw(ODD)
    if draw(st.integers(0, 9)) == 0:
        records = draw(st.permutations(records))
    if draw(st.integers(0, 9)) == 0:
        records.insert(draw(st.integers(0, len(records))), draw(ODD))
    lines = [_dumps(header), *(_dumps(r) for r in records)]
    return ("\n".join(lines) + "\n").encode()


@st.composite
def inputs(draw: st.DrawFn) -> tuple[bytes, int]:
    """``(bytes, variant)`` for :func:`fuzz.target.run`: a hostile body, raw or in a capture,
    and which settings to judge it under."""
    payload = draw(body())
    data = draw(capture(payload)) if draw(st.booleans()) else payload
    return data, draw(st.integers(0, 1 << 16))
