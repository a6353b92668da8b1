"""The stream's compact logs (inspector.core.events.log, inspector.core.calls.deltalog) and
its bounded ingest: what they give back equals what a plain decode gives, whatever the chunking,
the slicing or the long-line path, and a keep-alive flood keeps no object per comment."""

from __future__ import annotations

import gc
from itertools import pairwise
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.core.base.model import Delta, DeltaKind, EventKind, SSEEvent
from inspector.core.calls import stream as stream_module
from inspector.core.calls.deltalog import DeltaLog
from inspector.core.calls.stream import StreamState
from inspector.core.events import held as held_module
from inspector.core.events import sse
from inspector.core.events.log import EventLog
from inspector.core.events.sse import SSEDecoder
from inspector.core.providers import REGISTRY

_PIECES = [
    b"data: a",
    b"data: \xc3\xa9t\xc3\xa9",
    b"\n",
    b"\n",
    b"\r\n",
    b"\r",
    b": ping",
    b": keep-alive",
    b"event: x",
    b"event: y",
    b"id: 7",
    b"id: 8",
    b"retry: 5",
    b"data: \xff\xfe",
    b'data: {"k": 1}',
    b"data: " + b"z" * 70,
    b"data:b",
    b"data",
    b"data: \xef\xbb\xbf",
    b"",
]


def _cut(body: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({0, len(body), *(c % (len(body) + 1) for c in cuts)})
    return [body[a:b] for a, b in pairwise(points)]


def _decode(chunks: list[tuple[float, bytes]]) -> tuple[list[SSEEvent], EventLog]:
    """Plain events (one by one), and a log filled batch by batch as the stream does, holding
    the chunks (so plain data events are read back from them)."""
    plain_decoder, log_decoder = SSEDecoder(), SSEDecoder()
    events: list[SSEEvent] = []
    log = EventLog()
    for t, data in chunks:
        events += plain_decoder.feed(data, t)
        log.hold(log_decoder.offset, [data])
        marked = log_decoder.marked
        batch = log_decoder.feed(data, t)
        log.extend(batch, log_decoder.marked == marked)
    events += plain_decoder.close()
    log.extend(log_decoder.close())
    return events, log


@settings(max_examples=200, deadline=None)
@given(
    parts=st.lists(st.sampled_from(_PIECES), max_size=50),
    cuts=st.lists(st.integers(min_value=0, max_value=600), max_size=20),
    same_time=st.booleans(),
    bom=st.booleans(),
)
def test_the_log_gives_back_the_decoded_events_in_any_chunking(
    parts: list[bytes], cuts: list[int], same_time: bool, bom: bool
) -> None:
    body = b"\xef\xbb\xbf" * bom + b"".join(parts)
    chunks = [(0.0 if same_time else 0.5 * i, p) for i, p in enumerate(_cut(body, cuts))]
    events, log = _decode(chunks)
    assert log == events and len(log) == len(events)
    assert list(log) == events
    assert [log[i] for i in range(len(log))] == events
    assert [log[-i] for i in range(1, len(log) + 1)] == events[::-1]
    assert log[1:-1] == events[1:-1] and log[::3] == events[::3] and log[5:2] == []
    for kind in (EventKind.EVENT, EventKind.COMMENT, EventKind.ERROR):
        assert list(log.select(kind)) == [ev for ev in events if ev.kind == kind]
        assert list(log.select(kind, 3)) == [ev for ev in events[3:] if ev.kind == kind]
        assert log.count_of(kind) == sum(ev.kind == kind for ev in events)
        seqs = [i for lo, hi in log.runs(kind, 2) for i in range(lo, hi)]
        assert seqs == [ev.seq for ev in events[2:] if ev.kind == kind]
        assert all(events[hi].kind != kind for _, hi in log.runs(kind) if hi < len(events))
    assert [log.time_at(i) for i in range(-len(log), len(log))] == [e.t for e in events * 2]
    starts, ends = log.offsets()
    assert (list(starts), list(ends)) == ([e.start for e in events], [e.end for e in events])


@settings(max_examples=100, deadline=None)
@given(
    parts=st.lists(st.sampled_from(_PIECES), max_size=50),
    cuts=st.lists(st.integers(min_value=0, max_value=600), max_size=10),
)
def test_long_lines_decode_in_place_like_short_ones(parts: list[bytes], cuts: list[int]) -> None:
    """With LONG made tiny, every line takes the long-line path: same events, same times."""
    body = b"".join(parts)
    chunks = [(0.5 * i, p) for i, p in enumerate(_cut(body, cuts))]
    want = [(ev, ev.t) for ev in SSEDecoder().feed_many(chunks)]
    with patch.object(sse, "LONG", 8):
        got = [(ev, ev.t) for ev in SSEDecoder().feed_many(chunks)]
    assert got == want


_BLOCKS = [b"data: a\n\n", b'data: {"k": 1}\n\n', b"data: \xc3\xa9\n\n", b"data: \xff\n\n"]
_BLOCKS += [b"data: x", b"\n", b": c\n", b"id: 3\n", b"data:b\n\n", b"data: \n\n", b"\n\n"]
_BLOCKS += [b": keep-alive\n", b": keep-alive\n", b": \xe2\x82\n", b":x\n", b": \n", b": k"]
_BLOCKS += [b"event: t\ndata: 1\n\n", b"event: u\ndata: \xc3\xa9\n\n", b"event: \ndata: 2\n\n"]
_BLOCKS += [b"event: v\ndata: 3\n", b"event: w\n", b"event: \xff\ndata: 4\n\n"]


@settings(max_examples=150, deadline=None)
@given(
    parts=st.lists(st.sampled_from(_BLOCKS), max_size=40),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=8),
    groups=st.integers(min_value=1, max_value=5),
)
def test_all_data_blocks_decode_at_once_like_line_by_line(
    parts: list[bytes], cuts: list[int], groups: int
) -> None:
    """With the size gate off, every buffer of ``data:`` blocks (typed or not) or of comments
    takes the at-once path: the same events, times and state as line by line, in one feed or grouped
    chunks."""
    body = b"".join(parts)
    chunks = [(0.25 * i, p) for i, p in enumerate(_cut(body, cuts))]

    def run() -> list[tuple[SSEEvent, float]]:
        decoder = SSEDecoder()
        events = [
            ev
            for i in range(0, len(chunks), groups)
            for ev in decoder.feed_many(chunks[i : i + groups])
        ]
        events += decoder.feed(b"data: end\n\n", 9.0) + decoder.close()
        return [(ev, ev.t) for ev in events]

    want = run()
    with patch.object(sse, "_MANY", 0):
        assert run() == want


def _state(body_chunks: list[tuple[float, bytes]], many: bool) -> StreamState:
    state = StreamState(REGISTRY.get("openai-chat").dialect())
    if many:
        state.feed_many(body_chunks)
    else:
        for t, data in body_chunks:
            state.feed(data, t)
    state.end()
    return state


def _summary(state: StreamState) -> Any:
    deltas = [(d.seq, d.kind, getattr(d, "value", None)) for d in state.deltas]
    calls = [(c.id, c.name, c.arguments) for c in state.calls]
    return list(state.events), deltas, calls, state.finish_reason


_CALL = (
    b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1",'
    b'"type":"function","function":{"name":"f","arguments":"{\\"a\\": 1}"}}]}}]}\n\n'
)


@pytest.mark.parametrize("many", [False, True])
def test_big_chunks_are_ingested_in_slices_with_the_same_result(
    many: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = b": hi\n" * 40 + _CALL + b": keep-alive\n" * 30 + b"data: " + b"q" * 300 + b"\n\n"
    body += b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\n'
    chunks = [(1.0, body[:700]), (2.0, body[700:710]), (3.0, body[710:])]
    want = _summary(_state(chunks, many))
    monkeypatch.setattr(stream_module, "SLICE", 64)
    assert _summary(_state(chunks, many)) == want
    assert want[2] == [("call_1", "f", '{"a": 1}')]


_WIRE = [
    b'data: {"k": 1}\n\n',
    b"data: " + b"w" * 90 + b"\n\n",
    b"data: a\ndata: b\n\n",
    b"data: a\r\n\r\n",
    b"data: a\r\rdata: c\n\n",
    b"data: \xc3\xa9\n\n",
    b"data: \xff\n\n",
    b"data:b\n\n",
    b"data: x\n: inside\n\n",
    b"data: ab\r\n\n",
    b"data:ab\r\n\n",
    b"event: t\ndata: 1\n\n",
    b"id: 4\ndata: 2\n\n",
    b"retry: 9\ndata: 3\n\n",
    b": keep-alive\n",
    b"foo: bar\ndata: z\n\n",
    b"data: " + b"v" * 300 + b"\n\n",
]


@settings(max_examples=150, deadline=None)
@given(
    parts=st.lists(st.sampled_from(_WIRE), max_size=40),
    cuts=st.lists(st.integers(min_value=0, max_value=2000), max_size=12),
    bom=st.booleans(),
    many=st.booleans(),
    small_slices=st.booleans(),
    prune=st.booleans(),
)
def test_a_stream_reads_plain_data_back_from_the_chunks_it_holds(
    parts: list[bytes], cuts: list[int], bom: bool, many: bool, small_slices: bool, prune: bool
) -> None:
    """Fed through StreamState (one by one or in runs, big chunks in slices or not), the events
    are those of a plain decode, whichever of them are read back from the held chunks."""
    body = b"\xef\xbb\xbf" * bom + b"".join(parts)
    chunks = [(0.5 * i, p) for i, p in enumerate(_cut(body, cuts))]
    slices = patch.object(stream_module, "SLICE", 64 if small_slices else stream_module.SLICE)
    largest = patch.object(held_module, "LARGEST", 100 if prune else held_module.LARGEST)
    with slices, largest, patch.object(held_module, "PRUNE", 0 if prune else held_module.PRUNE):
        state = _state(chunks, many)  # PRUNE 0: unused chunks let go after every batch
    decoder = SSEDecoder()
    events = [ev for t, data in chunks for ev in decoder.feed(data, t)] + decoder.close()
    log = state.events
    assert list(log) == events and log[:] == events
    assert [log[i] for i in range(len(log))] == events
    assert [ev.data for ev in log.select(EventKind.EVENT, 1)] == [
        ev.data for ev in events[1:] if ev.kind == EventKind.EVENT
    ]
    assert log.derived <= sum(ev.kind == EventKind.EVENT for ev in events)


def test_plain_data_events_keep_no_text_and_the_chunks_are_the_fed_objects() -> None:
    """Only a one-line, LF, ASCII, plain data event inside one chunk is read back; the log
    holds the very chunk objects fed (a big chunk, not its slices)."""
    plain = [b"data: " + b"%d" % i * 40 + b"\n\n" for i in range(10_000)]
    kept = [b"data: \xc3\xa9\n\n", b"data: a\ndata: b\n\n", b"data: a\r\n\r\n", b"data:b\n\n"]
    kept += [b"event: t\ndata: 1\n\n", b"data: x\n: c\n\n", b"data: ab\r\n\n"]
    kept.append(b"data: " + b"L" * held_module.LARGEST + b"\n\n")  # too large: one shared text
    body = b"".join(plain) + b"".join(kept)
    state = StreamState(REGISTRY.get("openai-chat").dialect())
    state.feed(body)  # far over SLICE: decoded in slices
    state.end()
    assert state.events.derived == len(plain)
    assert list(state.events) == sse.decode_all(body)
    held = state.events._held
    assert held is not None and len(held.chunks) == 1 and held.chunks[0] is body

    chunks = [(float(i), c) for i, c in enumerate(plain + kept)]
    state = StreamState(REGISTRY.get("openai-chat").dialect())
    state.feed_many(chunks)
    state.end()
    assert state.events.derived == len(plain)
    held = state.events._held
    assert held is not None and all(a is b for a, b in zip(held.chunks, plain, strict=False))
    assert list(state.events) == SSEDecoder().feed_many(chunks) + SSEDecoder().close()
    assert [ev.t for ev in state.events] == [ev.t for ev in SSEDecoder().feed_many(chunks)]


def test_a_stream_holds_only_the_chunks_it_reads_data_back_from() -> None:
    """A flood of comment chunks with a few data events: the comment chunks are let go as the
    stream goes, the data chunks stay."""
    data = [b"data: %d\n\n" % i for i in range(5)]
    chunks = [(0.0, b": keep-alive\n") for _ in range(20_000)]
    for k, d in enumerate(data):
        chunks.insert(4000 * k + 7, (0.0, d))
    state = StreamState(REGISTRY.get("openai-chat").dialect())
    for lo in range(0, len(chunks), 300):
        state.feed_many(chunks[lo : lo + 300])
    state.end()
    held = state.events._held
    assert held is not None and len(held) < 1200 and state.events.derived == 5
    assert all(any(c is d for c in held.chunks) for d in data)
    decoder = SSEDecoder()
    assert list(state.events) == decoder.feed_many(chunks) + decoder.close()


def test_an_event_across_chunks_keeps_its_text_and_a_stream_that_derived_nothing_lets_go() -> None:
    state = StreamState(REGISTRY.get("openai-chat").dialect())
    state.feed(b"data: ab")
    state.feed(b"c\n\ndata: d\n\n")
    state.end()
    assert [ev.data for ev in state.events] == ["abc", "d"] and state.events.derived == 1
    chunks = [(0.0, b'data: {"k": 1}\n\ndata: abc\n'), (1.0, b"\n"), (2.0, b"data: d\r\r")]
    state = StreamState(REGISTRY.get("openai-chat").dialect())
    state.feed_many(chunks)  # one run: the event across the first two chunks is in its batch
    state.end()
    assert [ev.data for ev in state.events] == ['{"k": 1}', "abc", "d"]
    assert state.events.derived == 2
    mutable = bytearray(b"data: q\n\n")
    state = StreamState(REGISTRY.get("openai-chat").dialect())
    state.feed_many([])
    state.feed_many([(0.0, b""), (0.0, b"data: p\n\n"), (1.0, b""), (1.0, mutable)])  # type: ignore[list-item]
    mutable[6:7] = b"z"  # a bytearray fed is held as a copy
    state.end()
    assert [ev.data for ev in state.events] == ["p", "q"] and state.events.derived == 2
    state = StreamState(REGISTRY.get("anthropic").dialect())
    state.feed(b"event: ping\ndata: {}\n\n: x\n")
    state.end()
    assert state.events.derived == 0 and state.events._held is None
    assert [ev.data for ev in state.events] == ["{}", ""]


def test_a_keepalive_flood_keeps_no_object_per_comment() -> None:
    """50,000 comments in one chunk: one shared text, keep-alive deltas as one run, no
    SSEEvent or Delta per comment kept (counted among the gc-tracked objects)."""
    n = 50_000
    body = _CALL + b": keep-alive\n" * n + b"data: [DONE]\n\n"
    gc.collect()
    before = len(gc.get_objects())
    state = StreamState(REGISTRY.get("openai-chat").dialect())
    state.feed(body, 1.0)
    state.end()
    gc.collect()
    assert len(gc.get_objects()) - before < n // 10
    assert len(state.events) == n + 2 and len(state.deltas) >= n
    assert len({id(text) for text in state.events._texts[1:-1]}) == 1
    runs = {id(item) for item in state.deltas._items if not hasattr(item, "kind")}
    assert len(runs) == 1
    ev, d = state.events[n // 2], state.deltas[n // 2]
    assert (ev.kind, ev.comment, ev.seq) == (EventKind.COMMENT, "keep-alive", n // 2)
    assert (type(d), d.kind, d.value, d.raw, d.seq) == (
        Delta,
        DeltaKind.KEEPALIVE,
        "keep-alive",
        None,
        n // 2,
    )


def _fields(deltas: Any) -> list[tuple[Any, ...]]:
    return [(d.seq, d.kind, d.value, d.raw) for d in deltas]


def test_the_delta_log_reads_like_the_list_it_was_given() -> None:
    ping = Delta(9, DeltaKind.KEEPALIVE, "ping", {"type": "ping"})  # kept as is: it has raw
    plain = [
        Delta(0, DeltaKind.TEXT, "a"),
        Delta(1, DeltaKind.KEEPALIVE, "k"),
        Delta(2, DeltaKind.KEEPALIVE, "k"),
        Delta(3, DeltaKind.KEEPALIVE, "other"),
        Delta(5, DeltaKind.KEEPALIVE, "other"),
        ping,
        Delta(10, DeltaKind.KEEPALIVE, "k"),
        Delta(11, DeltaKind.FINISH, "stop"),
    ]
    log = DeltaLog()
    log.extend(plain[:2])
    log.extend(plain[2:])
    assert len(log) == len(plain) and log == plain and DeltaLog() == []
    assert _fields(log) == _fields(plain)
    assert log[5] is ping and log[0] is plain[0] and log[-1] is plain[-1]
    assert _fields(log[2:5]) == _fields(plain[2:5]) and _fields(log[::2]) == _fields(plain[::2])
    assert _fields(log[-3:]) == _fields(plain[-3:]) and _fields([log[-5]]) == _fields([plain[-5]])
    assert [(d.seq, d.value) for d in log[1:5]] == [(1, "k"), (2, "k"), (3, "other"), (5, "other")]
    assert list(log.stored()) == [plain[0], ping, plain[-1]]
    assert list(log.stored(6)) == [plain[-1]] and list(log.stored(1)) == [ping, plain[-1]]
    assert log != plain[:-1] and log != [*plain[:-1], Delta(11, DeltaKind.FINISH, "stop")]


@settings(max_examples=200, deadline=None)
@given(
    steps=st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["k", "p"])), max_size=40),
    cuts=st.lists(st.integers(min_value=0, max_value=40), max_size=6),
    lo=st.integers(-45, 45),
    hi=st.integers(-45, 45),
    step=st.sampled_from([1, 1, 2, -1, 3]),
)
def test_the_delta_log_reads_like_a_list_whatever_the_runs(
    steps: list[tuple[int, str]], cuts: list[int], lo: int, hi: int, step: int
) -> None:
    """Random mixes of restating keep-alives (seq gaps, text changes), pings and other deltas,
    appended in random batches: every way of reading gives the list's deltas."""
    plain: list[Any] = []
    seq = 0
    for gap, text in steps:
        seq += 1 + (gap == 3)
        if gap == 2:
            plain.append(Delta(seq, DeltaKind.TEXT, text))
        elif gap == 1 and text == "p":
            plain.append(Delta(seq, DeltaKind.KEEPALIVE, "ping", {"type": "ping"}))
        else:
            plain.append(Delta(seq, DeltaKind.KEEPALIVE, text))
    log = DeltaLog()
    bounds = sorted({0, len(plain), *(c % (len(plain) + 1) for c in cuts)})
    for a, b in pairwise(bounds):
        log.extend(plain[a:b])
    assert len(log) == len(plain) and log == plain and _fields(log) == _fields(plain)
    assert _fields(log[i] for i in range(-len(plain), len(plain))) == _fields(plain * 2)
    assert _fields(log[lo:hi:step]) == _fields(plain[lo:hi:step])
    start = abs(lo) % (len(plain) + 1)
    kept = [d for d in plain[start:] if d.kind != DeltaKind.KEEPALIVE or d.raw is not None]
    assert list(log.stored(start)) == kept


def test_whole_batches_of_keepalives_join_one_run() -> None:
    """A flood arrives slice by slice: each batch of restating keep-alives joins the run the
    last one started; a batch of keep-alives with a raw object (a ping) stays objects."""
    log = DeltaLog()
    pings = [Delta(i, DeltaKind.KEEPALIVE, "ping", {"type": "ping"}) for i in range(3)]
    log.extend(pings)
    floods = [[Delta(i, DeltaKind.KEEPALIVE, "k") for i in range(a, a + 5)] for a in (3, 8, 13)]
    for batch in floods:
        log.extend(batch)
    assert list(log.stored()) == pings and len(log) == 18
    assert len({id(item) for item in log._items[3:]}) == 1
    want = pings + [d for batch in floods for d in batch]
    assert log == want and _fields(log) == _fields(want)
    log.extend([Delta(20, DeltaKind.KEEPALIVE, "k"), Delta(21, DeltaKind.KEEPALIVE, "k")])
    assert [d.seq for d in log[-3:]] == [17, 20, 21] and len({id(x) for x in log._items}) == 5


def test_an_event_of_4_gib_widens_the_size_column() -> None:
    def event(seq: int, start: int, end: int) -> SSEEvent:
        return SSEEvent(seq, EventKind.EVENT, "message", "x", None, None, start, end, 0.0)

    events = [
        event(0, 0, 5),
        event(1, 5, 9),
        event(2, 9, 9 + (1 << 33)),
        event(3, 1 << 34, 1 << 35),
    ]
    log = EventLog(events[:1])
    log.extend(events[1:])
    assert log == events and list(log.offsets()[1]) == [5, 9, 9 + (1 << 33), 1 << 35]


def test_events_compare_by_value() -> None:
    a = SSEEvent(0, EventKind.EVENT, "message", "x", None, None, 0, 9, 1.0)
    b = SSEEvent(0, EventKind.EVENT, "message", "x", None, None, 0, 9, 1.0)
    assert a == b and a != SSEEvent(0, EventKind.EVENT, "message", "x", None, None, 0, 9, 2.0)
    with pytest.raises(TypeError):
        hash(a)
    log = EventLog([a])
    assert log == [b] and log != [] and log[0] is not a
    with pytest.raises(ValueError):
        log.extend([a])  # seq 0 again: a log only grows in seq order
