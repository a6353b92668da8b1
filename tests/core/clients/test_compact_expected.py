"""The inspector's calls that clients are compared with hold one reference per call, each
handed call made when read; a client's calls that mostly equal them hold positions (issue 17:
200,000 calls). Structure only: what is held, what reads equal."""

from __future__ import annotations

import gc
import json
from typing import Any

from inspector.core.analysis.session import Analysis
from inspector.core.base.settings import Settings
from inspector.core.capture.reader import load_bytes
from inspector.core.clients import handed as handed_module
from inspector.core.clients.base import Exchange, HandedCall, Partial
from inspector.core.clients.handed import ClientCalls, InspectorCalls, entries
from inspector.core.clients.judge import _Prefix, exchange_of, expected_calls, run_replica, shared
from inspector.core.clients.openai_sdk import wire as openai_wire
from inspector.core.clients.registry import replica
from inspector.core.clients.vercel_ai.tracker import Tracker
from inspector.core.events.sse import decode_all
from inspector.core.providers import REGISTRY

CALLS = 400


def _chunk(calls: list[dict[str, Any]], finish: str | None = None) -> bytes:
    choice = {"index": 0, "delta": {"tool_calls": calls} if calls else {}, "finish_reason": finish}
    return b"data: " + json.dumps({"model": "m", "choices": [choice]}).encode() + b"\n\n"


def _call(i: int, args: str, id_: str | None = None) -> dict[str, Any]:
    fn = {"name": "lookup", "arguments": args}
    return {"index": i, "id": id_ or f"call_{i}", "type": "function", "function": fn}


def _analysis(body: bytes) -> Analysis:
    capture = load_bytes(body, "t.sse")
    return Analysis.from_capture(capture, Settings(dialect="openai-chat"), providers=REGISTRY)


def _many() -> Analysis:
    body = b"".join(_chunk([_call(i, f'{{"id":{i}}}')]) for i in range(CALLS))
    return _analysis(body + _chunk([], "tool_calls") + b"data: [DONE]\n\n")


def test_the_inspectors_calls_hold_no_handed_call_per_call() -> None:
    analysis = _many()
    gc.collect()
    before = sum(1 for o in gc.get_objects() if type(o) is HandedCall)
    expected = expected_calls(analysis.final)
    held = sum(1 for o in gc.get_objects() if type(o) is HandedCall) - before
    assert isinstance(expected, InspectorCalls) and len(expected) == CALLS
    assert held <= 1  # at most the last one read (none made until read)
    assert expected._verdicts is analysis.final.verdicts  # every call expected: the list itself
    fresh = InspectorCalls(analysis.final.verdicts)
    assert fresh[-1] == HandedCall(f"call_{CALLS - 1}", "lookup", f'{{"id":{CALLS - 1}}}')
    calls = [v.call for v in analysis.final.verdicts]
    assert expected[5] == HandedCall("call_5", "lookup", '{"id":5}')
    assert expected[5].arguments is calls[5].arguments  # the call's own string, not a copy
    assert expected[-1] == expected[CALLS - 1] and expected[1:3] == (expected[1], expected[2])
    assert list(expected) == [
        HandedCall(f"call_{i}", "lookup", f'{{"id":{i}}}') for i in range(CALLS)
    ]
    assert expected == tuple(expected) and tuple(expected) == expected  # reads as the tuple did


def test_an_agreeing_client_holds_the_inspectors_sequence_itself() -> None:
    analysis = _many()
    expected = expected_calls(analysis.final)
    result = run_replica(replica("litellm"), exchange_of(analysis.final), expected, False)
    assert result.agrees and result.calls is expected


def test_a_client_that_differs_in_one_call_holds_positions_for_the_rest() -> None:
    """by-index merges two calls sent on one index; the calls it hands over as the inspector
    assembled them are held as the inspector's positions, not as objects of their own."""
    body = (
        _chunk([_call(0, "{}")])
        + _chunk([_call(0, "{}", "call_x")])
        + _chunk([_call(1, '{"a": 1}')])
        + _chunk([_call(2, '{"b": 2}')])
        + _chunk([], "tool_calls")
        + b"data: [DONE]\n\n"
    )
    analysis = _analysis(body)
    expected = expected_calls(analysis.final)
    result = run_replica(replica("by-index"), exchange_of(analysis.final), expected, False)
    got = result.calls
    assert not result.agrees and isinstance(got, ClientCalls) and len(expected) == 4
    assert [got.source(pos) for pos in range(len(got))] == [None, 2, 3]
    assert got[1] == expected[2] and got[2].arguments is expected[3].arguments
    assert got[0] != expected[0] and list(got)[1:] == list(expected)[2:]


def test_shared_keeps_the_inspectors_arguments_for_a_renamed_call() -> None:
    expected = (HandedCall("a", "f", '{"x": 1}'), HandedCall("b", "g", "{}"))
    got = [HandedCall("z", "f", '{"x": 1}'), HandedCall("b", "g", "{}")]
    out = shared(expected, got)
    assert isinstance(out, ClientCalls) and out.source(0) is None and out.source(1) == 1
    assert out[0] == got[0] and out[0].arguments is expected[0].arguments
    assert shared(expected, list(expected)) is expected


def test_the_ai_sdk_tracker_holds_forwarded_indexes_as_bytes() -> None:
    tracker = Tracker([], set())
    for i in range(500):
        fn = {"name": "f", "arguments": "{}"}
        tracker.delta({"index": float(i), "id": f"c{i}", "function": fn})  # as JSON.parse reads
    forwarded = tracker.forwarded
    assert len(tracker.tracked) == 500 and not forwarded.others and len(forwarded.flags) == 500
    assert 3.0 in forwarded and 3 in forwarded and True in forwarded  # as a set: by value
    assert 500 not in forwarded and 2.5 not in forwarded and "3" not in forwarded
    forwarded.add(-1.0)
    forwarded.add(float(1 << 40))
    forwarded.add(float("nan"))
    assert -1 in forwarded and (1 << 40) in forwarded and len(forwarded.others) == 3
    assert len(forwarded.flags) == 500


def test_the_prefix_check_makes_its_rewritten_column_only_when_a_replica_rewrites() -> None:
    expected = (HandedCall("a", "f", '{"q": 1}'), HandedCall("b", "f", "{}"))
    prefix = _Prefix(expected)
    first = Partial("a", "f", '{"q"')
    assert prefix.holds([first], {0}) and prefix.rewritten is None  # 16 bytes a call
    first.add(": 1}")
    assert prefix.holds([first], {0}) and prefix.rewritten is None
    first.parts, first.rewritten = '{"q": 2}', 1  # the library replaced its text: re-read
    assert not prefix.holds([first], {0})
    first.parts = '{"q": 1}'
    assert prefix.holds([first], {0}) and prefix.rewritten is not None
    assert list(prefix.rewritten) == [1, 0]


def test_the_sdk_decoding_columns_are_four_bytes_wide_for_a_body_under_2_gib() -> None:
    body = b"".join(_chunk([_call(i, "{}")]) for i in range(50)) + b"data: [DONE]\n\n"
    wire = openai_wire.decode(Exchange(decode_all(body), body))
    assert len(wire) == 50 and wire.seqs.itemsize == 4 and wire.spans.itemsize == 4
    assert wire.data(49) == decode_all(body)[49].data
    assert openai_wire._spans(2**31).itemsize == 8


def test_the_report_entries_and_the_agreement_check_make_no_handed_call(monkeypatch: Any) -> None:
    analysis = _many()
    expected = expected_calls(analysis.final)
    assert isinstance(expected, InspectorCalls)
    want = [c.to_json() for c in expected]
    copies = [HandedCall(c.id, c.name, c.arguments) for c in expected]
    made = 0
    real = handed_module.handed

    def counted(call: Any) -> HandedCall:
        nonlocal made
        made += 1
        return real(call)

    monkeypatch.setattr(handed_module, "handed", counted)
    assert list(entries(expected)) == want
    assert expected.equal(copies) and shared(expected, copies) is expected
    assert not expected.equal([*copies[:-1], HandedCall("x", "lookup", "{}")])
    assert made == 0
