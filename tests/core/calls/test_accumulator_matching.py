"""The accumulator's matching rules, on hand-built deltas (no wire format involved)."""

from __future__ import annotations

from typing import Any

import pytest

from inspector.core.base.model import OMITTED, Delta, DeltaKind, ToolCallDelta
from inspector.core.calls.accumulator import Accumulator, repaired_id
from inspector.core.providers import REGISTRY

_seq = iter(range(10**6))


def frag(
    index: Any = 0,
    id: Any = OMITTED,
    name: Any = OMITTED,
    args: Any = OMITTED,
    seq: int | None = None,
    final: bool = False,
) -> ToolCallDelta:
    return ToolCallDelta(next(_seq) if seq is None else seq, 0, index, id, name, args, final=final)


def feed(acc: Accumulator, *frags: ToolCallDelta) -> Accumulator:
    for f in frags:
        acc.add(f)
    return acc


def args(acc: Accumulator) -> list[str]:
    return [c.arguments for c in acc.calls]


@pytest.mark.parametrize("blank", [OMITTED, None, ""])
def test_absent_joins_continuations_whatever_form_the_blank_id_takes(blank: Any) -> None:
    acc = feed(Accumulator(), frag(0, "call_1", "f", "{"), frag(0, blank, blank, '"a":1}'))
    assert args(acc) == ['{"a":1}'] and acc.calls[0].id == "call_1"


def test_null_string_id_does_not_open_a_call_under_absent() -> None:
    acc = feed(Accumulator(), frag(0, "call_1", "f", "{"), frag(0, "null", OMITTED, "}"))
    assert args(acc) == ["{}"]


def test_literal_drops_empty_and_null_string_ids_but_not_omitted_or_null() -> None:
    acc = feed(
        Accumulator("literal"),
        frag(0, "call_1", "f", "{"),
        frag(0, "", OMITTED, "1"),
        frag(0, "null", OMITTED, "2"),
        frag(0, None, OMITTED, "3"),
        frag(0, OMITTED, OMITTED, "4"),
    )
    assert args(acc) == ["{34"]
    assert [f.text for f in acc.calls[0].dropped] == ["1", "2"]
    assert acc.calls[0].dropped_count == acc.calls[0].accepted.count(False) == 2


def test_literal_repeated_full_id_is_found_and_joins() -> None:
    acc = feed(Accumulator("literal"), frag(0, "c1", "f", "{"), frag(0, "c1", "f", "}"))
    assert args(acc) == ["{}"] and len(acc.calls) == 1


def test_literal_drop_with_no_call_at_all_is_unrouted() -> None:
    acc = feed(Accumulator("literal"), frag(3, "", "", "{"))
    assert acc.calls == [] and len(acc.unrouted) == 1


def test_parallel_calls_at_one_index_with_new_ids_are_separate() -> None:
    acc = feed(
        Accumulator(),
        frag(0, "a", "write_file", '{"a":1}'),
        frag(0, "b", "write_file", '{"b":2}'),
        frag(0, "c", "write_file", "{}"),
    )
    assert [(c.id, c.name, c.arguments) for c in acc.calls] == [
        ("a", "write_file", '{"a":1}'),
        ("b", "write_file", '{"b":2}'),
        ("c", "write_file", "{}"),
    ]


def test_new_id_without_a_name_does_not_start_a_call() -> None:
    acc = feed(Accumulator(), frag(0, "a", "f", "{"), frag(0, "b", OMITTED, "}"))
    assert args(acc) == ["{}"] and acc.calls[0].id_changes == [(acc.calls[0].fragments[1].seq, "b")]


def test_missing_index_rules() -> None:
    acc = feed(
        Accumulator(),
        frag(OMITTED, "a", "f", "{"),
        frag(OMITTED, OMITTED, OMITTED, "}"),
        frag(OMITTED, "b", "g", "{}"),
    )
    assert [(c.id, c.arguments) for c in acc.calls] == [("a", "{}"), ("b", "{}")]


def test_sparse_indexes_and_start_at_one() -> None:
    acc = feed(Accumulator(), frag(1, "a", "f", "{}"), frag(5, "b", "g", "{"), frag(5, args="}"))
    assert [(c.index, c.arguments) for c in acc.calls] == [(1, "{}"), (5, "{}")]


def test_two_entries_with_one_index_in_one_chunk_both_count() -> None:
    acc = feed(
        Accumulator(),
        frag(0, "a", "f", "", seq=1),
        frag(0, args='{"x"', seq=2),
        frag(0, args=":1}", seq=2),
    )
    assert args(acc) == ['{"x":1}']


def test_next_index_closes_the_previous_call_in_openai_chat() -> None:
    acc = feed(Accumulator(), frag(0, "a", "f", "{}"))
    assert acc.calls[0].open
    feed(acc, frag(1, "b", "g", "{}"))
    assert not acc.calls[0].open and acc.calls[0].close_reason == "next_index"
    assert acc.calls[1].open


def test_anthropic_closes_only_on_content_block_stop() -> None:
    acc = feed(
        Accumulator(closing=REGISTRY.get("anthropic").closing), frag(1, "a", "f"), frag(2, "b", "g")
    )
    assert all(c.open for c in acc.calls)
    acc.on_delta(Delta(9, DeltaKind.CLOSE, 1))
    assert [c.open for c in acc.calls] == [False, True]
    acc.on_delta(Delta(10, DeltaKind.FINISH, "tool_use"))
    assert acc.calls[1].open  # a finish does not close an anthropic block
    acc.on_delta(Delta(11, DeltaKind.DONE))
    assert acc.calls[1].truncated and not acc.calls[0].truncated


def test_end_of_stream_truncates_open_calls_only() -> None:
    acc = feed(Accumulator(), frag(0, "a", "f", "{}"))
    acc.on_delta(Delta(5, DeltaKind.FINISH, "tool_calls"))
    feed(acc, frag(1, "b", "g", "{"))
    acc.end_of_stream()
    assert [c.truncated for c in acc.calls] == [False, True]


def test_length_finish_marks_incomplete_calls_truncated() -> None:
    acc = feed(Accumulator(), frag(0, "a", "f", "{}"), frag(1, "b", "g", '{"x":'))
    acc.on_delta(Delta(5, DeltaKind.FINISH, "length"))
    assert [c.truncated for c in acc.calls] == [False, True]


def test_final_fragment_fills_empty_buffer_or_is_compared() -> None:
    acc = feed(
        Accumulator(closing=REGISTRY.get("openai-responses").closing),
        frag(0, "c", "f", ""),
        frag(0, args='{"a":1}', final=True),
    )
    assert args(acc) == ['{"a":1}'] and acc.calls[0].args_from_final
    acc = feed(
        Accumulator(closing=REGISTRY.get("openai-responses").closing),
        frag(0, "c", "f", '{"a":1}'),
        frag(0, args='{"a":1}', final=True),
        frag(0, args='{"a":2}', final=True),
    )
    assert args(acc) == ['{"a":1}'] and acc.calls[0].final_mismatch == '{"a":2}'


def test_orphan_id_only_entry_is_left_out_of_the_turn() -> None:
    acc = feed(Accumulator(), frag(0, "a", "f", "{}"), frag(1, "orphan", OMITTED, OMITTED))
    assert [c.id for c in acc.assembled()] == ["a"]
    assert acc.is_orphan(acc.calls[1])


def test_id_only_prelude_then_payload_is_one_call() -> None:
    acc = feed(Accumulator(), frag(0, "call_1", OMITTED, OMITTED), frag(0, OMITTED, "f", "{}"))
    (call,) = acc.assembled()
    assert (call.id, call.name, call.arguments) == ("call_1", "f", "{}")


def test_name_arriving_late_and_id_repair_is_deterministic() -> None:
    acc = feed(Accumulator(), frag(0, OMITTED, OMITTED, "{"), frag(0, OMITTED, "f", "}"))
    (call,) = acc.assembled()
    assert call.name == "f" and call.id is OMITTED
    rid = repaired_id(call)
    assert rid == repaired_id(call) and len(rid) == 9 and rid.isalnum()


def test_fragment_after_close_still_joins_and_is_recorded() -> None:
    acc = feed(
        Accumulator(), frag(0, "a", "f", "{"), frag(1, "b", "g", "{}"), frag(0, args="}", seq=77)
    )
    assert args(acc) == ["{}", "{}"] and acc.calls[0].late_fragments == [77]


def test_cost_is_linear_in_fragments() -> None:
    """100k one-character fragments: the buffer is joined once, not per fragment."""
    acc = Accumulator()
    acc.add(frag(0, "a", "f", '{"x":"'))
    call = acc.calls[0]
    for _ in range(100_000):
        acc.add(frag(0, args="y"))
    assert call._joined is None  # nothing joined while streaming
    acc.add(frag(0, args='"}'))
    assert len(call.arguments) == 100_000 + 8
    assert call.arguments is call.arguments  # cached


def test_unknown_policy_is_refused() -> None:
    with pytest.raises(ValueError):
        Accumulator("sometimes")
