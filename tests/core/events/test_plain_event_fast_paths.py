"""The plain-event fast paths (a chunk per plain event; a buffer of plain events) give exactly
what line-by-line decoding gives: the same events field by field (times included), the same
decoder state after them, the same event log (offsets, texts read back from the held chunks,
how many are read back), whatever the chunking and wherever plain and other events mix."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any
from unittest.mock import patch

from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.core.calls.stream import StreamState
from inspector.core.events import held as held_module
from inspector.core.events import sse as sse_module
from inspector.core.events.plain import chunk_values, data_blocks
from inspector.core.events.sse import SSEDecoder
from inspector.core.providers import REGISTRY

_VALUES = ["", "x", "héllo", "日本", "{}", "a b", '{"k":"v"}', "🚀", "data: x", ":"]
_OTHERS = [
    b": keep-alive\n\n",
    b": c\n",
    b"event: t\ndata: 1\n\n",
    b"id: 7\ndata: i\n\n",
    b"id: \n\n",
    b"retry: 10\ndata: r\n\n",
    b"data: a\ndata: b\n\n",
    b"data:nospace\n\n",
    b"data: cr\r\n\r\n",
    b"data: c\rr\n\n",
    b"data: lf\n\n\n",
    b"data: \xff\xfe\n\n",
    b"data: two\n\ndata: in one\n\n",
    b"data: open\n",
    b"\n",
    b"\xef\xbb\xbfdata: bom\n\n",
    b"data: end\r",
    b"x\n\n",
]


def _plain(value: str) -> bytes:
    return b"data: " + value.encode() + b"\n\n"


_VALUE = st.one_of(
    st.sampled_from(_VALUES), st.text(max_size=12).filter(lambda v: "\n" not in v and "\r" not in v)
)
_PART = st.builds(  # mostly plain events (runs of them take the fast paths), some others
    lambda k, value, other: other if k == 0 else _plain(value),
    st.integers(min_value=0, max_value=4),
    _VALUE,
    st.sampled_from(_OTHERS),
)


def _chunked(parts: list[bytes], how: list[int]) -> list[bytes]:
    """The parts as chunks: each its own chunk (0), joined to the next (1), or cut in two at
    a point (n >= 2): the fast path's chunk per event, and everything around it."""
    chunks: list[bytes] = []
    carry = b""
    for i, part in enumerate(parts):
        k = how[i % len(how)] if how else 0
        data = carry + part
        carry = b""
        if k == 1:
            carry = data
        elif k >= 2 and len(data) > 1:
            cut = k % len(data) or 1
            chunks += [data[:cut], data[cut:]]
        else:
            chunks.append(data)
    if carry:
        chunks.append(carry)
    return chunks


def _mostly_whole(n: int) -> int:
    """How to chunk a part (:func:`_chunked`): mostly whole, sometimes joined, or cut."""
    return 0 if n < 24 else 1 if n < 28 else n


@contextmanager
def _line_by_line() -> Iterator[None]:
    """Every buffer decoded line by line: no fast path at all (what defines the result)."""
    with ExitStack() as stack:
        stack.enter_context(patch.object(sse_module, "_MANY", 1 << 62))
        stack.enter_context(patch.object(sse_module, "chunk_values", lambda datas: None))
        yield


def _state(d: SSEDecoder) -> tuple[Any, ...]:
    return (d.offset, d._seq, d.marked, d._last_id, d._base, d._pending, d._data, d._tail_cr)


def _one_by_one(chunks: list[tuple[float, bytes]]) -> tuple[list[Any], tuple[Any, ...]]:
    with _line_by_line():
        decoder = SSEDecoder()
        events = [ev for t, data in chunks for ev in decoder.feed(data, t)]
        state = _state(decoder)
        events += decoder.close()
    return [(ev, ev.t) for ev in events], state


_BODIES = {
    "parts": st.lists(_PART, max_size=40),
    "how": st.lists(st.integers(min_value=0, max_value=40).map(_mostly_whole), max_size=6),
    "groups": st.lists(st.integers(min_value=1, max_value=8), min_size=1, max_size=4),
}


@settings(max_examples=200, deadline=None)
@given(**_BODIES, gate=st.booleans())
def test_fast_paths_decode_like_line_by_line(
    parts: list[bytes], how: list[int], groups: list[int], gate: bool
) -> None:
    """``gate`` off: every buffer, however small, tries the at-once cuts too."""
    chunks = [(0.5 * i, c) for i, c in enumerate(_chunked(parts, how))]
    want, want_state = _one_by_one(chunks)
    decoder = SSEDecoder()
    got, i, k = [], 0, 0
    with patch.object(sse_module, "_MANY", sse_module._MANY if gate else 0):
        while i < len(chunks):
            size = groups[k % len(groups)]
            got += decoder.feed_many(chunks[i : i + size])
            i, k = i + size, k + 1
    state = _state(decoder)
    got += decoder.close()
    assert [(ev, ev.t) for ev in got] == want
    assert state == want_state


def _stream(chunks: list[tuple[float, bytes]], many: list[int] | None) -> StreamState:
    state = StreamState(REGISTRY.dialect("auto"))
    if many is None:
        for t, data in chunks:
            state.feed(data, t)
    else:
        i, k = 0, 0
        while i < len(chunks):
            state.feed_many(chunks[i : i + many[k % len(many)]])
            i, k = i + many[k % len(many)], k + 1
    state.end()
    return state


@settings(max_examples=150, deadline=None)
@given(**_BODIES, small=st.booleans())
def test_stream_log_is_the_same_through_the_fast_paths(
    parts: list[bytes], how: list[int], groups: list[int], small: bool
) -> None:
    """The event log built from a plain run's columns equals the one built from the events:
    the same events read back (offsets, times, texts), the same number read back from the
    held chunks; with ``LARGEST`` tiny, the large ones keep their text in both. Fed in
    groups, or one by one (each buffer then cut at once where it can be)."""
    chunks = [(0.5 * i, c) for i, c in enumerate(_chunked(parts, how))]
    largest = patch.object(held_module, "LARGEST", 12 if small else held_module.LARGEST)
    with largest, _line_by_line():
        want = _stream(chunks, None)
    with largest, patch.object(sse_module, "_MANY", 0):
        got = _stream(chunks, groups if groups[0] > 1 else None)
    assert list(got.events) == list(want.events)
    assert [ev.t for ev in got.events] == [ev.t for ev in want.events]
    # A plain run of one event a chunk derives its non-ASCII events too; the others as many.
    assert got.events.derived >= want.events.derived
    assert got.events.offsets() == want.events.offsets()
    deltas = [(d.seq, d.kind, getattr(d, "value", None)) for d in got.deltas]
    assert deltas == [(d.seq, d.kind, getattr(d, "value", None)) for d in want.deltas]


def test_a_chunk_per_plain_event_takes_the_chunk_path() -> None:
    """What the fast path is for: one plain event a chunk gives a plain run of the chunks
    themselves, its data read back from them (none kept as text)."""
    body = [(0.1 * i, _plain(v)) for i, v in enumerate(["a", "b", "é", "c"] * 3)]
    decoder = SSEDecoder()
    decoder.feed(b"data: first\n\n", 0.0)
    events = decoder.feed_many(body)
    run = decoder.plain
    assert run is not None and run.chunks == [c for _, c in body]
    assert run.covers(1, len(events)) and run.bounds[0] == len(b"data: first\n\n")
    state = StreamState(REGISTRY.dialect("openai-chat"))
    state.feed(b"data: first\n\n", 0.0)
    state.feed_many(body)
    assert state.events.derived == 1 + 12  # the non-ASCII ones too (their chunks WIDE)
    assert [ev.data for ev in state.events] == ["first"] + ["a", "b", "é", "c"] * 3
    assert [state.events[i].data for i in range(13)] == ["first"] + ["a", "b", "é", "c"] * 3
    assert [ev.data for ev in state.events[2:9]] == ["b", "é", "c", "a", "b", "é", "c"]


def test_near_plain_chunks_are_not_taken_for_plain() -> None:
    """Each of these differs from a chunk of one plain event by a byte or two."""
    plain = [b"data: a\n\n", b"data: b\n\n"]
    assert chunk_values(plain) == ["a", "b"]
    for odd in _OTHERS:
        assert chunk_values([*plain, odd]) is None, odd
    assert chunk_values([b"data: a\n\nd", b"ata: b\n\n"]) is None  # the same bytes, shifted
    assert data_blocks(b"data: a\n\ndata: b\n\ndat", 5) == (["a", "b"], [5, 14, 23], b"dat")
    assert data_blocks(b"data: a\n\ndata: b\n", 0) is None  # a complete line in the tail
    assert data_blocks(b"data: a\n\n\ndata: b\n\n", 0) is None
    assert data_blocks(b"data: a\n\n: c\n\n", 0) is None
    assert data_blocks(b"data: \xff\n\n", 0) is None


def test_an_id_in_force_is_carried_by_the_general_path() -> None:
    """An id persists to later events: plain-looking chunks after one are not a plain run."""
    chunks = [(0.0, b"id: 5\ndata: x\n\n"), (1.0, b"data: y\n\n"), (2.0, b"data: z\n\n")]
    decoder = SSEDecoder()
    decoder.feed_many(chunks[:1])
    events = decoder.feed_many(chunks[1:])
    assert [ev.id for ev in events] == ["5", "5"]
    assert decoder.plain is None or not decoder.plain.covers(events[0].seq, len(events))


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(_VALUE, min_size=1, max_size=12),
    odd=st.sampled_from(_OTHERS),
    at=st.integers(min_value=0, max_value=12),
)
def test_one_odd_chunk_among_plain_ones(values: list[str], odd: bytes, at: int) -> None:
    """A run of chunks of one plain event each but one that is not quite: line by line."""
    datas = [_plain(v) for v in values]
    datas.insert(at % (len(datas) + 1), odd)
    chunks = [(0.5 * i, c) for i, c in enumerate([b": start\n", *datas])]
    want, want_state = _one_by_one(chunks)
    decoder = SSEDecoder()
    got = decoder.feed_many(chunks[:1]) + decoder.feed_many(chunks[1:])
    state = _state(decoder)
    got += decoder.close()
    assert [(ev, ev.t) for ev in got] == want
    assert state == want_state
