"""A call of one fragment holds no list, and its slot is its wire index's own int (issue 17:
200,000 one-chunk calls). Structure only: what is allocated and what is shared."""

from __future__ import annotations

import gc

from inspector.core.base.model import OMITTED, ToolCallDelta
from inspector.core.calls.accumulator import LITERAL, Accumulator


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
