"""Differential tests: our SSE decoder against httpx-sse on what both report.

httpx-sse is driven without a network, the way ``EventSource.iter_sse`` drives it: bytes go
through an incremental UTF-8 decoder with ``errors="replace"`` (httpx's ``iter_text`` for a
text/event-stream response without a charset), then ``SSELineDecoder``, then ``SSEDecoder``,
with a final flush of both.

Compared: the EVENT events' (event, data, id, retry), in order. Excluded on purpose, each
pinned by a ``test_known_difference_*`` test below:

- comments: httpx-sse drops them; we emit COMMENT events (filtered out by kind);
- ERROR events for invalid UTF-8: httpx-sse replaces silently; so do we, plus an ERROR event
  (filtered out by kind; the replaced data must still match);
- the final event at EOF without a terminating blank line: WHATWG and httpx-sse discard it, we
  dispatch it from ``close()`` so the inspector shows everything received (dropped from ours);
- a UTF-8 BOM at the start: WHATWG strips it, httpx-sse keeps U+FEFF in the first field name
  (generated streams never start with one; no real fixture does);
- blocks without any ``data`` line: WHATWG does not dispatch them; httpx-sse dispatches when
  the block set ``event``/``retry`` or any ``id`` was ever seen (dropped from httpx-sse's side);
- ``retry`` values int() accepts but that are not all ASCII digits (``+5``, `` 5``, ``1_0``,
  ``５``): WHATWG ignores them, httpx-sse takes them (retry not compared for those events).

Our ``id`` is None before any ``id:`` field; httpx-sse reports "" then, so None maps to "".
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Iterable
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from conftest import all_real_fixtures
from httpx_sse._decoders import SSEDecoder as HxDecoder
from httpx_sse._decoders import SSELineDecoder
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.core.base.model import EventKind
from inspector.core.events.sse import SSEDecoder

FIXTURES = all_real_fixtures()
BOM = b"\xef\xbb\xbf"
RETRY_NOT_COMPARED = "<retry not compared>"
Row = tuple[str, str, str, Any]


def split_at(body: bytes, cuts: Iterable[int]) -> list[bytes]:
    points = sorted({0, len(body), *(c % (len(body) + 1) for c in cuts)})
    return [body[a:b] for a, b in pairwise(points)]


class HttpxSSE:
    """httpx-sse's decoders fed like ``iter_sse``, noting which blocks had a data line."""

    def __init__(self) -> None:
        self.text = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.lines = SSELineDecoder()
        self.decoder = HxDecoder()
        self.rows: list[Row] = []
        self.dataless = 0  # events httpx-sse dispatched for blocks without a data line
        self._has_data = False
        self._retry_differs = False

    def run(self, chunks: Iterable[bytes]) -> list[Row]:
        for chunk in chunks:
            self._text(self.text.decode(chunk))
        self._text(self.text.decode(b"", True))
        for line in self.lines.flush():
            self._line(line)
        return self.rows

    def _text(self, text: str) -> None:
        if text:  # httpx's TextChunker never passes empty strings on
            for line in self.lines.decode(text):
                self._line(line)

    def _line(self, line: str) -> None:
        line = line.rstrip("\n")  # as iter_sse does
        self._track(line)
        sse = self.decoder.decode(line)
        if sse is not None:
            if not self._has_data:
                self.dataless += 1  # known difference: WHATWG dispatches no data-less block
            else:
                retry = RETRY_NOT_COMPARED if self._retry_differs else sse.retry
                self.rows.append((sse.event, sse.data, sse.id, retry))
        if not line:
            self._has_data = self._retry_differs = False

    def _track(self, line: str) -> None:
        if not line or line.startswith(":"):
            return
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._has_data = True
        elif name == "retry":
            whatwg = value.isascii() and value.isdigit()
            try:
                int(value)
                python = True
            except ValueError:
                python = False
            if whatwg and python:
                self._retry_differs = False  # both take this one: they agree again
            elif whatwg != python:
                self._retry_differs = True


def blank_terminated(raw: bytes) -> bool:
    """True when ``raw`` (an event's byte range) ends with a blank line."""
    if raw.endswith(b"\r\n"):
        raw = raw[:-2]
    elif raw.endswith((b"\n", b"\r")):
        raw = raw[:-1]
    else:
        return False
    return raw.endswith((b"\n", b"\r"))


def ours(body: bytes, chunks: Iterable[bytes]) -> list[Row]:
    decoder = SSEDecoder()
    events = [ev for chunk in chunks for ev in decoder.feed(chunk)]
    events += decoder.close()
    return [
        (ev.event, ev.data, "" if ev.id is None else ev.id, ev.retry)
        for ev in events
        if ev.kind == EventKind.EVENT and blank_terminated(body[ev.start : ev.end])
    ]


def assert_same(
    body: bytes, cuts: Iterable[int], decode: Callable[[bytes, list[bytes]], list[Row]] = ours
) -> HttpxSSE:
    chunks = split_at(body, cuts)
    ref = HttpxSSE()
    theirs = ref.run(chunks)
    mine = decode(body, chunks)
    assert len(mine) == len(theirs), (mine, theirs)
    for a, b in zip(mine, theirs, strict=True):
        if b[3] == RETRY_NOT_COMPARED:
            assert a[:3] == b[:3]
        else:
            assert a == b
    return ref


# --- real fixtures ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_fixture_single_chunk(path: Path) -> None:
    body = path.read_bytes()
    ref = assert_same(body, [])
    assert ref.rows, "fixture produced no events"
    assert ref.dataless == 0  # real streams have no data-less blocks: nothing excluded


@settings(max_examples=150, deadline=None)
@given(path=st.sampled_from(FIXTURES), cuts=st.lists(st.integers(0, 30_000), max_size=30))
def test_fixture_rechunked(path: Path, cuts: list[int]) -> None:
    assert_same(path.read_bytes(), cuts)


# --- generated streams -----------------------------------------------------------------------

VALUE_CHARS = st.sampled_from(
    ["a", "Z", "1", "0", " ", ":", "\x00", "é", "€", "😀", "\ufeff", "\u2028", "\x0b", "+", "-"]
)
TEXT = st.lists(VALUE_CHARS, max_size=8).map("".join)
RETRY = st.sampled_from(["1500", "0", "007", "+5", " 5", "5 ", "-1", "1_0", "５", "1a", "", "x"])
INVALID = st.sampled_from([b"\xff", b"\xe2\x82", b"\xed\xa0\x80", b"\xc0\xaf", b"\x80"])


@st.composite
def field_line(draw: st.DrawFn) -> bytes:
    name = draw(st.sampled_from(["data", "data", "data", "event", "id", "retry", "foo", "Data"]))
    sep = draw(st.sampled_from(["", ":", ": ", ":  "]))
    value = draw(RETRY if name == "retry" else TEXT)
    raw = (name + sep + value).encode() if sep else name.encode()
    if draw(st.integers(0, 9)) == 0:
        raw += draw(INVALID)  # invalid UTF-8 inside a line: both decoders use U+FFFD
    return raw


COMMENT = TEXT.map(lambda s: (":" + s).encode())
LINE = st.one_of(field_line(), field_line(), COMMENT)
EOL = st.sampled_from([b"\n", b"\r", b"\r\n"])


@st.composite
def block(draw: st.DrawFn) -> bytes:
    """A few field/comment lines, then one or more blank lines (or none: lines run on)."""
    lines = draw(st.lists(st.tuples(LINE, EOL), min_size=1, max_size=5))
    blanks = draw(st.sampled_from([0, 1, 1, 1, 2]))
    return b"".join(line + eol for line, eol in lines) + b"".join(draw(EOL) for _ in range(blanks))


@st.composite
def sse_stream(draw: st.DrawFn) -> bytes:
    body = b"".join(draw(st.lists(block(), max_size=8)))
    if draw(st.booleans()):
        body += draw(LINE)  # an unterminated last line
    return body


@settings(max_examples=200, deadline=None)
@given(body=sse_stream(), cuts=st.lists(st.integers(0, 2_000), max_size=12))
def test_generated_streams_match_httpx_sse(body: bytes, cuts: list[int]) -> None:
    # Every generated line starts with an ASCII field name, ":" or a line end, so no stream
    # starts with a BOM (a known difference, pinned below).
    assert not body.startswith(BOM[:1])
    assert_same(body, cuts)


# --- pinned differences (each should fail if either side changes) ----------------------------


def _hx(body: bytes) -> list[tuple[str, str, str, Any]]:
    decoder = HxDecoder()
    lines = SSELineDecoder()
    text = body.decode("utf-8", "replace")
    rows: list[tuple[str, str, str, Any]] = []
    for line in [*lines.decode(text), *lines.flush()]:
        sse = decoder.decode(line)
        if sse is not None:
            rows.append((sse.event, sse.data, sse.id, sse.retry))
    return rows


def _mine(body: bytes) -> list[tuple[str, str, str | None, int | None]]:
    decoder = SSEDecoder()
    events = decoder.feed(body) + decoder.close()
    return [(e.event, e.data, e.id, e.retry) for e in events if e.kind == EventKind.EVENT]


def test_known_difference_dataless_blocks() -> None:
    # WHATWG: "If the data buffer is an empty string, set the data buffer and the event type
    # buffer to the empty string and return" -- no event. httpx-sse dispatches when the block
    # set event/retry, or whenever a last event ID was ever set (so every extra blank line
    # after an id yields an empty "message").
    assert _hx(b"event: ping\n\n") == [("ping", "", "", None)]
    assert _hx(b"retry: 100\n\n") == [("message", "", "", 100)]
    assert _hx(b"id: 1\ndata: a\n\n\n") == [("message", "a", "1", None), ("message", "", "1", None)]
    assert _mine(b"event: ping\n\n") == []
    assert _mine(b"retry: 100\n\n") == []
    assert _mine(b"id: 1\ndata: a\n\n\n") == [("message", "a", "1", None)]


@pytest.mark.parametrize("value", ["+5", " 5", "5 ", "-5", "1_0", "５"])
def test_known_difference_retry_non_ascii_digits(value: str) -> None:
    # WHATWG: retry is used only "if the field value consists of only ASCII digits".
    # httpx-sse uses int(), which also takes signs, whitespace, underscores, Unicode digits.
    body = f"retry: {value}\ndata: a\n\n".encode()
    assert _hx(body)[0][3] == int(value)
    assert _mine(body) == [("message", "a", None, None)]


def test_known_difference_leading_bom() -> None:
    # WHATWG decodes the stream with "UTF-8 decode", which strips a leading BOM; httpx decodes
    # with plain "utf-8", so the first line becomes the unknown field "\ufeffdata".
    body = BOM + b"data: a\n\n"
    assert _hx(body) == []
    assert _mine(body) == [("message", "a", None, None)]


def test_known_difference_unterminated_final_event() -> None:
    # WHATWG and httpx-sse discard an event with no blank line before EOF; we show it.
    body = b"data: a\n\ndata: b\n"
    assert _hx(body) == [("message", "a", "", None)]
    assert _mine(body) == [("message", "a", None, None), ("message", "b", None, None)]


def test_known_difference_comments() -> None:
    decoder = SSEDecoder()
    events = decoder.feed(b": keep-alive\ndata: a\n\n")
    assert [(e.kind, e.comment) for e in events] == [
        (EventKind.COMMENT, "keep-alive"),
        (EventKind.EVENT, ""),
    ]
    assert _hx(b": keep-alive\ndata: a\n\n") == [("message", "a", "", None)]


def test_harness_detects_a_difference() -> None:
    # The comparison itself must be able to fail: a decoder that alters data is caught.
    def broken(body: bytes, chunks: Iterable[bytes]) -> list[Row]:
        return [(e, d + "!", i, r) for e, d, i, r in ours(body, chunks)]

    assert_same(b"data: a\n\n", [3])
    with pytest.raises(AssertionError):
        assert_same(b"data: a\n\n", [3], broken)
