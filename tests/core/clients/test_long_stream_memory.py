"""What the clients verdict holds on long streams: the inspector's calls built once and
shared, agreeing clients holding no call of their own, the SDK's decoding kept as columns,
and a flood of comments never fed to a replica."""

from __future__ import annotations

import json
import sys
from typing import Any

from inspector.core.analysis.session import Analysis
from inspector.core.base.model import EventKind, SSEEvent
from inspector.core.base.settings import Settings
from inspector.core.capture.reader import load_bytes
from inspector.core.clients.base import Exchange
from inspector.core.clients.judge import exchange_of, expected_calls, run_replica
from inspector.core.clients.langchain.partial_json import parse_partial_json
from inspector.core.clients.openai_sdk import wire as openai_wire
from inspector.core.clients.registry import REPLICAS, replica
from inspector.core.events.sse import decode_all
from inspector.core.providers import REGISTRY
from inspector.core.reports.clients import clients_verdict

CALLS = 300
COMMENTS = 50_000


def _chunk(calls: list[dict[str, Any]], finish: str | None = None) -> bytes:
    choice = {"index": 0, "delta": {"tool_calls": calls} if calls else {}, "finish_reason": finish}
    obj = {"id": "c", "object": "chat.completion.chunk", "model": "m", "choices": [choice]}
    return b"data: " + json.dumps(obj).encode() + b"\n\n"


def _call(i: int, args: str) -> dict[str, Any]:
    fn = {"name": "lookup", "arguments": args}
    return {"index": i, "id": f"call_{i}", "type": "function", "function": fn}


def _many_calls() -> bytes:
    body = [_chunk([_call(i, f'{{"id":{i}}}')]) for i in range(CALLS)]  # compact: as re-written
    return b"".join(body) + _chunk([], "tool_calls") + b"data: [DONE]\n\n"


def _analysis(body: bytes) -> Analysis:
    capture = load_bytes(body, "t.sse")
    return Analysis.from_capture(capture, Settings(dialect="openai-chat"), providers=REGISTRY)


def test_agreeing_clients_hold_the_inspectors_very_calls() -> None:
    analysis = _analysis(_many_calls())
    verdict = clients_verdict(analysis)
    expected = expected_calls(analysis.final)
    assert len(expected) == CALLS and expected_calls(analysis.final) is expected  # built once
    agreeing = [r for r in verdict.results.values() if r.agrees]
    assert {r.replica for r in agreeing} == {
        r.name for r in REPLICAS if "openai-chat" in r.dialects
    }
    for result in agreeing:
        assert verdict.expected[result.replica] is expected  # one tuple for every client
        assert result.calls is expected, result.replica  # no call of its own
        assert result.calls[7].arguments is expected[7].arguments
    assert not openai_wire._MEMO  # the SDK's decoding is dropped once the replicas are done


def test_a_call_equal_to_the_inspectors_is_shared_where_another_differs() -> None:
    """by-index merges two calls sent on one index; the calls around them it hands over as
    the inspector assembled them are the inspector's objects."""
    body = (
        _chunk([_call(0, "{}")])
        + _chunk([{**_call(0, "{}"), "id": "call_x"}])
        + _chunk([_call(1, '{"a": 1}')])
        + _chunk([], "tool_calls")
        + b"data: [DONE]\n\n"
    )
    analysis = _analysis(body)
    expected = expected_calls(analysis.final)
    result = run_replica(replica("by-index"), exchange_of(analysis.final), expected, False)
    assert not result.agrees and len(result.calls) == 2 and len(expected) == 3
    assert result.calls[1] is expected[2] and result.calls[0] is not expected[0]


def test_the_sdk_decoding_of_a_long_body_is_kept_as_columns() -> None:
    body = b"".join(_chunk([_call(0, "x")]) for _ in range(2_000)) + b"data: [DONE]\n\n"
    events = decode_all(body)
    wire = openai_wire.decode(Exchange(events, body))
    assert len(wire) == 2_000 and wire.done
    assert not wire.texts and not wire.named  # no string kept per dispatch
    assert sys.getsizeof(wire.seqs) + sys.getsizeof(wire.spans) < 2_000 * 40
    assert wire.data(1999) == events[1999].data and wire.seqs[1999] == 1999


def test_a_flood_of_comments_is_never_fed_to_a_replica() -> None:
    half = b": keep-alive\n" * (COMMENTS // 2)
    body = (
        (_chunk([_call(0, "")]) + half + _chunk([{"index": 0, "function": {"arguments": "{}"}}]))
        + half
        + _chunk([], "tool_calls")
        + b"data: [DONE]\n\n"
    )
    analysis = _analysis(body)
    exchange = exchange_of(analysis.final)
    assert len(exchange.events) > COMMENTS
    for each in REPLICAS:
        if "openai-chat" not in each.dialects:
            continue
        fed: list[SSEEvent] = list(each.open(exchange).relevant(exchange.events))
        assert len(fed) <= 4, each.name  # the three chunks and [DONE], at most
        assert all(e.kind == EventKind.EVENT for e in fed)
    verdict = clients_verdict(analysis)
    assert verdict.results["litellm"].agrees and verdict.results["vercel-ai"].agrees


def test_cut_arguments_parse_without_a_list_per_character() -> None:
    """LangChain's partial parse of long cut arguments: the same value as the library's
    character-by-character loop gives (a raw newline written as ``\\n``, the string closed)."""
    long = "y" * 200_000
    assert parse_partial_json('{"blob": "' + long + "\nz") == {"blob": long + "\nz"}
    assert parse_partial_json('{"a": [1, {"b": "c\\') == {"a": [1, {"b": "c"}]}
    assert parse_partial_json('{"a": 1]') is None


def test_openai_python_reads_each_call_a_bounded_number_of_times(monkeypatch: Any) -> None:
    """A chunk that appends a call past the end is checked against that call (and the ones it
    merged into), not every call held: the work stays linear in the number of calls."""
    from inspector.core.clients.openai_python import mirror as openai_mirror

    reads = 0
    grown = openai_mirror.ChatMirror._grown

    def counted(self: openai_mirror.ChatMirror, pos: int, call: Any) -> bool:
        nonlocal reads
        reads += 1
        return grown(self, pos, call)

    monkeypatch.setattr(openai_mirror.ChatMirror, "_grown", counted)
    analysis = _analysis(_many_calls())
    result = run_replica(
        replica("openai-python"),
        exchange_of(analysis.final),
        expected_calls(analysis.final),
        False,
    )
    assert result.agrees and len(result.calls) == CALLS
    assert reads <= 2 * CALLS  # every call re-read on every new call: CALLS² / 2


def _responses_body(n: int) -> bytes:
    def event(obj: dict[str, Any]) -> bytes:
        return f"event: {obj['type']}\ndata: {json.dumps(obj)}\n\n".encode()

    response = {"id": "resp_1", "object": "response", "status": "in_progress", "output": []}
    out, done = [event({"type": "response.created", "response": response})], []
    for i in range(n):
        item = {"type": "function_call", "id": f"fc_{i}", "call_id": f"call_{i}",
                "name": "lookup", "arguments": "", "status": "in_progress"}  # fmt: skip
        args = f'{{"id":{i}}}'
        out.append(event({"type": "response.output_item.added", "output_index": i, "item": item}))
        delta = {"output_index": i, "item_id": f"fc_{i}", "delta": args}
        out.append(event({"type": "response.function_call_arguments.delta", **delta}))
        done.append({**item, "arguments": args, "status": "completed"})
        out.append(
            event({"type": "response.output_item.done", "output_index": i, "item": done[-1]})
        )
    final = {**response, "status": "completed", "output": done}
    return b"".join(out) + event({"type": "response.completed", "response": final})


def test_the_responses_mirror_reads_each_call_a_bounded_number_of_times(
    monkeypatch: Any,
) -> None:
    from inspector.core.clients.openai_python.responses import ResponsesRun

    reads = 0
    grown = ResponsesRun._grown

    def counted(self: ResponsesRun, pos: int, item: Any) -> bool:
        nonlocal reads
        reads += 1
        return grown(self, pos, item)

    monkeypatch.setattr(ResponsesRun, "_grown", counted)
    capture = load_bytes(_responses_body(CALLS), "t.sse")
    settings = Settings(dialect="openai-responses")
    analysis = Analysis.from_capture(capture, settings, providers=REGISTRY)
    expected = expected_calls(analysis.final)
    run = run_replica(replica("openai-python"), exchange_of(analysis.final), expected, False)
    assert run.agrees and len(expected) == CALLS
    assert reads <= 4 * CALLS  # every call re-read on every event: 3 * CALLS² / 2
