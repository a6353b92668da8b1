"""The openai-SDK replicas on hand-built streams: openai-python (chat and Responses), by-index,
by-id, and the SDK's SSE layer under them.

Each behaviour asserted here was first seen in the real library (openai 3.57.0); the goldens
(tests/clients/goldens) hold the replicas to it on the whole corpus.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from clients.streams import all_streams
from conftest import all_real_fixtures

from inspector.core.clients.base import ClientRaised, Exchange, HandedCall, Replica
from inspector.core.clients.handwritten.loops import ById, ByIndex
from inspector.core.clients.judge import ClientResult, run_replica
from inspector.core.clients.openai_python.replica import OpenAIPython
from inspector.core.clients.openai_sdk.sse import sdk_items
from inspector.core.events.sse import decode_all
from inspector.core.providers import analyze_bytes

OPENAI = OpenAIPython()
BY_INDEX = ByIndex()
BY_ID = ById()
ARGS = ['{"city":', ' "Paris"}']


def chunk(*calls: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
    """One chat chunk event carrying ``calls`` as its delta's tool_calls."""
    delta: dict[str, Any] = {"tool_calls": list(calls)} if calls else {}
    obj = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }
    return b"data: " + json.dumps(obj).encode() + b"\n\n"


def call(index: Any = 0, id: str | None = None, name: str | None = None, args: str = "") -> dict:
    entry: dict[str, Any] = {"type": "function", "function": {"arguments": args}}
    if index is not None:
        entry["index"] = index
    if id is not None:
        entry["id"] = id
    if name is not None:
        entry["function"]["name"] = name
    return entry


def stream(*events: bytes, done: bool = True) -> bytes:
    head = chunk()  # role chunk: the snapshot's first chunk
    return head + b"".join(events) + (b"data: [DONE]\n\n" if done else b"")


def one_call(index: int, id: str, name: str) -> list[bytes]:
    return [chunk(call(index, id, name)), *(chunk(call(index, args=a)) for a in ARGS)]


def run(
    replica: Replica,
    body: bytes,
    expected: list[HandedCall] | None = None,
    failed: bool = False,
    **exchange: Any,
) -> ClientResult:
    ex = Exchange(decode_all(body), body, **exchange)
    return run_replica(replica, ex, expected or [], failed)


def calls(result: ClientResult) -> list[tuple[str | None, str | None, str]]:
    return [(c.id, c.name, c.arguments) for c in result.calls]


PARIS = '{"city": "Paris"}'
PARALLEL_ON_0 = stream(*one_call(0, "call_a", "get_weather"), *one_call(0, "call_b", "web_search"))


def test_a_clean_stream_agrees_in_every_replica() -> None:
    body = stream(*one_call(0, "call_a", "get_weather"), *one_call(1, "call_b", "web_search"))
    want = [HandedCall("call_a", "get_weather", PARIS), HandedCall("call_b", "web_search", PARIS)]
    for replica in (OPENAI, BY_INDEX, BY_ID):
        result = run(replica, body, want)
        assert result.agrees and result.diverges_at is None and result.error is None, replica
        assert calls(result) == [(c.id, c.name, c.arguments) for c in want]


def test_parallel_calls_on_index_0_merge_into_one_and_diverge_where_the_second_starts() -> None:
    want = [HandedCall("call_a", "get_weather", PARIS), HandedCall("call_b", "web_search", PARIS)]
    merged = [("call_acall_b", "get_weatherweb_search", PARIS + PARIS)]
    second = 4  # role chunk, then call_a in three events, then call_b's opening event
    for replica in (OPENAI, BY_INDEX):
        result = run(replica, PARALLEL_ON_0, want)
        assert calls(result) == merged, replica
        assert result.agrees is False and result.diverges_at == second
    by_id = run(BY_ID, PARALLEL_ON_0, want)  # looked up by id: two calls
    assert calls(by_id) == [(c.id, c.name, c.arguments) for c in want] and by_id.agrees


def test_a_missing_index_is_openai_pythons_type_error_on_its_first_fragment() -> None:
    body = stream(chunk(call(None, "call_a", "get_weather", "{}")))
    result = run(OPENAI, body, [HandedCall("call_a", "get_weather", "{}")])
    assert result.error is not None
    assert (result.error.type, result.error.message) == (
        "TypeError",
        "list indices must be integers or slices, not NoneType",
    )
    assert result.diverges_at == 1


def test_a_sparse_index_is_openai_pythons_index_error() -> None:
    body = stream(*one_call(1, "call_a", "get_weather"))  # index 1 with no index 0
    result = run(OPENAI, body, [HandedCall("call_a", "get_weather", PARIS)])
    assert result.error is not None
    assert (result.error.type, result.error.message) == ("IndexError", "list index out of range")
    assert calls(run(BY_INDEX, body)) == [("call_a", "get_weather", PARIS)]


def test_an_id_repeated_on_every_chunk_is_concatenated_but_found_by_id() -> None:
    body = stream(
        chunk(call(0, "call_a", "get_weather")),
        *(chunk(call(0, "call_a", args=a)) for a in ARGS),
    )
    assert calls(run(OPENAI, body)) == [("call_a" * 3, "get_weather", PARIS)]
    assert calls(run(BY_INDEX, body)) == [("call_a" * 3, "get_weather", PARIS)]
    assert calls(run(BY_ID, body)) == [("call_a", "get_weather", PARIS)]


def test_an_index_past_ssize_t_is_the_librarys_overflow_error_not_a_crash() -> None:
    body = stream(chunk(call(2**63, "call_a", "get_weather", "{}")))
    result = run(OPENAI, body)
    assert result.error is not None
    assert (result.error.type, result.error.message) == (
        "OverflowError",
        "Python int too large to convert to C ssize_t",
    )
    assert run(BY_INDEX, body).error is None  # a dict key of any size


def test_an_index_sent_as_a_string_is_an_int_to_openai_python() -> None:
    body = stream(chunk(call("0", "call_a", "get_weather")), chunk(call("0", args="{}")))
    assert calls(run(OPENAI, body)) == [("call_a", "get_weather", "{}")]


def test_a_keepalive_inside_data_is_a_json_decode_error_where_it_arrives() -> None:
    body = stream(
        chunk(call(0, "call_a", "get_weather")),
        b"data: : OPENROUTER PROCESSING\n\n",
        *(chunk(call(0, args=a)) for a in ARGS),
    )
    for replica in (OPENAI, BY_INDEX, BY_ID):
        result = run(replica, body, [HandedCall("call_a", "get_weather", PARIS)])
        assert result.error is not None and result.error.type == "JSONDecodeError"
        assert result.error.message == "Expecting value: line 1 column 1 (char 0)"
        assert result.diverges_at == 2 and result.agrees is False


def test_invalid_utf8_raises_on_the_inspectors_error_event() -> None:
    bad = chunk(call(0, args='{"city": "P')).replace(b'"P', b'"\xff')
    body = stream(chunk(call(0, "call_a", "get_weather")), bad)
    events = decode_all(body)
    error_seq = next(e.seq for e in events if e.kind == "error")
    result = run(OPENAI, body, [HandedCall("call_a", "get_weather", "{}")])
    assert result.error is not None and result.error.type == "UnicodeDecodeError"
    assert "can't decode byte 0xff" in result.error.message
    assert result.diverges_at == error_seq


def test_401_is_an_authentication_error_that_agrees_with_a_failed_request() -> None:
    body = b'{"error": {"message": "Incorrect API key provided", "type": "auth"}}'
    for replica in (OPENAI, BY_INDEX, BY_ID):
        result = run(replica, body, failed=True, status=401, content_type="application/json")
        assert result.error is not None
        assert (result.error.type, result.error.message) == (
            "AuthenticationError",
            "Error code: 401 - Incorrect API key provided",
        )
        assert result.agrees is True and result.diverges_at is None


@pytest.mark.parametrize(
    ("status", "kind"),
    [(429, "RateLimitError"), (500, "InternalServerError"), (418, "APIStatusError")],
)
def test_other_statuses_raise_their_class(status: int, kind: str) -> None:
    result = run(BY_INDEX, b"oops", failed=True, status=status, content_type="text/plain")
    assert result.error is not None and (result.error.type, result.error.message) == (
        kind,
        f"Error code: {status}",
    )


def test_what_the_sdk_reads_of_the_body() -> None:
    ok = chunk(call(0, "call_a", "get_weather", "{}"))

    def outcome(body: bytes, **kw: Any) -> tuple[int, str | None]:
        items = sdk_items(Exchange(decode_all(body), body, **kw))
        raised = next((i.raised for i in items if i.raised is not None), None)
        return sum(i.raised is None for i in items), raised and raised.type

    assert outcome(ok + b"data: [DONE]\n\ndata: junk\n\n") == (1, None)  # nothing after [DONE]
    assert outcome(ok + b": ping\n\n" + ok) == (2, None)  # comments ignored
    assert outcome(b"id: 1\n" + ok + b"\n" + ok) == (1, "JSONDecodeError")  # id, then blank
    assert outcome(ok + b"data: {}") == (1, None)  # no blank line: never dispatched
    assert outcome(ok + b'data: {"error": {"message": "boom"}}\n\n') == (1, "APIError")
    assert outcome(ok, transport_error="connection broken") == (1, "APIConnectionError")
    assert outcome(ok + b"data: [DONE]\n\n", transport_error="reset") == (1, None)
    assert outcome(b"<html>", content_type="text/html") == (0, None)  # not SSE: nothing


def test_a_length_finish_is_openai_pythons_length_error() -> None:
    body = stream(chunk(call(0, "call_a", "get_weather", "{")), chunk(finish="length"))
    result = run(OPENAI, body)
    assert result.error is not None and result.error.type == "LengthFinishReasonError"
    assert result.error.message == (
        "Could not parse response content as the length limit was reached"
    )
    assert calls(run(BY_INDEX, body)) == [("call_a", "get_weather", "{")]


def test_an_error_page_gives_openai_python_no_completion() -> None:
    result = run(OPENAI, b"<html>sign in</html>", content_type="text/html")
    assert result.error is not None and result.error.type == "AssertionError"
    assert calls(run(BY_INDEX, b"<html>sign in</html>", content_type="text/html")) == []


# -- Responses -------------------------------------------------------------------------------


def responses(*events: dict[str, Any]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


ITEM = {"type": "function_call", "id": "fc_1", "call_id": "call_a", "name": "get_weather"}
CREATED = {"type": "response.created", "response": {"id": "r1", "output": []}}


def responses_call(final_arguments: str, completed: bool = True) -> bytes:
    events = [
        CREATED,
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {**ITEM, "arguments": ""},
        },
        {"type": "response.function_call_arguments.delta", "output_index": 0, "delta": "{}"},
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {**ITEM, "arguments": "{}"},
        },
    ]
    if completed:
        output = [{**ITEM, "arguments": final_arguments}]
        events.append({"type": "response.completed", "response": {"id": "r1", "output": output}})
    return responses(*events)


def test_responses_hand_over_the_completed_output() -> None:
    result = run(OPENAI, responses_call("{}"), [HandedCall("call_a", "get_weather", "{}")])
    assert calls(result) == [("call_a", "get_weather", "{}")] and result.agrees
    restated = run(OPENAI, responses_call('{"city": "Paris"}'))  # not what the deltas said
    assert calls(restated) == [("call_a", "get_weather", '{"city": "Paris"}')]


def test_responses_without_completed_raise_at_the_end() -> None:
    result = run(OPENAI, responses_call("{}", completed=False))
    assert result.error is not None
    assert (result.error.type, result.error.message) == (
        "RuntimeError",
        "Didn't receive a `response.completed` event.",
    )


def test_responses_must_start_with_created() -> None:
    body = responses({"type": "response.in_progress", "response": {"id": "r1"}})
    with pytest.raises(ClientRaised, match=re.escape("received `response.created` before")):
        run_open(body)


def run_open(body: bytes) -> None:
    replica_run = OPENAI.open(Exchange(decode_all(body), body))
    for event in decode_all(body):
        replica_run.feed(event)


# -- by-id and the inspector's literal empty-id policy ------------------------------------------

EMPTY_ID_STREAMS = (
    "demo/openai-chat/demo-glm-empty-string",
    "demo/openai-chat/demo-glm-empty-name",
    "real/qwen3-max-empty-id-continuations",
    "real/glm-5-2-empty-name-continuation",
)


def test_by_id_drops_what_the_literal_empty_id_policy_drops() -> None:
    body = stream(
        chunk(call(0, "call_a", "get_weather", "{")),
        chunk(call(0, "", "", '"city": "Paris"}')),
    )
    literal = analyze_bytes(body, "openai-chat", "literal")
    assert calls(run(BY_ID, body)) == [("call_a", "get_weather", "{")]
    assert [(c.id, c.name, c.arguments) for c in literal.acc.assembled()] == [
        ("call_a", "get_weather", "{")
    ]


@pytest.mark.parametrize("stream_id", EMPTY_ID_STREAMS)
def test_by_id_agrees_with_the_literal_policy_on_the_empty_id_streams(stream_id: str) -> None:
    found = [s for s in all_streams(all_real_fixtures()) if s.id == stream_id]
    assert found, stream_id
    exchange = found[0].exchange()
    literal = analyze_bytes(exchange.body, "openai-chat", "literal")
    want = [(c.id, c.name, c.arguments) for c in literal.acc.assembled()]
    assert want and calls(run_replica(BY_ID, exchange, [], False)) == want


def test_openai_python_hands_over_a_computer_calls_batched_actions() -> None:
    """The GA computer tool's item holds ``actions`` (its ``action`` is null): the library's
    model is handed over with them, and the replica's input says so (not ``""``)."""
    from openai.types.responses import ResponseComputerToolCall

    from inspector.core.clients.openai_python.items import handed_item

    wire = {"type": "computer_call", "id": "cu_1", "call_id": "call_cu", "status": "completed",
            "pending_safety_checks": [], "actions": [{"type": "screenshot"}]}  # fmt: skip
    item = ResponseComputerToolCall.model_validate(wire)
    handed = handed_item(item)
    assert (handed.id, handed.kind, handed.item_type) == ("call_cu", "builtin", "computer_call")
    assert handed.arguments == '[{"type":"screenshot"}]'
