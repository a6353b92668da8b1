"""AWS event-stream frames decoded incrementally: the same events whatever the chunking, and
every fault a wire problem in a complete report (never a crash, nothing received lost)."""

from __future__ import annotations

import zlib
from itertools import pairwise
from typing import Any

import orjson
import pytest
from bedrock_fixtures import framed, recorded
from botocore.eventstream import ChecksumMismatch, EventStreamBuffer

from inspector.core.base.model import EventKind, SSEEvent
from inspector.core.providers.bedrock_converse.eventstream import (
    EventStreamDecoder,
    encode_frame,
    event_frame,
    exception_frame,
    read_headers,
)

BODY = recorded()[2].framed  # text, then two calls: 12 frames
"""A real stream (amazon-bedrock-json-tool-text-then-weather-then-json), framed."""


def cut(ev: SSEEvent) -> tuple[Any, ...]:
    return (ev.seq, ev.kind, ev.event, ev.data, ev.start, ev.end)


def decoded(*chunks: bytes) -> list[tuple[Any, ...]]:
    d = EventStreamDecoder()
    events = [ev for c in chunks for ev in d.feed(c)]
    return [cut(ev) for ev in events + d.close()]


WHOLE = decoded(BODY)


def test_a_real_stream_framed_is_one_event_per_frame_typed_by_its_event_type() -> None:
    assert recorded()[2].name == "amazon-bedrock-json-tool-text-then-weather-then-json.1"
    assert len(WHOLE) == 12 and all(kind == EventKind.EVENT for _, kind, *_ in WHOLE)
    assert [e[2] for e in WHOLE[:4]] == [
        "contentBlockDelta", "contentBlockDelta", "contentBlockStop", "contentBlockStart"
    ]  # fmt: skip
    assert WHOLE[3][3] == (
        '{"contentBlockIndex":1,"start":{"toolUse":{"toolUseId":"weather-tool-1","name":"weather"}}}'
    )
    assert WHOLE[0][4] == 0 and WHOLE[-1][5] == len(BODY)
    assert all(a[5] == b[4] for a, b in pairwise(WHOLE))  # back to back


def test_the_frames_are_what_botocore_reads() -> None:
    buffer = EventStreamBuffer()
    buffer.add_data(BODY)
    messages = list(buffer)
    assert [m.headers[":event-type"] for m in messages] == [e[2] for e in WHOLE]
    assert [m.payload.decode() for m in messages] == [e[3] for e in WHOLE]
    assert {m.headers[":message-type"] for m in messages} == {"event"}


def test_split_at_every_byte_offset_the_decoder_cuts_the_same_events() -> None:
    for at in range(len(BODY) + 1):
        assert decoded(BODY[:at], BODY[at:]) == WHOLE, f"split at byte {at}"


def test_fed_one_byte_at_a_time_the_decoder_cuts_the_same_events() -> None:
    assert decoded(*(BODY[i : i + 1] for i in range(len(BODY)))) == WHOLE


def test_split_at_every_pair_of_offsets_in_a_frame_with_headers() -> None:
    frame = exception_frame("throttlingException", b'{"message":"Too many requests"}')
    whole = decoded(frame)
    for a in range(len(frame) + 1):
        for b in range(a, len(frame) + 1):
            assert decoded(frame[:a], frame[a:b], frame[b:]) == whole


def _corrupt(body: bytes, at: int) -> bytes:
    return body[:at] + bytes([body[at] ^ 0x01]) + body[at + 1 :]


def test_a_bad_message_crc_is_a_wire_error_after_the_frame_whose_content_is_kept() -> None:
    first = event_frame("messageStart", b'{"role":"assistant"}')
    body = _corrupt(first, len(first) - 1) + BODY
    got = decoded(body)
    assert got[0][1:4] == (EventKind.EVENT, "messageStart", '{"role":"assistant"}')
    assert got[1][1:4] == (EventKind.ERROR, "", "the frame's message CRC does not match")
    assert (got[1][4], got[1][5]) == (len(first) - 4, len(first))
    assert [e[2:] for e in got[2:]] == [(t, d, s + len(first), e + len(first))
                                        for _, _, t, d, s, e in WHOLE]  # fmt: skip
    buffer = EventStreamBuffer()  # botocore refuses it: the CRC is really wrong
    buffer.add_data(body)
    with pytest.raises(ChecksumMismatch):
        next(iter(buffer))


def test_a_bad_payload_byte_fails_the_crc_and_the_payload_is_shown_as_it_came() -> None:
    frame = event_frame("contentBlockDelta", b'{"contentBlockIndex":0,"delta":{"text":"Hi"}}')
    body = frame.replace(b'"Hi"', b'"Hj"')
    got = decoded(body)
    assert [e[1] for e in got] == [EventKind.EVENT, EventKind.ERROR]
    assert '"Hj"' in got[0][3]


def test_a_bad_prelude_crc_skips_to_the_next_frame_and_says_how_many_bytes() -> None:
    first = event_frame("messageStart", b'{"role":"assistant"}')
    body = _corrupt(first, 9) + BODY  # a prelude CRC byte
    for chunks in ([body], [body[:5], body[5:40], body[40:]], [bytes([b]) for b in body]):
        got = decoded(*chunks)
        assert got[0][1] == EventKind.ERROR
        assert got[0][3] == (
            f"{len(first)} bytes are not a frame (the prelude's CRC does not match at byte 0)"
        )
        assert (got[0][4], got[0][5]) == (0, len(first))
        assert len(got) == 1 + len(WHOLE) and got[1][2] == "contentBlockDelta"


def test_a_body_cut_inside_a_frame_ends_with_a_wire_error_over_what_came() -> None:
    body = BODY[:-10]
    got = decoded(body)
    assert got[:-1] == WHOLE[:-1]
    last = WHOLE[-1]
    assert got[-1][1] == EventKind.ERROR and (got[-1][4], got[-1][5]) == (last[4], len(body))
    total = last[5] - last[4]
    assert got[-1][3] == f"the body ended inside a frame: {total - 10} of its {total} bytes came"
    assert decoded(BODY[:5])[0][3] == "the body ended inside a frame's prelude: 5 of 12 bytes came"


def test_an_exception_frame_is_an_event_of_its_type_whose_headers_say_exception() -> None:
    frame = exception_frame("modelStreamErrorException", b'{"message":"Model stream failed"}')
    d = EventStreamDecoder()
    (ev,) = d.feed(frame)
    assert (ev.kind, ev.event, ev.data) == (
        EventKind.EVENT, "modelStreamErrorException", '{"message":"Model stream failed"}'
    )  # fmt: skip
    assert dict(d.headers(ev) or ()) == {
        ":exception-type": "modelStreamErrorException",
        ":content-type": "application/json",
        ":message-type": "exception",
    }


def test_headers_of_every_value_type_are_read() -> None:
    block = (
        b"\x01a\x00" + b"\x01b\x01" + b"\x01c\x02\xff" + b"\x01d\x03\x00\x02"
        + b"\x01e\x04\x00\x00\x00\x03" + b"\x01f\x05" + (4).to_bytes(8, "big")
        + b"\x01g\x06\x00\x02\x00\x01" + b"\x01h\x07\x00\x02hi"
        + b"\x01i\x08" + (5).to_bytes(8, "big") + b"\x01j\x09" + bytes(range(16))
    )  # fmt: skip
    assert read_headers(block) == [
        ("a", True), ("b", False), ("c", -1), ("d", 2), ("e", 3), ("f", 4),
        ("g", b"\x00\x01"), ("h", "hi"), ("i", 5), ("j", bytes(range(16))),
    ]  # fmt: skip


def test_unreadable_headers_are_a_wire_error_and_the_payload_still_an_event() -> None:
    block = b"\x05:bad\x07\x00\xffxx"  # a string longer than the block
    payload = b'{"role":"assistant"}'
    total = 12 + len(block) + len(payload) + 4
    head = total.to_bytes(4, "big") + len(block).to_bytes(4, "big")
    head += zlib.crc32(head).to_bytes(4, "big")
    frame = head + block + payload
    frame += zlib.crc32(frame).to_bytes(4, "big")
    got = decoded(frame)
    assert got[0][1] == EventKind.ERROR and "runs past the header block" in got[0][3]
    assert got[1][1:4] == (EventKind.EVENT, "message", '{"role":"assistant"}')


def test_json_lines_are_one_event_a_line_and_blank_lines_are_skipped() -> None:
    lines = recorded()[2].lines
    body = lines.replace(b"\n", b"\n\n", 3)
    got = decoded(body)
    assert [e[3] for e in got] == [line.decode() for line in lines.splitlines()]
    assert all(e[2] == "message" for e in got)
    for at in range(len(body) + 1):
        assert decoded(body[:at], body[at:]) == got


def test_invalid_utf8_in_a_payload_is_a_wire_error_then_the_event() -> None:
    frame = encode_frame(((":event-type", "contentBlockDelta"),), b'{"x":"\xff"}')
    got = decoded(frame)
    assert got[0][1] == EventKind.ERROR and got[0][3].startswith("invalid UTF-8 byte 0xff at byte")
    assert got[1][3] == '{"x":"\ufffd"}'


def test_framing_a_recorded_stream_gives_its_payloads_back() -> None:
    rec = recorded()[0]
    payloads = [orjson.loads(line) for line in rec.lines.splitlines() if line.strip()]
    inner = [orjson.dumps(next(iter(p.values()))).decode() for p in payloads]
    assert [e[3] for e in decoded(framed(rec.lines))] == inner
