"""What the core keeps per call, per verdict and per quirk is compact, and reads as before.

Issue 17 (huge inputs): a stream may hold 200,000 calls or a million keep-alive comments.
These tests check structure (what is shared, what is not allocated), never timings or RSS.
"""

from __future__ import annotations

import gc

from inspector.core.analysis.session import Analysis
from inspector.core.base.model import OMITTED, ToolCallDelta
from inspector.core.base.settings import LITERAL
from inspector.core.calls.accumulator import Accumulator
from inspector.core.calls.toolcall import NONE
from inspector.core.providers import REGISTRY
from inspector.core.quirks.seqruns import SeqRuns
from inspector.core.verdicts.judge import NO_PROBLEMS, CallVerdict


def analyze(body: bytes) -> Analysis:
    analysis = Analysis(providers=REGISTRY)
    analysis.feed(body)
    analysis.end()
    return analysis


def frag(seq: int, index: object = 0, id: object = OMITTED, name: object = OMITTED,
         args: object = OMITTED) -> ToolCallDelta:  # fmt: skip
    return ToolCallDelta(seq, 0, index, id, name, args)


def test_a_one_fragment_call_allocates_no_per_call_empty_lists() -> None:
    acc = Accumulator()
    acc.add(frag(0, 0, "call_1", "f", '{"a": 1}'))
    call = acc.calls[0]
    assert call.id_changes is NONE and call.name_changes is NONE
    assert call.late_fragments is NONE and call.dropped_positions is NONE
    assert call.parts == ('{"a": 1}',) and call.arguments == '{"a": 1}'
    assert call._parts is None  # one piece: the text itself, no list
    assert call._rare is None and not call.args_from_final and call.final_mismatch is None
    assert call.fragments == [acc.calls[0].fragments[0]] and call.dropped_count == 0
    assert not hasattr(call, "__dict__")
    gc.collect()
    before = len(gc.get_objects())
    for i in range(1, 1001):
        acc.add(frag(i, i, f"call_{i}", "f", "{}"))
    per_call = (len(gc.get_objects()) - before) / 1000
    assert per_call < 3.5  # the delta, the call, its fragments list (was 9: six lists more)


def test_accepted_reads_like_the_list_it_replaces_under_the_literal_policy() -> None:
    """The empty-id accumulator bug: continuations with ``"id": ""`` are dropped under
    ``literal`` and shown struck through in the lane they were meant for."""
    acc = Accumulator(LITERAL)
    acc.add(frag(0, 0, "c1", "f", '{"a"'))
    acc.add(frag(1, 0, "", OMITTED, ": 1"))
    acc.add(frag(2, 0, OMITTED, OMITTED, ""))
    acc.add(frag(3, 0, "", OMITTED, "}"))
    call = acc.calls[0]
    flags = [True, False, True, False]
    assert call.accepted == flags and list(call.accepted) == flags and len(call.accepted) == 4
    assert [call.accepted[i] for i in range(-4, 4)] == flags + flags
    assert call.accepted[1:] == flags[1:] and call.accepted[::2] == flags[::2]
    assert call.accepted[:3].count(False) == 1 and call.accepted.count(False) == 2
    assert call.accepted.count(True) == 2 and call.dropped_count == 2
    assert [d.seq for d in call.dropped] == [1, 3] and list(call.dropped_positions) == [1, 3]
    assert call.arguments == '{"a"'


def test_parts_and_arguments_across_pieces() -> None:
    acc = Accumulator()
    acc.add(frag(0, 0, "c1", "f", ""))
    call = acc.calls[0]
    assert call.parts == () and call.arguments == "" and call.length == 0
    for seq, piece in enumerate(('{"a"', ": ", "1}"), 1):
        acc.add(frag(seq, args=piece))
    assert list(call.parts) == ['{"a"', ": ", "1}"] and call.arguments == '{"a": 1}'
    assert call.length == 8


def test_rare_attributes_are_kept_from_their_first_entry() -> None:
    acc = Accumulator()
    acc.add(frag(0, 0, "a", "f", "{"))
    acc.add(frag(1, 0, "b", OMITTED, "}"))
    acc.close(0, 2)
    acc.add(frag(3, 0, args=" "))
    call = acc.calls[0]
    assert call.id_changes == [(1, "b")] and call.late_fragments == [3]
    assert list(call.name_changes) == [] and call.dropped_count == 0


def test_a_verdict_is_slim_and_shares_its_empty_problems() -> None:
    state = analyze(b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c",'
                    b'"function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}'
                    b"\n\ndata: [DONE]\n\n")  # fmt: skip
    verdicts = state.final.verdicts
    assert len(verdicts) == 1 and verdicts[0].valid
    assert verdicts[0].problems is NO_PROBLEMS and not hasattr(verdicts[0], "__dict__")
    assert isinstance(verdicts[0], CallVerdict)


def test_seqruns_equal_the_list_they_replace() -> None:
    seqs = [3, 4, 5, 5, 9, 10, 12, 7, 2]
    runs = SeqRuns()
    for s in seqs:
        runs.append(s)
    want = sorted(set(seqs))
    assert runs == want and list(runs) == want and len(runs) == len(want)
    assert [runs[i] for i in range(-len(want), len(want))] == want + want
    assert runs[2:5] == want[2:5] and 7 in runs and 8 not in runs
    assert runs.copy() == runs and runs.runs == 4  # 2..5, 7, 9..10, 12
    runs.add_run(12, 20)  # joins the last run
    runs.add_run(30, 32)
    runs.add_run(0, 2)  # points back: merged at the next read
    assert runs == [0, 1, 2, 3, 4, 5, 7, 9, 10, *range(12, 20), 30, 31] and runs.runs == 5
    million = SeqRuns(range(1, 1_000_001))
    assert len(million) == 1_000_000 and million.runs == 1 and million[-1] == 1_000_000


def test_a_million_keepalives_make_one_quirk_of_two_runs() -> None:
    comments = b": keep-alive\n" * 20_000
    body = (
        b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":'
        b'{"name":"f","arguments":"{}"}}]},"finish_reason":null}]}\n\n'
        + comments
        + b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\n'
        + comments
        + b"data: [DONE]\n\n"
    )
    state = analyze(body)
    (quirk,) = [q for q in state.final.quirks if q.code == "keepalive_comments"]
    assert isinstance(quirk.chunks, SeqRuns) and quirk.chunks.runs == 2
    assert quirk.chunks == list(range(1, 20_001)) + list(range(20_002, 40_002))
    assert quirk.to_json()["chunks"] == list(quirk.chunks)


def test_a_round_lists_its_calls_lazily_for_a_streamed_report() -> None:
    analysis = analyze(
        b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":'
        b'{"name":"f","arguments":"{}"}},{"index":1,"id":"b","function":{"name":"g",'
        b'"arguments":"{}"}}]},"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n'
    )
    (rnd,) = analysis.rounds
    whole, lazy = rnd.to_json(), rnd.to_json(lazy=True)
    assert not isinstance(lazy["tool_calls"], list)
    assert (
        list(lazy["tool_calls"])
        == whole["tool_calls"]
        == [
            {"slot": 0, "id": "a", "name": "f"},
            {"slot": 1, "id": "b", "name": "g"},
        ]
    )


def test_an_attempt_record_keeps_verdicts_and_makes_diagnostics_when_read() -> None:
    analysis = analyze(
        b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":'
        b'{"name":"f","arguments":"{bad"}}]},"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n'
    )
    (record,) = analysis.records
    (verdict,) = record.invalid
    assert isinstance(verdict, CallVerdict) and not verdict.valid
    (diagnostic,) = record.invalid_tool_calls
    assert diagnostic["raw_arguments"] == "{bad" and diagnostic["problems"][0]["code"] == (
        "invalid_json"
    )
    lazy = record.to_json(lazy=True)
    assert not isinstance(lazy["invalid_tool_calls"], list)
    assert list(lazy["invalid_tool_calls"]) == record.to_json()["invalid_tool_calls"]
