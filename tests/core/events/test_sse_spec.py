"""Spec-driven tests for the incremental SSE decoder (inspector.core.events.sse).

Cases follow the WHATWG event-stream interpretation rules
(https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation),
in the style of httpx-sse's tests/test_decoders.py, each fed with chosen chunk boundaries.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from conftest import all_real_fixtures
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.core.base.model import EventKind, SSEEvent
from inspector.core.events.sse import SSEDecoder, decode_all

BOM = b"\xef\xbb\xbf"
FIXTURES = all_real_fixtures()


def feed_chunks(chunks: Iterable[bytes], t_close: float | None = None) -> list[SSEEvent]:
    """Feed ``chunks`` one by one (chunk i at t=i), then close."""
    decoder = SSEDecoder()
    events: list[SSEEvent] = []
    for i, chunk in enumerate(chunks):
        events += decoder.feed(chunk, float(i))
    events += decoder.close(t_close)
    return events


def split_at(body: bytes, cuts: Iterable[int]) -> list[bytes]:
    """Cut ``body`` at the given offsets (any order, duplicates allowed)."""
    points = sorted({0, len(body), *(c % (len(body) + 1) for c in cuts)})
    return [body[a:b] for a, b in pairwise(points)]


def key(ev: SSEEvent) -> tuple[Any, ...]:
    """Everything that must not depend on chunking (all but ``t``)."""
    return (ev.seq, ev.kind, ev.event, ev.data, ev.id, ev.retry, ev.start, ev.end, ev.comment)


def keys(events: Sequence[SSEEvent]) -> list[tuple[Any, ...]]:
    return [key(ev) for ev in events]


def messages(events: Sequence[SSEEvent]) -> list[SSEEvent]:
    return [ev for ev in events if ev.kind == EventKind.EVENT]


def check_ranges(body: bytes, events: Sequence[SSEEvent]) -> None:
    """Ranges lie in the body, ``end`` never decreases, EVENT starts strictly increase."""
    assert [ev.seq for ev in events] == list(range(len(events)))
    last_end = 0
    last_start = -1
    for ev in events:
        assert 0 <= ev.start <= ev.end <= len(body)
        assert ev.end >= last_end
        last_end = ev.end
        if ev.kind == EventKind.EVENT:
            assert ev.start > last_start
            last_start = ev.start


# --- WHATWG examples -------------------------------------------------------------------------


def test_whatwg_example_stock_ticker() -> None:
    body = b"data: YHOO\ndata: +2\ndata: 10\n\n"
    events = feed_chunks([b"data: YHOO\n", b"data: +2\n", b"data: 10\n", b"\n"])
    assert len(events) == 1
    ev = events[0]
    assert (ev.kind, ev.event, ev.data, ev.id, ev.retry) == (
        EventKind.EVENT,
        "message",
        "YHOO\n+2\n10",
        None,
        None,
    )
    assert (ev.start, ev.end) == (0, len(body))


def test_whatwg_example_ids_and_third_event_without_blank_line() -> None:
    body = (
        b": test stream\n\ndata: first event\nid: 1\n\n"
        b"data:second event\nid\n\ndata:  third event\n"
    )
    decoder = SSEDecoder()
    fed = decoder.feed(body)
    closed = decoder.close()
    assert [(ev.kind, ev.comment) for ev in fed[:1]] == [(EventKind.COMMENT, "test stream")]
    assert [(ev.data, ev.id) for ev in fed[1:]] == [("first event", "1"), ("second event", "")]
    # WHATWG discards the unterminated third event; an inspector shows it, from close().
    assert [(ev.data, ev.id) for ev in closed] == [(" third event", "")]
    assert closed[0].end == len(body)
    assert [ev.seq for ev in fed + closed] == [0, 1, 2, 3]


def test_whatwg_example_data_without_colon() -> None:
    body = b"data\n\ndata\ndata\n\ndata:"
    decoder = SSEDecoder()
    fed = decoder.feed(body)
    assert [ev.data for ev in fed] == ["", "\n"]
    closed = decoder.close()
    assert [ev.data for ev in closed] == [""]  # the unterminated "data:" line, shown at EOF


def test_whatwg_example_space_after_colon_is_optional() -> None:
    events = feed_chunks([b"data:test\n\ndata: test\n\n"])
    assert [ev.data for ev in events] == ["test", "test"]


# --- line ends and chunk boundaries ----------------------------------------------------------

STREAM_LINES = [
    "event: add",
    "data: 73857293",
    "",
    ": keep-alive",
    "id: 7",
    "data: a",
    "data: b",
    "",
]


@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
def test_line_ends(eol: str) -> None:
    body = eol.join(STREAM_LINES).encode() + eol.encode()
    events = decode_all(body)
    assert [(ev.kind, ev.event, ev.data, ev.id, ev.comment) for ev in events] == [
        (EventKind.EVENT, "add", "73857293", None, ""),
        (EventKind.COMMENT, "", "", None, "keep-alive"),
        (EventKind.EVENT, "message", "a\nb", "7", ""),
    ]
    first = eol.join(STREAM_LINES[:3]) + eol
    comment = STREAM_LINES[3] + eol
    assert body[events[0].start : events[0].end] == first.encode()
    assert body[events[1].start : events[1].end] == comment.encode()
    assert events[2].end == len(body)
    assert body[events[2].start : events[2].end].startswith(b"id: 7")


def test_mixed_line_ends() -> None:
    body = b"data: a\rdata: b\r\ndata: c\n\r\ndata: d\r\r"
    assert [ev.data for ev in decode_all(body)] == ["a\nb\nc", "d"]


def test_crlf_split_across_chunks_is_one_line_end() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\r\n\r") == []  # the final CR may still be half of a CRLF
    (ev,) = decoder.feed(b"\n")
    assert (ev.data, ev.start, ev.end) == ("a", 0, 11)
    assert decoder.feed(b"data: b\r") + decoder.feed(b"\ndata: c\r") == []
    # The held CR then "\r\n": two line ends, "data: c" and a blank line that dispatches.
    (ev2,) = decoder.feed(b"\r\n")
    assert (ev2.data, ev2.start, ev2.end) == ("b\nc", 11, 30)
    assert decoder.close() == []


def test_cr_at_chunk_end_followed_by_other_byte() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\r\r") == []
    (ev,) = decoder.feed(b"data: b\r\r")
    assert (ev.data, ev.end) == ("a", 9)
    (ev2,) = decoder.close()
    assert (ev2.data, ev2.start, ev2.end) == ("b", 9, 18)


def test_cr_at_eof_is_a_line_end() -> None:
    events = feed_chunks([b"data: a\n", b"\r"])
    assert [(ev.data, ev.end) for ev in events] == [("a", 9)]


@pytest.mark.parametrize("eol", [b"\n", b"\r\n", b"\r"], ids=["LF", "CRLF", "CR"])
def test_every_single_split_point(eol: bytes) -> None:
    body = eol.join(
        [b"event: e", b"data: \xe2\x82\xac1", b"id: 5", b"retry: 12", b"", b": c", b"data: x", b""]
    )
    whole = keys(decode_all(body))
    assert len(whole) == 3
    for i in range(len(body) + 1):
        assert keys(feed_chunks([body[:i], body[i:]])) == whole, i


def test_every_pair_of_split_points() -> None:
    body = b"data: a\r\n\r\n:c\rdata: b\n\r\n"
    whole = keys(decode_all(body))
    for i in range(len(body) + 1):
        for j in range(i, len(body) + 1):
            assert keys(feed_chunks([body[:i], body[i:j], body[j:]])) == whole, (i, j)


def test_one_byte_chunks_equal_whole_decode_for_every_fixture() -> None:
    assert FIXTURES, "no real fixtures found"
    for path in FIXTURES:
        body = path.read_bytes()
        whole = keys(decode_all(body))
        assert whole, path.name
        assert keys(feed_chunks(body[i : i + 1] for i in range(len(body)))) == whole, path.name


def test_long_line_in_one_byte_chunks_is_one_event() -> None:
    # That this stays linear in the line's length is timed in bench/ingest.py, not here.
    size = 50_000
    body = b"data: " + b"x" * size + b"\n\n"
    decoder = SSEDecoder()
    events = [ev for i in range(len(body)) for ev in decoder.feed(body[i : i + 1])]
    assert [len(ev.data) for ev in events] == [size]
    assert events[0].data == "x" * size and decoder.offset == len(body)


# --- fields ----------------------------------------------------------------------------------


def test_multi_line_data() -> None:
    (ev,) = feed_chunks([b"data: line 1\ndata:\ndata:  line 3\n\n"])
    assert ev.data == "line 1\n\n line 3"


def test_event_type_resets_between_events() -> None:
    body = b"event: add\ndata: 1\n\nevent:\ndata: 2\n\ndata: 3\n\n"
    assert [(ev.event, ev.data) for ev in decode_all(body)] == [
        ("add", "1"),
        ("message", "2"),
        ("message", "3"),
    ]


def test_last_event_id_persists_and_can_be_reset() -> None:
    body = b"data: a\n\nid: 1\ndata: b\n\ndata: c\n\nid\ndata: d\n\nid: 9\n\ndata: e\n\n"
    assert [(ev.data, ev.id) for ev in decode_all(body)] == [
        ("a", None),
        ("b", "1"),
        ("c", "1"),
        ("d", ""),
        ("e", "9"),  # a data-less block is dropped, but its id still sets the last event ID
    ]


def test_id_with_nul_is_ignored() -> None:
    body = b"id: 1\ndata: a\n\nid: 2\x003\ndata: b\n\n"
    assert [ev.id for ev in decode_all(body)] == ["1", "1"]


def test_retry_digits_attach_to_their_event_only() -> None:
    body = b"retry: 1500\ndata: a\n\ndata: b\n\nretry: 7\n\ndata: c\n\n"
    assert [(ev.data, ev.retry) for ev in decode_all(body)] == [
        ("a", 1500),
        ("b", None),
        ("c", None),
    ]


@pytest.mark.parametrize(
    "value",
    ["15a", "+15", "-15", " 15", "15 ", "1.5", "", "1_5", "１５", "0x1f", "9" * 5000],
)
def test_retry_non_ascii_digits_ignored(value: str) -> None:
    body = b"retry: 3\nretry: " + value.encode() + b"\ndata: a\n\n"
    (ev,) = decode_all(body)
    # 3 survives: an invalid retry line is ignored, not a reset. 5000 digits exceed Python's
    # int() limit, so that one is ignored too rather than raising.
    assert ev.retry == 3


def test_unknown_fields_and_case_sensitive_names_ignored() -> None:
    body = b"foo: bar\nData: X\nEVENT: y\ndata: kept\n\n"
    (ev,) = decode_all(body)
    assert (ev.event, ev.data) == ("message", "kept")


def test_only_one_leading_space_is_dropped_and_colons_in_value_kept() -> None:
    (ev,) = decode_all(b'data:  {"a": 1}\nevent:x:y\n\n')
    assert (ev.data, ev.event) == (' {"a": 1}', "x:y")


def test_block_without_data_is_not_dispatched() -> None:
    body = b"event: ping\n\nretry: 5\nid: 3\n\n\n\ndata: a\n\n"
    (ev,) = decode_all(body)
    assert (ev.event, ev.data, ev.id, ev.retry) == ("message", "a", "3", None)
    assert (ev.start, ev.end) == (body.index(b"data: a"), len(body))


# --- BOM -------------------------------------------------------------------------------------


def test_bom_at_start_is_stripped_in_any_chunking() -> None:
    body = BOM + b"data: a\n\n"
    for i in range(len(body) + 1):
        for j in range(i, len(body) + 1):
            events = feed_chunks([body[:i], body[i:j], body[j:]])
            assert [(ev.data, ev.start, ev.end) for ev in events] == [("a", 3, 12)], (i, j)


def test_bom_later_is_data() -> None:
    body = b"data: " + BOM + b"x\n\n" + BOM + b"data: lost\n\ndata: y\n\n"
    # Only the stream's first bytes can be a BOM: later it is U+FEFF, here making an unknown
    # field name "\ufeffdata" on the second block.
    assert [ev.data for ev in decode_all(body)] == ["\ufeffx", "y"]
    assert [ev.data for ev in decode_all(BOM + BOM + b"data: z\n\n")] == []


def test_partial_bom_alone_is_content() -> None:
    events = feed_chunks([b"\xef", b"\xbb"])
    assert [(ev.kind, ev.start) for ev in events] == [(EventKind.ERROR, 0)]


# --- close() ---------------------------------------------------------------------------------


def test_close_emits_final_event_without_blank_line() -> None:
    decoder = SSEDecoder()
    (first,) = decoder.feed(b"data: a\n\ndata: b\ndata: c", 1.0)
    assert (first.data, first.t) == ("a", 1.0)
    (ev,) = decoder.close(2.5)
    assert (ev.data, ev.start, ev.end, ev.t) == ("b\nc", 9, 24, 2.5)
    assert decoder.close() == []


def test_close_uses_last_t_and_drops_data_less_block() -> None:
    decoder = SSEDecoder()
    decoder.feed(b"data: a\n", 4.0)
    (ev,) = decoder.close()
    assert ev.t == 4.0
    other = SSEDecoder()
    assert other.feed(b"event: x\nid: 1\n") == []
    assert other.close() == []


def test_t_is_the_time_of_the_completing_chunk() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\n", 1.0) == []
    (ev,) = decoder.feed(b"\n: c", 2.0)
    assert decoder.feed(b"", 2.5) == []
    (comment,) = decoder.feed(b"\n", 3.0)
    assert (ev.t, comment.t, comment.comment) == (2.0, 3.0, "c")


def test_offset_counts_all_bytes_fed() -> None:
    decoder = SSEDecoder()
    decoder.feed(BOM[:2])
    decoder.feed(BOM[2:] + b"data: x")
    assert decoder.offset == 10
    decoder.feed(b"\r")
    assert decoder.offset == 11


# --- comments, seq and byte ranges -----------------------------------------------------------


def test_comments_kept_with_byte_ranges() -> None:
    body = b": hello\r\n:no-space\n:  two\ndata: a\n:inside\ndata: b\n\n:"
    events = decode_all(body)
    assert [(ev.kind, ev.comment, body[ev.start : ev.end]) for ev in events] == [
        (EventKind.COMMENT, "hello", b": hello\r\n"),
        (EventKind.COMMENT, "no-space", b":no-space\n"),
        (EventKind.COMMENT, " two", b":  two\n"),
        (EventKind.COMMENT, "inside", b":inside\n"),
        (EventKind.EVENT, "", b"data: a\n:inside\ndata: b\n\n"),
        (EventKind.COMMENT, "", b":"),
    ]
    assert [ev.seq for ev in events] == list(range(6))
    assert events[4].data == "a\nb"


def test_seq_counts_across_feeds() -> None:
    decoder = SSEDecoder()
    seqs = [ev.seq for ev in decoder.feed(b": a\ndata: 1\n\n")]
    seqs += [ev.seq for ev in decoder.feed(b"data: \xff\n\n")]
    seqs += [ev.seq for ev in decoder.feed(b": b\n")]
    assert seqs == [0, 1, 2, 3, 4]


def _covers_all_content(body: bytes, events: Sequence[SSEEvent]) -> None:
    """Bytes outside every EVENT/COMMENT range are only line ends (blank lines) or the BOM."""
    covered = bytearray(len(body))
    for ev in events:
        if ev.kind != EventKind.ERROR:
            covered[ev.start : ev.end] = b"\x01" * (ev.end - ev.start)
    start = 3 if body.startswith(BOM) else 0
    loose = bytes(b for b, c in zip(body[start:], covered[start:], strict=True) if not c)
    assert loose.strip(b"\r\n") == b""


def test_fixture_byte_ranges_are_exact() -> None:
    assert FIXTURES
    for path in FIXTURES:
        body = path.read_bytes()
        events = decode_all(body)
        check_ranges(body, events)
        _covers_all_content(body, events)
        for ev in events:
            raw = body[ev.start : ev.end]
            if ev.kind == EventKind.COMMENT:
                assert raw.startswith(b":") and raw.rstrip(b"\r\n").count(b"\n") == 0
                continue
            assert ev.kind == EventKind.EVENT, (path.name, ev)
            assert raw[:1] not in (b"\r", b"\n", b":")  # starts at its first field line
            (alone,) = messages(decode_all(raw))  # the range alone re-decodes to this event
            assert (alone.event, alone.data, alone.retry) == (ev.event, ev.data, ev.retry)
            assert (alone.start, alone.end) == (0, len(raw))


# --- UTF-8 -----------------------------------------------------------------------------------


def test_invalid_utf8_reports_absolute_offset_then_continues() -> None:
    body = b"data: ok\n\ndata: a\xffb\n\ndata: next\n\n"
    events = feed_chunks(split_at(body, [3, 17, 18]))
    assert [(ev.kind, ev.data) for ev in events] == [
        (EventKind.EVENT, "ok"),
        (EventKind.ERROR, "invalid UTF-8 byte 0xff at byte 17"),
        (EventKind.EVENT, "a\ufffdb"),
        (EventKind.EVENT, "next"),
    ]
    assert (events[1].start, events[1].end) == (17, 18)
    assert body[17] == 0xFF
    check_ranges(body, events)


@pytest.mark.parametrize(
    ("bad", "first_bad", "decoded"),
    [
        (b"\xe2\x82", 0xE2, "\ufffd"),  # truncated 3-byte sequence before the line end
        (b"\xed\xa0\x80", 0xED, "\ufffd\ufffd\ufffd"),  # an encoded surrogate
        (b"\xc0\xaf", 0xC0, "\ufffd\ufffd"),  # overlong
        (b"\x80", 0x80, "\ufffd"),  # stray continuation byte
    ],
)
def test_invalid_utf8_variants(bad: bytes, first_bad: int, decoded: str) -> None:
    body = BOM + b": c\ndata: x" + bad + b"\n\n"
    comment, err, ev = decode_all(body)
    at = body.index(bad)
    assert (err.kind, err.start, err.end) == (EventKind.ERROR, at, at + 1)
    assert err.data == f"invalid UTF-8 byte 0x{first_bad:02x} at byte {at}"
    assert (comment.comment, ev.data) == ("c", "x" + decoded)


def test_invalid_utf8_in_comment_and_in_partial_last_line() -> None:
    body = b":\xfe\ndata: \xf0\x9f"
    events = decode_all(body)
    assert [(ev.kind, ev.start) for ev in events] == [
        (EventKind.ERROR, 1),
        (EventKind.COMMENT, 0),
        (EventKind.ERROR, 9),
        (EventKind.EVENT, 3),
    ]
    assert (events[1].comment, events[3].data) == ("\ufffd", "\ufffd")


@pytest.mark.parametrize("char", ["é", "€", "😀"])
def test_multibyte_character_split_at_every_position(char: str) -> None:
    body = f"data: {char}{char}\n\n".encode()
    for i in range(len(body) + 1):
        for j in range(i, len(body) + 1):
            events = feed_chunks([body[:i], body[i:j], body[j:]])
            assert [(ev.kind, ev.data) for ev in events] == [(EventKind.EVENT, char * 2)]


# --- properties ------------------------------------------------------------------------------

SSE_TOKENS = st.sampled_from(
    [
        *(b"data", b"event", b"id", b"retry", b":", b": ", b" ", b"x", b"12"),
        *(b"\n", b"\r", b"\r\n", b"\n\n", b"\xef\xbb\xbf", b"\xff", b"\xe2\x82", b"\xac"),
        *(b"\x00", b"\xf0\x9f\x98\x80"),
    ]
)
SSE_ISH = st.lists(SSE_TOKENS, max_size=60).map(b"".join)
ANY_BYTES = st.one_of(st.binary(max_size=300), SSE_ISH)
CUTS = st.lists(st.integers(min_value=0, max_value=30_000), max_size=25)


@settings(max_examples=200, deadline=None)
@given(body=ANY_BYTES, cuts=CUTS)
def test_any_bytes_any_chunking_never_raises(body: bytes, cuts: list[int]) -> None:
    events = feed_chunks(split_at(body, cuts))
    check_ranges(body, events)
    assert keys(events) == keys(decode_all(body))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=st.sampled_from(FIXTURES), cuts=CUTS)
def test_real_fixtures_rechunked_equal_single_chunk(path: Path, cuts: list[int]) -> None:
    body = path.read_bytes()
    events = feed_chunks(split_at(body, cuts))
    assert keys(events) == keys(decode_all(body))
    check_ranges(body, events)


# --- feed_many: several chunks at once, the same events and times --------------------------


def _one_by_one(chunks: Sequence[tuple[float, bytes]]) -> tuple[list[Any], int]:
    decoder = SSEDecoder()
    events = [ev for t, data in chunks for ev in decoder.feed(data, t)]
    events += decoder.close()
    return [(*key(ev), ev.t) for ev in events], decoder.offset


def _many(chunks: Sequence[tuple[float, bytes]], groups: Sequence[int]) -> tuple[list[Any], int]:
    """feed_many over consecutive groups of the chunks (sizes from ``groups``, cycled)."""
    decoder = SSEDecoder()
    events: list[SSEEvent] = []
    i, g = 0, 0
    while i < len(chunks):
        size = max(groups[g % len(groups)], 1) if groups else len(chunks)
        events += decoder.feed_many(chunks[i : i + size])
        i, g = i + size, g + 1
    events += decoder.close()
    return [(*key(ev), ev.t) for ev in events], decoder.offset


_PIECES = [
    b"data: a",
    b"data: \xc3\xa9t\xc3\xa9",
    b"\n",
    b"\r\n",
    b"\r",
    b": ping",
    b"event: x",
    b"id: 7",
    b"retry: 5",
    b"data: \xff\xfe",
    b'data: {"k": 1}',
    BOM,
    b"",
    b"nocolon",
]


@settings(max_examples=300, deadline=None)
@given(
    parts=st.lists(st.sampled_from(_PIECES), max_size=40),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=30),
    at_lines=st.booleans(),
    groups=st.lists(st.integers(min_value=1, max_value=6), max_size=4),
)
def test_feed_many_equals_one_by_one(
    parts: list[bytes], cuts: list[int], at_lines: bool, groups: list[int]
) -> None:
    body = b"".join(parts)
    if at_lines:  # cut after line ends, where runs form (plus the random cuts)
        cuts = cuts + [i + 1 for i, b in enumerate(body) if b in b"\r\n"]
    pieces = split_at(body, cuts)
    pieces[1:1] = [b""] if len(pieces) > 2 else []  # an empty read in the middle
    chunks = [(0.5 * (i + 1), p) for i, p in enumerate(pieces)]
    assert _many(chunks, groups) == _one_by_one(chunks)


def test_feed_many_times_events_by_the_chunk_that_completed_them() -> None:
    chunks = [(1.0, b"data: a\n"), (2.0, b"\n: c\n"), (3.0, b"data: \xffb\n"), (4.0, b"\n")]
    events = SSEDecoder().feed_many(chunks)
    assert [(ev.kind, ev.t) for ev in events] == [
        (EventKind.EVENT, 2.0),
        (EventKind.COMMENT, 2.0),
        (EventKind.ERROR, 3.0),
        (EventKind.EVENT, 4.0),
    ]


def test_feed_many_matches_for_every_fixture_in_network_sized_reads() -> None:
    for path in FIXTURES:
        body = path.read_bytes()
        by_events = [
            body[a:b] for a, b in pairwise([0, *[e.end for e in decode_all(body)], len(body)])
        ]
        for pieces in (by_events, split_at(body, range(0, len(body), 37))):
            chunks = [(0.01 * i, p) for i, p in enumerate(pieces)]
            assert _many(chunks, []) == _one_by_one(chunks), path.name


def test_a_long_data_line_decodes_like_a_short_one_even_split_and_invalid() -> None:
    """A data line of megabytes gives the same event whole or cut anywhere, and an invalid
    byte at its end still gives its ERROR at the right offset."""
    value = "é" * (1 << 20)  # 2 MiB of UTF-8
    body = b"id: 7\ndata: " + value.encode() + b"\ndata: tail\n\n"
    whole = decode_all(body)
    assert [(e.kind, e.data, e.id, e.start, e.end) for e in whole] == [
        (EventKind.EVENT, value + "\ntail", "7", 0, len(body))
    ]
    split = feed_chunks([body[:100], body[100:1_500_001], body[1_500_001:]])
    assert [(e.data, e.start, e.end) for e in split] == [(whole[0].data, 0, len(body))]
    bad = b"data: " + b"x" * (1 << 21) + b"\xff!\n\n"
    events = decode_all(bad)
    assert [e.kind for e in events] == [EventKind.ERROR, EventKind.EVENT]
    assert events[0].start == 6 + (1 << 21)
    assert events[1].data == "x" * (1 << 21) + "\ufffd!"


def test_repeated_comments_share_one_text() -> None:
    """A million keep-alives hold one string: each comment equal to the last reuses it."""
    events = decode_all(b": keep-alive\n: keep-alive\n: other\n: keep-alive\n")
    assert [e.comment for e in events] == ["keep-alive", "keep-alive", "other", "keep-alive"]
    assert events[0].comment is events[1].comment
    assert events[2].comment is not events[1].comment
