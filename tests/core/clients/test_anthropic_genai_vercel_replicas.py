"""The anthropic-sdk, google-genai and vercel-ai replicas on hand-built streams, one behaviour
each (the goldens hold them to the real libraries; these say what each behaviour is)."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from inspector.core.clients.anthropic_sdk.jiter_partial import JiterError, partial_loads
from inspector.core.clients.anthropic_sdk.replica import AnthropicSdk
from inspector.core.clients.base import Exchange, HandedCall, Replica
from inspector.core.clients.google_genai.replica import GoogleGenai
from inspector.core.clients.judge import ClientResult, run_replica
from inspector.core.clients.vercel_ai.replica import VercelAi
from inspector.core.clients.vercel_ai.v8_json import JsSyntaxError, number_text, parse, stringify
from inspector.core.providers import analyze_bytes

SSE = "text/event-stream"


def run(replica: Replica, body: str | bytes, dialect: str, **kw: Any) -> ClientResult:
    """``replica`` over ``body`` (``status``, ``ctype``, ``cut``: the exchange's), judged
    against the inspector's own assembly as the judge does."""
    raw = body.encode() if isinstance(body, str) else body
    state, status, cut = analyze_bytes(raw, dialect), kw.get("status", 200), kw.get("cut")
    exchange = Exchange(state.events, raw, status, kw.get("ctype", SSE), cut)
    expected = [HandedCall(c.id, c.name, c.arguments) for c in state.acc.assembled()]
    return run_replica(replica, exchange, expected, status >= 400 or cut is not None)


def error(result: ClientResult) -> tuple[str, str] | None:
    return None if result.error is None else (result.error.type, result.error.message)


def calls(result: ClientResult) -> list[tuple[str | None, str | None, str]]:
    return [(c.id, c.name, c.arguments) for c in result.calls]


# -- anthropic-sdk ---------------------------------------------------------------------------


def ev(kind: str, data: Any, name: str | None = "") -> str:
    head = "" if name is None else f"event: {name or kind}\n"
    return head + f"data: {json.dumps({'type': kind, **data})}\n\n"


MESSAGE = {"id": "msg_1", "role": "assistant", "content": [], "usage": {"output_tokens": 1}}
START = ev("message_start", {"message": MESSAGE})
END = ev("message_delta", {"delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}})


def use(i: int, id_: str, name: str, *parts: str, given: Any = None) -> str:
    block = {"type": "tool_use", "id": id_, "name": name, "input": given or {}}
    out = ev("content_block_start", {"index": i, "content_block": block})
    for p in parts:
        delta = {"type": "input_json_delta", "partial_json": p}
        out += ev("content_block_delta", {"index": i, "delta": delta})
    return out + ev("content_block_stop", {"index": i})


def anthropic(body: str, **kw: Any) -> ClientResult:
    return run(AnthropicSdk(), body, "anthropic", **kw)


def test_anthropic_hands_over_each_tool_use_input_as_compact_json() -> None:
    body = START + use(0, "toolu_a", "get_weather", "", '{"city": ', '"Paris", "n": 1.50}')
    body += use(1, "toolu_b", "web_search", '{"q": "x"}') + END + ev("message_stop", {})
    result = anthropic(body)
    assert calls(result) == [
        ("toolu_a", "get_weather", '{"city":"Paris","n":1.5}'),
        ("toolu_b", "web_search", '{"q":"x"}'),
    ]
    assert result.agrees is True


def test_anthropic_keeps_the_start_input_when_fragments_are_empty() -> None:
    body = START + use(0, "t", "n", given={"b": 2, "a": 1}) + use(1, "u", "z", "") + END
    assert calls(anthropic(body)) == [("t", "n", '{"b":2,"a":1}'), ("u", "z", "{}")]


JITER_REFUSES = (
    "Unable to parse tool parameter JSON from model. Please retry your request or adjust your "
    'prompt. Error: expected value at line 1 column 10. JSON: {"city": x}'
)
OVERLOADED = {"type": "overloaded_error", "message": "Overloaded"}
OVERLOADED_EVENT = {"type": "error", "error": OVERLOADED}


def test_anthropic_drops_an_argument_cut_mid_string_by_max_tokens() -> None:
    body = START + use(0, "t", "get_weather", '{"city": "Paris", "un') + END
    result = anthropic(body)
    assert calls(result) == [("t", "get_weather", '{"city":"Paris"}')]
    assert result.agrees is False and result.diverges_at is not None


@pytest.mark.parametrize(
    ("body", "want"),
    [
        (START + use(0, "t", "n", '{"city": x}'), ("ValueError", JITER_REFUSES)),
        (START + ev("error", {"error": OVERLOADED}), ("APIStatusError", str(OVERLOADED_EVENT))),
        (
            START + ev("content_block_delta", {"index": 3}),
            ("IndexError", "list index out of range"),
        ),
        (START.replace("event: message_start\n", "") + use(0, "t", "n"), ("AssertionError", "")),
        ("data: [DONE]\n\n", ("AssertionError", "")),
    ],
    ids=["jiter-refuses", "event-error", "index-past-end", "no-event-line", "no-event-name"],
)
def test_anthropic_raises_where_the_sdk_raises(body: str, want: tuple[str, str]) -> None:
    assert error(anthropic(body)) == want


def test_anthropic_ignores_comments_and_pings_and_reads_crlf() -> None:
    body = ": keep-alive\n\n" + START + ev("ping", {}) + use(0, "t", "n", '{"a":1}') + END
    assert calls(anthropic(body.replace("\n", "\r\n"))) == [("t", "n", '{"a":1}')]


def test_anthropic_invalid_utf8_raises_on_its_line() -> None:
    body = START.encode() + b'event: x\ndata: {"t": "\xff"}\n\n' + use(0, "t", "n", "{}").encode()
    result = anthropic(body)
    assert result.error is not None and result.error.type == "UnicodeDecodeError"
    assert "byte 0xff in position 13" in result.error.message
    assert result.diverges_at == 1  # the inspector's own error event for that byte (seq 1)


# -- google-genai ----------------------------------------------------------------------------


def gem(parts: list[Any], finish: str | None = None) -> str:
    cand: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
    if finish:
        cand["finishReason"] = finish
    return "data: " + json.dumps({"candidates": [cand], "responseId": "r"}) + "\r\n\r\n"


def fc(name: str, args: Any = None, **kw: Any) -> dict[str, Any]:
    call = {"name": name, **({"args": args} if args is not None else {}), **kw}
    return {"functionCall": call}


def genai(body: str | bytes, **kw: Any) -> ClientResult:
    return run(GoogleGenai(), body, "gemini", **kw)


def test_genai_collects_function_calls_from_every_chunk() -> None:
    body = gem([fc("a", {"z": 1, "y": [2]}), fc("b", {}, id="fc_1")]) + gem([fc("c")])
    body += gem([{"text": ""}], "STOP")
    assert calls(genai(body)) == [
        (None, "a", '{"z":1,"y":[2]}'),
        ("fc_1", "b", "{}"),
        (None, "c", "null"),
    ]


@pytest.mark.parametrize(
    ("extra", "raw"),
    [
        (": OPENROUTER PROCESSING\r\n\r\n", ": OPENROUTER PROCESSING"),
        ("event: x\r\n", "event: x"),
        ("data:{}\r\n\r\n", "data:{}"),
    ],
    ids=["comment", "event-line", "data-without-space"],
)
def test_genai_takes_any_line_that_is_not_data_space_for_json(extra: str, raw: str) -> None:
    body = gem([fc("a", {})]) + extra + gem([{"text": ""}], "STOP")
    result = genai(body)
    msg = f"Failed to parse response as JSON. Raw response: {raw}"
    assert error(result) == ("UnknownApiResponseError", msg)
    assert result.diverges_at == 1  # the comment / the event line, not the chunk before


def test_genai_reads_multiline_data_and_replaces_invalid_utf8() -> None:
    body = b'data: {"candidates": [{"content":\r\ndata: {"parts": [{"text": "\xff"}, '
    body += b'{"functionCall": {"name": "n", "args": {}}}]}}]}\r\n\r\n'
    assert calls(genai(body)) == [(None, "n", "{}")]


def test_genai_error_in_the_stream_wrong_types_a_reset_and_html() -> None:
    err = 'data: {"error": {"code": 503, "message": "busy", "status": "UNAVAILABLE"}}\r\n\r\n'
    assert error(genai(gem([fc("a", {})]) + err)) == (
        "ServerError",
        "503 UNAVAILABLE. {'error': {'code': 503, 'message': 'busy', 'status': 'UNAVAILABLE'}}",
    )
    bad = genai(gem([fc("a", [1, 2])]))
    assert bad.error is not None and bad.error.type == "ValidationError"
    assert bad.error.message.splitlines()[1] == "candidates.0.content.parts.0.functionCall.args"
    html = genai("<!DOCTYPE html>\n<p>x</p>\n", ctype="text/html")
    assert error(html) == (
        "UnknownApiResponseError",
        "Failed to parse response as JSON. Raw response: <!DOCTYPE html>",
    )


# -- vercel-ai -------------------------------------------------------------------------------


def chunk(tcs: list[dict[str, Any]] | None = None, finish: str | None = None) -> str:
    delta = {"tool_calls": tcs} if tcs else {}
    c = {"id": "c", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return f"data: {json.dumps(c)}\n\n"


def tc(index: int | None, id_: str | None, name: str | None, args: str | None) -> dict[str, Any]:
    fn = {k: v for k, v in (("name", name), ("arguments", args)) if v is not None}
    out: dict[str, Any] = {"function": fn}
    out.update({k: v for k, v in (("index", index), ("id", id_)) if v is not None})
    return out


STOP = chunk(finish="tool_calls") + "data: [DONE]\n\n"
ONE = chunk([tc(0, "c", "n", "{}")])
KEEPALIVE = (
    "JSON parsing failed: Text: : OPENROUTER PROCESSING.\nError message: SyntaxError: "
    "Unexpected token ':', \": OPENROUT\"... is not valid JSON"
)
NO_NAME = "Expected 'function.name' to be a string."
NO_FINISH = "Response stream ended without a finish reason."


def vercel(body: str | bytes, **kw: Any) -> ClientResult:
    return run(VercelAi(), body, "openai-chat", **kw)


def test_vercel_hands_over_parsed_arguments_as_json_stringify_writes_them() -> None:
    body = chunk([tc(0, "call_a", "get", "")])
    body += chunk([tc(0, None, None, '{"b": 1.0, "10": 1e21,')])
    body += chunk([tc(0, None, None, ' "2": [0.0000001]}')]) + STOP
    assert calls(vercel(body)) == [("call_a", "get", '{"2":[1e-7],"10":1e+21,"b":1}')]


def test_vercel_splits_calls_reusing_one_index_and_makes_up_missing_ids() -> None:
    body = chunk([tc(0, None, "a", '{"x":1}')]) + chunk([tc(0, None, "a", '{"x":2}')])
    body += chunk([tc(1, "call_b", "b", '{"y":3}')]) + chunk([tc(2, "call_b", "c", "")]) + STOP
    assert calls(vercel(body)) == [
        ("0000000000000000", "a", '{"x":1}'),
        ("0000000000000000-1", "a", '{"x":2}'),
        ("call_b", "b", '{"y":3}'),
        ("0000000000000000-2", "c", "{}"),
    ]


def test_vercel_buffers_arguments_until_a_name_and_orders_calls_by_index() -> None:
    body = chunk([tc(1, "call_1", None, '{"a":')]) + chunk([tc(0, "call_0", "z", "{}")])
    body += chunk([tc(1, None, "y", "1}")]) + STOP
    assert calls(vercel(body)) == [("call_0", "z", "{}"), ("call_1", "y", '{"a":1}')]


def test_vercel_hands_over_unparsable_arguments_raw() -> None:
    body = chunk([tc(0, "c", "n", '{"city": "Par')]) + chunk(finish="length")
    result = vercel(body)
    assert calls(result) == [("c", "n", '{"city": "Par')] and result.error is None


@pytest.mark.parametrize(
    ("body", "want", "handed"),
    [
        (ONE + "data: : OPENROUTER PROCESSING\n\n" + STOP, ("JSONParseError", KEEPALIVE), 1),
        (chunk([tc(0, "c", None, "{}")]) + STOP, ("InvalidResponseDataError", NO_NAME), 0),
        (
            ONE + 'data: {"error": {"message": "gone"}}\n\n' + STOP,
            ("StreamProviderError", "gone"),
            1,
        ),
        (ONE + "data: [DONE]\n\n", ("InvalidResponseDataError", NO_FINISH), 0),
        (ONE + chunk(finish="stop").rstrip("\n"), ("InvalidResponseDataError", NO_FINISH), 0),
    ],
    ids=["keepalive-in-data", "never-named", "error-chunk", "no-finish", "last-event-unended"],
)
def test_vercel_error_parts_go_on_and_thrown_errors_end_the_stream(
    body: str, want: tuple[str, str], handed: int
) -> None:
    """An error part (a keep-alive inside ``data:``, an ``error`` chunk) comes first and the
    calls are still handed over at the end (calls AND an error, never agreement); a thrown
    error ends the stream with none."""
    result = vercel(body)
    assert error(result) == want and len(result.calls) == handed
    assert result.error_after == (0 if handed else None) and result.agrees is False


def test_vercel_comments_are_ignored_and_invalid_utf8_is_replaced() -> None:
    body = b": OPENROUTER PROCESSING\n\n" + chunk([tc(0, "c", "n", '{"t": "')]).encode()
    body += chunk([tc(0, None, None, '\xff"}')]).encode().replace(b"\\u00ff", b"\xff")
    body += STOP.encode()
    assert calls(vercel(body)) == [("c", "n", '{"t":"\ufffd"}')]


def test_vercel_arguments_sent_as_an_object_fail_the_chunk_schema() -> None:
    bad = '{"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": {}}}]}}]}'
    result = vercel(f"data: {bad}\n\n" + STOP)
    assert result.error is not None and result.error.type == "TypeValidationError"
    issues = json.loads(result.error.message.split("Error message: ", 1)[1])
    first = issues[0]["errors"][0][0]
    assert first["path"] == ["choices", 0, "delta", "tool_calls", 0, "function", "arguments"]
    assert first["message"] == "Invalid input: expected string, received object"


def test_js_number_and_key_order() -> None:
    numbers = (1e21, 1e20, 1e-7, 1e-6, -0.0, 2.5, 1.2345678901234567e19)
    want = "1e+21 100000000000000000000 1e-7 0.000001 0 2.5 12345678901234567000"
    assert [number_text(x) for x in numbers] == want.split()
    assert stringify(parse('{"b": 1, "1": 2, "a": {"0": 3}}'), 2) == (
        '{\n  "1": 2,\n  "b": 1,\n  "a": {\n    "0": 3\n  }\n}'
    )


# -- every replica: status errors, a reset; the JSON parsers they embed ----------------------

A401 = '{"type":"error","error":{"type":"authentication_error","message":"bad key"}}'
G401 = '{"error": {"code": 401, "message": "m", "status": "UNAUTHENTICATED"}}'
V401 = '{"error": {"message": "bad key", "code": "invalid_api_key"}}'
_CUT = "Failed to process successful response"
REPLICAS = {"anthropic": AnthropicSdk(), "gemini": GoogleGenai(), "openai-chat": VercelAi()}


@pytest.mark.parametrize(
    ("dialect", "status", "body", "want"),
    [
        ("anthropic", 401, A401, ("AuthenticationError", f"Error code: 401 - {json.loads(A401)}")),
        ("anthropic", 429, "{}", ("RateLimitError", "Error code: 429 - {}")),
        ("anthropic", 500, "<html>oops</html>", ("InternalServerError", "<html>oops</html>")),
        ("anthropic", 503, "", ("ServiceUnavailableError", "Error code: 503")),
        ("gemini", 401, G401, ("ClientError", f"401 UNAUTHENTICATED. {json.loads(G401)}")),
        (
            "gemini",
            500,
            "oops",
            (
                "ServerError",
                "500 Internal Server Error. {'message': 'oops', 'status': 'Internal Server Error'}",
            ),
        ),
        ("openai-chat", 401, V401, ("APICallError", "bad key")),
        ("openai-chat", 503, "", ("APICallError", "Service Unavailable")),
        ("openai-chat", 500, "<html/>", ("APICallError", "Internal Server Error")),
    ],
)
def test_status_errors(dialect: str, status: int, body: str, want: tuple[str, str]) -> None:
    result = run(REPLICAS[dialect], body, dialect, status=status, ctype="application/json")
    assert error(result) == want and result.agrees is True  # a failed request: raising agrees


@pytest.mark.parametrize(
    ("dialect", "body", "want"),
    [
        ("anthropic", START + use(0, "t", "n", '{"a":'), ("ReadError", "")),
        ("gemini", gem([{"text": "hi"}]), ("ReadError", "[Errno 104] Connection reset by peer")),
        ("openai-chat", chunk([tc(0, "c", "n", "{}")]), ("APICallError", _CUT)),
    ],
)
def test_a_body_cut_short(dialect: str, body: str, want: tuple[str, str]) -> None:
    why = "connection broken after 9 bytes: ReadError"
    assert error(run(REPLICAS[dialect], body, dialect, cut=why)) == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ('{"a": [1, {"b": "c', {"a": [1, {}]}),
        ('{"a":1}{"b":2}', {"a": 1}),
        ('{"a": 1 "b": 2}', {"a": 1}),
        ('{"n": 1.', {}),
        ('{"x": -Infinity, "y": 1234567890123456789}', {"x": -math.inf, "y": 1234567890123456789}),
        ('"abc', "EOF while parsing a string at line 1 column 4"),
        ('{"a":1,}', "trailing comma at line 1 column 8"),
        ('\n\n {"a": x}', "expected value at line 3 column 8"),
        ("[" * 202, "recursion limit exceeded at line 1 column 202"),
    ],
)
def test_jiter_partial_mode(text: str, want: Any) -> None:
    try:
        got: Any = partial_loads(text.encode())
    except JiterError as exc:
        got = str(exc)
    assert got == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("", "Unexpected end of JSON input"),
        (
            '{"a":1',
            "Expected ',' or '}' after property value in JSON at position 6 (line 1 column 7)",
        ),
        ("[1,]", "Unexpected token ']', \"[1,]\" is not valid JSON"),
        ("01", "Unexpected number in JSON at position 1 (line 1 column 2)"),
        (
            '{"a":"b"\n,"c" 5}',
            "Expected ':' after property name in JSON at position 14 (line 2 column 6)",
        ),
        ("NaN", '"NaN" is not valid JSON'),
    ],
)
def test_v8_json_parse_errors(text: str, want: str) -> None:
    with pytest.raises(JsSyntaxError) as caught:
        parse(text)
    assert str(caught.value) == want


DEEP = "[" * 5000
HUGE = "9" * 5000


@pytest.mark.parametrize(
    ("dialect", "body", "want"),
    [
        ("anthropic", START + use(0, "t", "n", '{"a": "\ud800"}'), "UnicodeEncodeError"),
        ("anthropic", START + f"event: x\ndata: {HUGE}\n\n", "ValueError"),
        ("gemini", f"data: {DEEP}\r\n\r\n", "RecursionError"),
        ("gemini", f"data: {HUGE}\r\n\r\n", "ValueError"),
        ("openai-chat", chunk([tc(0, "c", "n", DEEP)]) + STOP, None),
        ("openai-chat", f'data: {{"choices": [], "{HUGE}": 1}}\n\n' + STOP, None),
    ],
)
def test_hostile_input_raises_only_what_the_library_raises(
    dialect: str, body: str, want: str | None
) -> None:
    result = run(REPLICAS[dialect], body, dialect)  # any other exception fails the test
    assert (result.error.type if result.error else None) == want
