"""The replica driver (inspector/core/clients/judge.py) and the clients' words, with a toy
replica: agreement, where a client diverges, n/a for other dialects, failed requests."""

from __future__ import annotations

import json
from typing import ClassVar

from inspector.core.analysis.session import Analysis
from inspector.core.base.model import EventKind, SSEEvent
from inspector.core.base.settings import Settings
from inspector.core.capture.reader import load_bytes
from inspector.core.clients.base import (
    ClientRaised,
    Exchange,
    HandedCall,
    Partial,
    Replica,
    ReplicaRun,
)
from inspector.core.clients.judge import judge_attempt, run_replica
from inspector.core.providers import REGISTRY
from inspector.core.reports.clients import clients_verdict


class _ByIndexRun(ReplicaRun):
    """Concatenates every string field by index; raises on a data line that is not JSON."""

    def __init__(self) -> None:
        super().__init__()
        self.slots: dict[int, int] = {}

    def feed(self, event: SSEEvent) -> None:
        if event.kind != EventKind.EVENT or event.data == "[DONE]":
            return
        try:
            chunk = json.loads(event.data)
        except json.JSONDecodeError as e:
            raise ClientRaised("JSONDecodeError", str(e)) from None
        for tc in chunk["choices"][0]["delta"].get("tool_calls") or []:
            pos = self.slots.setdefault(tc["index"], len(self.calls))
            if pos == len(self.calls):
                self.calls.append(Partial(id="", name=""))
            call = self.calls[pos]
            call.id = (call.id or "") + (tc.get("id") or "")
            call.name = (call.name or "") + (tc.get("function", {}).get("name") or "")
            if tc.get("function", {}).get("arguments"):
                call.parts.append(tc["function"]["arguments"])
            self.touched.add(pos)

    def finish(self) -> list[HandedCall]:
        return [c.handed() for c in self.calls]


class Toy(Replica):
    name = "toy"
    library = "toy"
    version = "0"
    follows = "tests/core/clients/test_driver.py"
    dialects: ClassVar[frozenset[str]] = frozenset({"openai-chat"})
    summary = "a by-index loop"

    def open(self, exchange: Exchange) -> ReplicaRun:
        if exchange.status >= 400:
            raise ClientRaised("APIStatusError", f"Error code: {exchange.status}")
        return _ByIndexRun()


def _chunk(*calls: dict[str, object]) -> bytes:
    return (
        b"data: "
        + json.dumps({"choices": [{"index": 0, "delta": {"tool_calls": list(calls)}}]}).encode()
        + b"\n\n"
    )


def _tc(
    index: int, id_: str | None = None, name: str | None = None, args: str = ""
) -> dict[str, object]:
    out: dict[str, object] = {"index": index, "function": {"arguments": args}}
    if id_ is not None:
        out["id"] = id_
        out["type"] = "function"
        out["function"] = {"name": name, "arguments": args}
    return out


def _analysis(body: bytes) -> Analysis:
    return Analysis.from_capture(
        load_bytes(body, "t.sse"), Settings(dialect="openai-chat"), providers=REGISTRY
    )


CLEAN = (
    _chunk(_tc(0, "call_a", "get_weather"))
    + _chunk(_tc(0, args='{"city": "Paris"}'))
    + _chunk(_tc(1, "call_b", "get_time"))
    + _chunk(_tc(1, args="{}"))
    + b"data: [DONE]\n\n"
)
MERGED = (
    _chunk(_tc(0, "call_a", "get_weather", '{"city": "Paris"}'))
    + _chunk(_tc(0, "call_b", "get_weather", '{"city": "Rome"}'))
    + b"data: [DONE]\n\n"
)


def test_a_clean_stream_agrees_and_never_diverges() -> None:
    analysis = _analysis(CLEAN)
    result = judge_attempt(analysis.final, Toy())
    assert result.agrees is True and result.error is None and result.diverges_at is None
    assert [c.name for c in result.calls] == ["get_weather", "get_time"]


def test_two_calls_on_one_index_are_merged_from_the_chunk_that_repeats_the_index() -> None:
    analysis = _analysis(MERGED)
    assert len(analysis.final.verdicts) == 2  # the inspector keeps them apart (new id)
    verdict = clients_verdict(analysis, [Toy()])
    result = verdict.results["toy"]
    assert result.agrees is False
    assert result.diverges_at == 1  # the second chunk made call_a's id call_acall_b
    assert verdict.words["toy"] == "merged"
    assert verdict.broken == ["toy"]
    assert verdict.phrase() == "breaks 1 client: toy (merged)"


def test_a_keep_alive_inside_data_raises_on_its_event() -> None:
    body = (
        _chunk(_tc(0, "call_a", "f", "{}"))
        + b"data: : OPENROUTER PROCESSING\n\n"
        + b"data: [DONE]\n\n"
    )
    verdict = clients_verdict(_analysis(body), [Toy()])
    result = verdict.results["toy"]
    assert result.error is not None and result.error.type == "JSONDecodeError"
    assert result.diverges_at == 1 and verdict.words["toy"] == "raised"


def test_another_dialect_is_not_applicable_never_agreement() -> None:
    start = {"type": "message_start", "message": {"id": "m", "type": "message", "content": []}}
    body = b"event: message_start\ndata: " + json.dumps(start).encode() + b"\n\n"
    analysis = Analysis.from_capture(
        load_bytes(body, "a.sse"), Settings(dialect="anthropic"), providers=REGISTRY
    )
    verdict = clients_verdict(analysis, [Toy()])
    assert verdict.results["toy"].applies is False and verdict.results["toy"].agrees is None
    assert verdict.words["toy"] == "n/a"
    assert verdict.phrase() == "no client replica speaks this dialect"


def test_a_failed_request_agrees_when_the_client_raises() -> None:
    exchange = Exchange([], b'{"error": "no"}', status=401, content_type="application/json")
    result = run_replica(Toy(), exchange, [], failed=True)
    assert result.agrees is True and result.error is not None and result.diverges_at is None
    result = run_replica(Toy(), exchange, [HandedCall("x", "f", "{}")], failed=False)
    assert result.agrees is False


class _Broken(Toy):
    name = "broken"

    def open(self, exchange: Exchange) -> ReplicaRun:
        raise ZeroDivisionError("a replica bug")


def test_a_replica_bug_is_a_result_never_the_end_of_the_report() -> None:
    verdict = clients_verdict(_analysis(CLEAN), [_Broken()])
    result = verdict.results["broken"]
    assert result.error is not None and result.error.type == "ReplicaBug"
    assert "ZeroDivisionError: a replica bug" in result.error.message
    assert result.agrees is False and verdict.words["broken"] == "raised"
    failed = run_replica(_Broken(), Exchange([], status=500), [], failed=True)
    assert failed.agrees is False  # a bug is never agreement, even on a failed request


def test_a_result_does_not_keep_its_analysis_alive() -> None:
    """The cache is weak on the stream state: a client's error must not hold a traceback
    whose frames reach the analysis (the window would keep every session it judged)."""
    import gc
    import weakref

    body = _chunk(_tc(0, "call_a", "f", "{}")) + b"data: : OPENROUTER PROCESSING\n\n"
    analysis = _analysis(body)
    result = judge_attempt(analysis.final, Toy())
    assert result.error is not None and result.error.__traceback__ is None
    state = weakref.ref(analysis.final.state)
    del analysis
    gc.collect()
    assert state() is None


def test_clients_are_compared_with_the_conforming_reading_whatever_the_toggle() -> None:
    """Under the ``literal`` empty-id policy the lanes show the by-id bug; a client that
    assembles the calls right must not be said to break because of that."""
    body = (
        _chunk(_tc(0, "call_a", "get_weather", '{"city": '))
        + _chunk({"index": 0, "id": "", "function": {"name": "", "arguments": '"Paris"}'}})
        + b"data: [DONE]\n\n"
    )
    capture = load_bytes(body, "t.sse")
    literal = Analysis.from_capture(
        capture, Settings(dialect="openai-chat", empty_id="literal"), providers=REGISTRY
    )
    assert literal.final.verdicts[0].call.arguments == '{"city": '  # the bug, in the lanes
    verdict = clients_verdict(literal, [Toy()])
    assert verdict.words["toy"] == "agrees", verdict.results["toy"]
    assert verdict.expected["toy"][0].arguments == '{"city": "Paris"}'
    assert clients_verdict(literal, [Toy()]).results["toy"] is verdict.results["toy"]  # cached
