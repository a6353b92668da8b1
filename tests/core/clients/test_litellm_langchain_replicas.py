"""The LiteLLM and LangChain replicas on hand-built streams: each behaviour they model, where
they diverge from the inspector, and what they raise. Pure: no library is imported here (the
goldens and the live test hold the replicas to the real libraries)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from inspector.core.clients.base import Exchange, HandedCall
from inspector.core.clients.judge import ClientResult, run_replica
from inspector.core.clients.langchain.merge import LangChainReplica
from inspector.core.clients.langchain.partial_json import parse_partial_json
from inspector.core.clients.litellm.builder import LiteLLMReplica
from inspector.core.events.sse import decode_all

LITELLM = LiteLLMReplica()
LANGCHAIN = LangChainReplica()


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }  # fmt: skip


def call(index: Any = 0, id: Any = None, name: Any = None, args: Any = None) -> dict[str, Any]:
    """A chunk carrying one tool-call fragment (``index=...`` leaves the index out)."""
    entry: dict[str, Any] = {} if index is ... else {"index": index}
    if id is not None:
        entry["id"] = id
    entry["function"] = {k: v for k, v in (("name", name), ("arguments", args)) if v is not None}
    return chunk({"tool_calls": [entry]})


ROLE = chunk({"role": "assistant", "content": None})
FINISH = chunk({}, "tool_calls")


def body(*events: Any, done: bool = True) -> bytes:
    out = b"".join(
        b"data: " + (e if isinstance(e, bytes) else json.dumps(e).encode()) + b"\n\n"
        for e in events
    )
    return out + (b"data: [DONE]\n\n" if done else b"")


def exchange(raw: bytes, status: int = 200, transport_error: str | None = None) -> Exchange:
    return Exchange(decode_all(raw), raw, status, "text/event-stream", transport_error)


def run(replica: Any, raw: bytes, expected: list[HandedCall], status: int = 200) -> ClientResult:
    return run_replica(replica, exchange(raw, status), expected, failed=status >= 400)


def calls(result: ClientResult) -> list[tuple[str | None, str | None, str]]:
    return [(c.id, c.name, c.arguments) for c in result.calls]


CLEAN = body(
    ROLE, call(0, "call_a", "get_weather", ""), call(0, args='{"city":'), call(0, args='"Paris"}'),
    FINISH,
)  # fmt: skip
CLEAN_CALLS = [HandedCall("call_a", "get_weather", '{"city":"Paris"}')]

# three calls all on index 0, each opened by a new id (seq 1, 3, 5), arguments after it
INDEX_0 = body(
    ROLE,
    call(0, "call_a", "get_weather", ""), call(0, args='{"city":"Paris"}'),
    call(0, "call_b", "get_time", ""), call(0, args='{"tz":"UTC"}'),
    call(0, "call_c", "get_weather", ""), call(0, args='{"city":"Tokyo"}'),
    FINISH,
)  # fmt: skip
INDEX_0_CALLS = [
    HandedCall("call_a", "get_weather", '{"city":"Paris"}'),
    HandedCall("call_b", "get_time", '{"tz":"UTC"}'),
    HandedCall("call_c", "get_weather", '{"city":"Tokyo"}'),
]
KEEPALIVE = body(ROLE, call(0, "call_a", "get_weather", "{}"), b": OPENROUTER PROCESSING", FINISH)


@pytest.mark.parametrize("replica", [LITELLM, LANGCHAIN], ids=lambda r: r.name)
def test_a_clean_stream_agrees(replica: Any) -> None:
    result = run(replica, CLEAN, CLEAN_CALLS)
    assert result.agrees and result.diverges_at is None and result.error is None
    assert calls(result) == [("call_a", "get_weather", '{"city":"Paris"}')]


@pytest.mark.parametrize("replica", [LITELLM, LANGCHAIN], ids=lambda r: r.name)
def test_only_the_openai_chat_dialect(replica: Any) -> None:
    assert replica.dialects == frozenset({"openai-chat"})


# -- LiteLLM ---------------------------------------------------------------------------------


def test_litellm_merges_parallel_calls_on_index_0_keeping_the_last_id_and_name() -> None:
    result = run(LITELLM, INDEX_0, INDEX_0_CALLS)
    assert calls(result) == [
        ("call_c", "get_weather", '{"city":"Paris"}{"tz":"UTC"}{"city":"Tokyo"}')
    ]
    assert not result.agrees
    assert result.diverges_at == 3  # the second call's first chunk replaced the id and name


def test_litellm_keeps_the_last_of_ids_that_change_every_delta() -> None:
    raw = body(ROLE, call(0, "call_1", "f", "{"), call(0, "call_2", args="}"), FINISH)
    result = run(LITELLM, raw, [HandedCall("call_1", "f", "{}")])
    assert calls(result) == [("call_2", "f", "{}")]
    assert result.diverges_at == 2


def test_litellm_sorts_sparse_indexes_and_drops_calls_without_id_or_name() -> None:
    raw = body(call(3, "b", "g", "{}"), call(1, "a", "f", ""), call(2, "c", None, "{}"), FINISH)
    assert calls(run(LITELLM, raw, [])) == [("a", "f", "{}"), ("b", "g", "{}")]


def test_litellm_merges_entries_without_an_index() -> None:
    raw = body(call(..., "a", "f", '{"x"'), call(..., args=":1}"), FINISH)
    assert calls(run(LITELLM, raw, [])) == [("a", "f", '{"x":1}')]


def test_litellm_dumps_object_arguments_and_drops_a_delta_pydantic_refuses() -> None:
    raw = body(call(0, "a", "f", {"x": "é"}), call(1, 5, "g", "{}"), FINISH)
    assert calls(run(LITELLM, raw, [])) == [("a", "f", '{"x": "\\u00e9"}')]


def test_litellm_raises_on_a_keepalive_as_data_wrapped_for_fallback() -> None:
    result = run(LITELLM, KEEPALIVE, [HandedCall("call_a", "get_weather", "{}")])
    assert result.error is not None and result.error.type == "MidStreamFallbackError"
    text = (
        "litellm.APIConnectionError: APIConnectionError: OpenAIException - "
        "Expecting value: line 1 column 1 (char 0)"
    )
    assert result.error.message == (
        f"litellm.MidStreamFallbackError: {text} Original exception: APIConnectionError: {text}"
    )
    assert result.diverges_at == 2 and result.calls == []


def test_litellm_raises_when_no_finish_reason_came() -> None:
    result = run(LITELLM, body(call(0, "a", "f", "{}")), [HandedCall("a", "f", "{}")])
    assert result.error is not None
    assert "Stream ended before a finish_reason was received" in result.error.message


@pytest.mark.parametrize(
    ("status", "kind", "said"),
    [
        (401, "AuthenticationError", "AuthenticationError: "),
        (429, "RateLimitError", "RateLimitError: "),
        (400, "BadRequestError", ""),
        (503, "ServiceUnavailableError", "ServiceUnavailableError: "),
    ],
)
def test_litellm_maps_status_errors(status: int, kind: str, said: str) -> None:
    result = run(LITELLM, b'{"error": {"message": "bad key"}}', [], status)
    message = f"litellm.{kind}: {said}OpenAIException - bad key"
    assert result.error is not None and (result.error.type, result.error.message) == (kind, message)
    assert result.agrees


def test_litellm_words_a_rate_limit_by_its_message_mid_stream() -> None:
    raw = body(call(0, "a", "f", "{}"), {"error": {"message": "rate limit hit"}})
    result = run(LITELLM, raw, [])
    assert result.error is not None and result.error.type == "MidStreamFallbackError"
    assert "litellm.RateLimitError: RateLimitError: OpenAIException - rate limit hit" in (
        result.error.message
    )


# -- LangChain -------------------------------------------------------------------------------


def test_langchain_gives_later_parallel_calls_on_index_0_empty_arguments() -> None:
    result = run(LANGCHAIN, INDEX_0, INDEX_0_CALLS)
    assert calls(result) == [
        ("call_a", "get_weather", '{"city":"Paris"}'),
        ("call_b", "get_time", "{}"),
        ("call_c", "get_weather", "{}"),
    ]
    assert not result.agrees
    assert result.diverges_at == 4  # call_b's arguments went into call_a


def test_langchain_makes_phantom_calls_of_entries_without_an_index() -> None:
    raw = body(
        ROLE, call(..., "a", "f", ""), call(..., args='{"ci'), call(..., args='ty": 1}'), FINISH
    )
    result = run(LANGCHAIN, raw, [HandedCall("a", "f", '{"city": 1}')])
    assert calls(result) == [("a", "f", "{}"), (None, "", "{}"), (None, None, 'ty": 1}')]
    assert result.diverges_at == 2


def test_langchain_doubles_a_name_repeated_on_every_chunk() -> None:
    raw = body(ROLE, call(0, "a", "f", "{"), call(0, "a", "f", "}"), FINISH)
    result = run(LANGCHAIN, raw, [HandedCall("a", "f", "{}")])
    assert calls(result) == [("a", "ff", "{}")]
    assert result.diverges_at == 2


def test_langchain_starts_a_new_call_on_a_conflicting_id() -> None:
    raw = body(ROLE, call(0, "a", "f", '{"x":1}'), call(0, "null", "", "{}"), FINISH)
    assert calls(run(LANGCHAIN, raw, [])) == [("a", "f", '{"x":1}'), ("null", "", "{}")]


def test_langchain_completes_cut_arguments_and_lists_invalid_calls_last() -> None:
    raw = body(call(0, "a", "f", "[1]"), call(1, "b", "g", '{"x": "P'), FINISH)
    assert calls(run(LANGCHAIN, raw, [])) == [("b", "g", '{"x":"P"}'), ("a", "f", "[1]")]


def test_langchain_loses_every_call_once_a_user_role_chunk_arrives() -> None:
    user = chunk({"role": "user"})
    raw = body(ROLE, call(0, "a", "f", "{}"), user, call(1, "b", "g", "{}"), FINISH)
    assert calls(run(LANGCHAIN, raw, [])) == []  # every later chunk is a user message too


def test_langchain_raises_on_a_keepalive_as_data() -> None:
    result = run(LANGCHAIN, KEEPALIVE, [HandedCall("call_a", "get_weather", "{}")])
    assert result.error is not None
    assert (result.error.type, result.error.message) == (
        "JSONDecodeError", "Expecting value: line 1 column 1 (char 0)"
    )  # fmt: skip
    assert result.diverges_at == 2


def test_langchain_refuses_object_arguments_as_pydantic_words_it() -> None:
    result = run(LANGCHAIN, body(ROLE, call(0, "a", "f", {"city": "Paris"}), FINISH), [])
    assert result.error is not None and result.error.type == "ValidationError"
    assert result.error.message == (
        "1 validation error for AIMessageChunk\ntool_call_chunks.0.args\n  Input should be a "
        "valid string [type=string_type, input_value={'city': 'Paris'}, input_type=dict]\n"
        "    For further information visit https://errors.pydantic.dev/2.14/v/string_type"
    )


@pytest.mark.parametrize(
    ("status", "kind"),
    [(401, "OpenAIAuthenticationError"), (429, "OpenAIRateLimitError"), (500, "OpenAIAPIError"),
     (400, "OpenAIInvalidRequestError"), (409, "ConflictError")],
)  # fmt: skip
def test_langchain_maps_status_errors(status: int, kind: str) -> None:
    result = run(LANGCHAIN, b'{"error": {"message": "no"}}', [], status)
    assert result.error is not None
    assert (result.error.type, result.error.message) == (kind, f"Error code: {status} - no")


def test_langchain_raises_when_nothing_was_streamed() -> None:
    result = run(LANGCHAIN, body(), [])
    assert result.error is not None
    assert (result.error.type, result.error.message) == (
        "ValueError", "No generation chunks were returned"
    )  # fmt: skip


def test_a_reset_raises_the_connection_error_of_each() -> None:
    raw = body(call(0, "a", "f", '{"x"'), done=False)
    ex = exchange(raw, transport_error="connection reset")
    lc = run_replica(LANGCHAIN, ex, [], failed=True)
    assert lc.error is not None
    assert (lc.error.type, lc.error.message) == ("OpenAIConnectionError", "Connection error.")
    ll = run_replica(LITELLM, ex, [], failed=True)
    assert ll.error is not None and ll.error.type == "MidStreamFallbackError" and ll.agrees


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"a": 1}', {"a": 1}),
        ('{"a": [1, {"b": "x', {"a": [1, {"b": "x"}]}),
        ('{"a": 1}{"b": 2}', {"a": 1}),
        ('{"ci', {}),
        ('{"a": "x\\', {"a": "x"}),
        ("]", None),
    ],
)
def test_parse_partial_json_closes_what_was_cut(text: str, value: Any) -> None:
    assert parse_partial_json(text) == value


def test_parse_partial_json_raises_when_nothing_parses() -> None:
    with pytest.raises(json.JSONDecodeError):
        parse_partial_json("nope")
