"""Issue 30: a large JSON document read and written in pieces is the document orjson reads
and writes whole (``inspector/core/capture/pieces.py``)."""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest

from inspector.core.capture import pieces

WORDS = ["a", "é€", "😀x", '\\"q', "{[,:]}", "12", " ", "\n", "sk-test", "東京"]


def _value(rnd: random.Random, depth: int) -> Any:
    roll = rnd.random()
    if depth > 4 or roll < 0.3:
        text = "".join(rnd.choice(WORDS) for _ in range(rnd.randrange(30)))
        number = rnd.randint(-(10**15), 10**15)
        return rnd.choice([number, rnd.random() * 1e10, True, False, None, text, -0.5e-7])
    if roll < 0.65:
        return [_value(rnd, depth + 1) for _ in range(rnd.randrange(8))]
    return {f"{rnd.choice(WORDS)}{i}": _value(rnd, depth + 1) for i in range(rnd.randrange(8))}


def _documents() -> list[bytes]:
    rnd = random.Random(30)
    out = []
    for n in range(120):
        doc = {"model": _value(rnd, 2), "messages": [_value(rnd, 1) for _ in range(12)]}
        option = orjson.OPT_INDENT_2 if n % 3 == 0 else None  # whitespace between tokens too
        out.append(orjson.dumps(doc, option=option))
    return out


@pytest.mark.parametrize("piece", [16, 40, 300])
def test_a_document_read_in_pieces_is_the_document_read_whole(piece: int) -> None:
    for raw in _documents():
        assert pieces.loads(raw, piece) == orjson.loads(raw)


def test_a_window_never_cuts_a_character_in_two() -> None:
    doc = {"messages": [{"content": "é東😀" * (k % 7 + 1) + "x" * k} for k in range(200)]}
    raw = orjson.dumps(doc)
    for piece in range(12, 60):
        reader = pieces._Reader(memoryview(raw), piece, lambda: None)
        assert reader.value(0) == (doc, len(raw))  # read in pieces, not whole after a failure


def test_reading_pauses_between_its_steps() -> None:
    raw = orjson.dumps({"messages": [{"content": "x" * 50} for _ in range(100)]})
    paused: list[None] = []
    assert pieces.loads(raw, 200, pause=lambda: paused.append(None)) == orjson.loads(raw)
    assert len(paused) >= 100  # one step (at least) per message


@pytest.mark.parametrize(
    "raw",
    [
        b'{"a": [1, 2, ], "pad": "' + b"x" * 60 + b'"}',
        b'{"a" 1, "pad": "' + b"x" * 60 + b'"}',
        b'{"a": [1 2], "pad": "' + b"x" * 60 + b'"}',
        b'{"a": 1}x' + b" " * 60,
        b'{"a": tru, "pad": "' + b"x" * 60 + b'"}',
        b'{"a": "\xff", "pad": "' + b"x" * 60 + b'"}',
        b'{"a": 1, "pad": "' + b"x" * 60 + b'"',
    ],
)
def test_a_document_orjson_refuses_is_refused(raw: bytes) -> None:
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(raw)
    with pytest.raises(orjson.JSONDecodeError):
        pieces.loads(raw, 8)


def test_written_in_pieces_it_is_the_same_bytes() -> None:
    for raw in _documents():
        value = orjson.loads(raw)
        written = list(pieces.dumps(value))
        assert b"".join(written) == orjson.dumps(value)
    big = {"messages": [{"content": "x" * 1000} for _ in range(3000)]}
    written = list(pieces.dumps(big))
    assert len(written) > 1 and max(map(len, written)) < pieces.PIECE + 2000
