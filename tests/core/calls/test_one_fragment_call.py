"""A call of one fragment holds no list, and its slot is its wire index's own int (issue 17:
200,000 one-chunk calls). Structure only: what is allocated and what is shared."""

from __future__ import annotations

import gc

from inspector.core.base.model import OMITTED, Delta, DeltaKind, ToolCallDelta
from inspector.core.base.settings import LITERAL
from inspector.core.calls.accumulator import Accumulator
from inspector.core.calls.toolcall import ToolCall


def frag(seq: int, index: object = 0, id: object = OMITTED, name: object = OMITTED,
         args: object = OMITTED) -> ToolCallDelta:  # fmt: skip
    return ToolCallDelta(seq, 0, index, id, name, args)


def test_a_one_fragment_call_holds_its_opener_and_no_list() -> None:
    acc = Accumulator()
    opener = frag(0, 0, "call_1", "f", "{}")
    acc.add(opener)
    call = acc.calls[0]
    assert call._frags is None and call._first is opener
    assert call.fragments == [opener] and call.fragments[0] is opener
    assert len(call.fragments) == call.fragment_count == 1
    assert call.accepted == [True] and len(call.accepted) == 1
    gc.collect()
    before = len(gc.get_objects())
    for i in range(1, 1001):
        acc.add(frag(i, i, f"call_{i}", "f", "{}"))
    per_call = (len(gc.get_objects()) - before) / 1000
    assert per_call < 2.5  # the delta and the call (a fragments list each made it 3)


def test_the_second_fragment_makes_the_list_the_call_keeps() -> None:
    acc = Accumulator()
    first, second, third = (
        frag(0, 0, "c", "f", '{"a"'),
        frag(1, 0, args=": 1"),
        frag(2, 0, args="}"),
    )
    for d in (first, second, third):
        acc.add(d)
    call = acc.calls[0]
    assert call._frags is not None and call.fragments is call.fragments  # kept, not remade
    assert [d is e for d, e in zip(call.fragments, (first, second, third), strict=True)] == [
        True,
        True,
        True,
    ]
    assert call.fragment_count == 3 and call.arguments == '{"a": 1}'


def test_a_fragment_dropped_after_the_opener_is_kept_struck_through() -> None:
    """The empty-id accumulator bug: the second fragment is refused, yet it is in the lane."""
    acc = Accumulator(LITERAL)
    acc.add(frag(0, 0, "c1", "f", '{"a"'))
    dropped = frag(1, 0, "", OMITTED, ": 1")
    acc.add(dropped)
    call = acc.calls[0]
    assert call.fragment_count == 2 and call.fragments[1] is dropped
    assert list(call.dropped_positions) == [1] and call.accepted == [True, False]
    assert call.dropped == [dropped] and call.arguments == '{"a"'


def test_a_calls_slot_is_its_wire_index_object_when_they_are_equal() -> None:
    acc = Accumulator()
    for i in range(300):
        acc.add(frag(i, int(str(i)), f"call_{i}", "f", "{}"))  # a fresh int, as decoded
    call = acc.calls[299]
    assert call.slot == 299 and call.slot is call.index  # no second int for the slot
    other = Accumulator()
    other.add(frag(0, 7, "a", "f", "{}"))
    assert other.calls[0].slot == 0 and other.calls[0].index == 7
    unindexed = Accumulator()
    unindexed.add(frag(0, OMITTED, "a", "f", "{}"))
    assert unindexed.calls[0].slot == 0 and type(unindexed.calls[0].slot) is int


def test_the_id_table_is_kept_only_under_the_literal_policy() -> None:
    absent, literal = Accumulator(), Accumulator(LITERAL)
    for acc in (absent, literal):
        for i in range(50):
            acc.add(frag(i, i, f"call_{i}", "f", "{}"))
    assert not absent._by_id and len(literal._by_id) == 50
    literal.add(frag(50, 3, "call_7", OMITTED, "x"))  # literal looks the id up: call 7
    assert literal.calls[7].fragment_count == 2 and literal.calls[3].fragment_count == 1


def test_the_index_table_is_dropped_at_the_end_and_rebuilt_the_same() -> None:
    """After the end, a fragment still routes as before: to the last call opened at its
    index (here index 0 was reused by a parallel call, which the rebuilt table must name)."""

    def fed() -> Accumulator:
        acc = Accumulator()
        acc.add(frag(0, 0, "a", "f", "{"))
        acc.add(frag(1, 1, "b", "g", "{"))
        acc.add(frag(2, 0, "c", "h", "{"))  # another id at index 0: a new call
        return acc

    kept, dropped = fed(), fed()
    dropped.end_of_stream()
    assert dropped._by_index == {} and dropped._dropped_index
    kept.close_all(3, "done")  # closed alike, table kept
    for acc in (kept, dropped):
        acc.add(frag(4, 0, args="}"))
    assert [c.fragment_count for c in dropped.calls] == [c.fragment_count for c in kept.calls]
    assert dropped.calls[2].fragment_count == 2 and list(dropped.calls[2].late_fragments) == [4]
    slots = [{k: c.slot for k, c in acc._by_index.items()} for acc in (dropped, kept)]
    assert slots[0] == slots[1] == {0: 2, 1: 1} and not dropped._dropped_index


def test_truncated_and_index_cost_no_slot_of_their_own() -> None:
    """``index`` is the opener's; ``truncated`` lives in the rare record, made only when it
    is True (a cut-off finish on a call whose arguments parse sets False: no record)."""
    assert not {"index", "truncated", "open"} & set(ToolCall.__slots__)
    acc = Accumulator()
    acc.add(frag(0, 0, "a", "f", "{}"))
    acc.add(frag(1, 1, "b", "f", '{"q": '))
    acc.on_delta(Delta(2, DeltaKind.FINISH, "length"))  # cut off: is each call complete?
    whole, cut = acc.calls
    assert whole.truncated is False and whole._rare is None and whole.index == 0
    assert cut.truncated is True and cut._rare is not None and cut.index == 1
    later = Accumulator()
    later.add(frag(0, 4, "c", "f", "{"))
    later.end_of_stream()
    assert later.calls[0].truncated and later.calls[0].index == 4


def test_a_call_is_open_until_a_close_names_its_reason() -> None:
    acc = Accumulator()
    acc.add(frag(0, 0, "a", "f", "{"))
    call = acc.calls[0]
    assert call.open and call.close_reason is None
    acc.add(frag(1, 0, args="}"))  # the hot path reads ``open`` as having no reason yet
    assert call.fragment_count == 2
    acc.close(0, 2)
    assert not call.open and call.close_reason == "close" and call.close_seq == 2
    acc.add(frag(3, 0, args=" "))
    assert list(call.late_fragments) == [3] and call.arguments == "{} "  # late: noted, kept
