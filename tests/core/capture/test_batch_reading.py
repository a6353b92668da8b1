"""The reader's batch path (core.capture.lines) against its line-by-line paths: random captures
with malformed lines, odd records, several attempts, events and cut-off last lines, read whole
and a random number of records at a time, give the same Capture (attempts, chunks, times,
records, warnings) or the same one-line error (line and offset) as the record-by-record reader
of a migrated file and as the batch path's own line-by-line fallback. And the replay plan's
bulk times equal the running maximum they stand for."""

from __future__ import annotations

import json
import math
import random
from array import array
from collections.abc import Iterator
from itertools import accumulate
from typing import Any

import pytest

from inspector.core.capture import compat, lines
from inspector.core.capture.format import CaptureError
from inspector.core.capture.reader import CaptureReader, load_bytes
from inspector.core.capture.records import Capture
from inspector.core.replay.plan import Plan

HEADER = {"format": "toolcall-inspector-capture", "version": 1}
ENDINGS = [b"\n", b"", b"\n\n", b'\n{"type":"chunk","attempt":1,"t":0.5,"te']
TEXTS = ["data: {}\n\n", 'data: {"a":"é—\\"x"}\n\n', "", ": keep-alive\n", "data: [DONE]\n\n"]


def _chunk(rng: random.Random, attempt: int, t: float) -> dict[str, Any]:
    return {"type": "chunk", "attempt": attempt, "t": t, "text": rng.choice(TEXTS)}


def _odd_lines(attempt: int, t: float, text: str) -> list[str | dict[str, Any]]:
    """Lines the batch path must not take as plain chunks (some are errors)."""
    chunk = {"type": "chunk", "attempt": attempt, "t": t, "text": text}
    return [
        "",
        "  ",
        {**chunk, "t": 3},  # an int time: the builder makes it a float
        {**chunk, "x": 1},  # an extra key
        {**chunk, "b64": "AA=="},  # both text and b64: an error
        {**chunk, "b64": None},
        {"type": "chunk", "attempt": attempt, "t": t, "b64": "/w=="},
        {**chunk, "attempt": attempt + 1},  # another attempt, maybe new
        {**chunk, "attempt": 2**70},
        {"type": "event", "attempt": attempt, "t": t, "kind": "note", "data": {"n": 1}},
        {"type": "attempt", "attempt": attempt + 1, "reason": "retry"},
        {"type": "end", "attempt": attempt, "t": t, "reason": "eof", "error": None},
        {"type": "mystery", "attempt": attempt},
        {"t": t, "text": "a", "type": "chunk", "attempt": attempt},  # keys reordered
        '{"type":"chunk","attempt":1,"t":0.1,"text":"x","type":"end"}',  # a duplicate key
        {**chunk, "type": "chunky"},
        {"type": "chunk", "attempt": attempt, "t": t, "texts": "a"},
        {**chunk, "attempt": True},
        {**chunk, "attempt": 1.0},
        {**chunk, "t": "0.5"},
        {**chunk, "t": True},
        {**chunk, "text": 5},
        {**chunk, "text": None},
        {**chunk, "attempt": 0},
        "[1, 2]",
        "7",
        '"chunk"',
        '{"type": "chunk", "attempt"',  # corrupt: an error unless it is the last line
    ]


ODD_KINDS = len(_odd_lines(1, 0.0, ""))


def _lines(records: list[str | dict[str, Any]], newline: str, ending: bytes) -> bytes:
    text = [json.dumps(HEADER)]
    text += [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in records]
    return newline.join(text).encode() + ending


def _random_capture(rng: random.Random) -> bytes:
    records: list[str | dict[str, Any]] = [
        {"type": "request", "attempt": 1, "t": 0.0, "method": "POST", "url": "u", "body": {}},
        {"type": "response", "attempt": 1, "t": 0.1, "status": 200, "headers": {}},
    ]
    attempt, t = 1, 0.0
    for _ in range(rng.randrange(0, 400)):
        t = t + rng.choice([0.001, 0.0, -0.002]) if rng.random() < 0.9 else rng.random()
        if rng.random() < 0.01:
            attempt += 1
        if rng.random() < 0.03 * rng.random():
            records.append(rng.choice(_odd_lines(attempt, t, rng.choice(TEXTS))))
        else:
            records.append(_chunk(rng, attempt, t))
    newline = "\r\n" if rng.random() < 0.1 else "\n"
    return _lines(records, newline, rng.choice(ENDINGS))


def _read(data: bytes, counts: random.Random | None = None) -> Capture | str:
    """The capture, read whole or (``counts``) a random number of records at a time."""
    try:
        if counts is None:
            return load_bytes(data, "x.jsonl")
        reader = CaptureReader(data, "x.jsonl")
        while not reader.done:
            asked = counts.choice([1, 2, 7, 100, 513, 5000])
            assert reader.read(asked) <= asked
        return reader.capture
    except CaptureError as exc:
        return f"{exc} @{exc.line}:{exc.offset}"


@pytest.fixture
def from_version_0(monkeypatch: pytest.MonkeyPatch) -> None:
    """A converter from a (made-up) version 0 that changes nothing but the version: a file at
    version 0 is read record by record, through the converters' record stream."""

    def convert(header: dict[str, Any], records: Iterator[dict[str, Any]]) -> Any:
        return {**header, "version": 1}, (r for r in records)

    monkeypatch.setitem(compat.CONVERTERS, 0, convert)


def _same_on_every_path(data: bytes, monkeypatch: pytest.MonkeyPatch) -> Capture | str:
    """The capture (or error) read whole, a random number of records at a time, migrated
    (record by record) and by the batch path's line-by-line fallback, all the same."""
    whole = _read(data)
    assert _read(data, random.Random(len(data))) == whole
    assert _read(data.replace(b'"version": 1', b'"version": 0', 1)) == whole
    with monkeypatch.context() as m:  # the batch path's own fallback, every time
        m.setattr(lines, "_append_chunks", lambda records, builder: False)
        assert _read(data) == whole
    return whole


@pytest.mark.usefixtures("from_version_0")
@pytest.mark.parametrize("kind", range(ODD_KINDS))
def test_one_odd_line_among_chunks_reads_the_same_on_every_path(
    kind: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    chunks: list[str | dict[str, Any]] = [
        {"type": "chunk", "attempt": 1, "t": i / 4, "text": TEXTS[i % len(TEXTS)]}
        for i in range(40)
    ]
    for where in (0, 17, 40):
        odd = _odd_lines(1, 2.5, TEXTS[1])[kind]
        for ending in ENDINGS:
            for newline in ("\n", "\r\n"):
                data = _lines([*chunks[:where], odd, *chunks[where:]], newline, ending)
                whole = _same_on_every_path(data, monkeypatch)
                if isinstance(whole, Capture):  # the chunks before the odd line are all kept
                    assert whole.attempts[0].chunks[:where] == [
                        (c["t"], c["text"].encode()) for c in chunks[:where] if type(c) is dict
                    ]


@pytest.mark.usefixtures("from_version_0")
def test_random_captures_read_the_same_by_batch_and_line_by_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    taken = {True: 0, False: 0}
    batch = lines._append_chunks

    def counted(records: list[Any], builder: Any) -> bool:
        ok = batch(records, builder)
        taken[ok] += 1
        return ok

    monkeypatch.setattr(lines, "_append_chunks", counted)
    kinds = {"capture": 0, "error": 0, "cut off": 0}
    for seed in range(250):
        whole = _same_on_every_path(_random_capture(random.Random(seed)), monkeypatch)
        kinds["error" if isinstance(whole, str) else "capture"] += 1
        kinds["cut off"] += not isinstance(whole, str) and any(
            "cut off" in w for w in whole.warnings
        )
    assert min(kinds.values()) >= 10, kinds  # every outcome is covered
    assert taken[True] >= 100 and taken[False] >= 100, taken  # and both paths were taken


def test_a_batch_keeps_the_chunks_it_reads_exactly() -> None:
    chunks = [
        {"type": "chunk", "attempt": 1, "t": i / 8, "text": f"data: {i}é\n\n"} for i in range(3000)
    ]
    text = [json.dumps(HEADER), json.dumps({"type": "attempt", "attempt": 1})]
    data = "\n".join(text + [json.dumps(c, ensure_ascii=False) for c in chunks]).encode()
    (attempt,) = load_bytes(data).attempts
    assert attempt.chunks == [(c["t"], c["text"].encode()) for c in chunks]
    assert all(type(t) is float for t, _ in attempt.chunks)


def _running_max(plan_chunks: list[tuple[int, list[tuple[float, bytes]]]]) -> list[float]:
    """The times the plan stands for: each attempt starts at the clock, its steps at base + t,
    never going back in time."""
    out: list[float] = []
    last, base = None, 0.0
    for number, chunks in plan_chunks:
        clock = out[-1] if out else 0.0
        if number != last:
            base, last = clock, number
        out += list(accumulate([base + t for t, _ in chunks], max, initial=clock))[1:]
    return out


def test_plan_times_are_the_running_maximum_of_base_plus_recorded_time() -> None:
    shapes = ["ordered", "shuffled", "negative", "nan", "inf", "ints"]
    for seed in range(300):
        rng = random.Random(seed)
        plan, added = Plan(), []
        number = 1
        for _ in range(rng.randrange(1, 6)):
            number += rng.random() < 0.5
            shape = rng.choice(shapes)
            t0 = rng.uniform(-1, 2)
            ts: list[Any] = sorted(rng.uniform(t0, t0 + 3) for _ in range(rng.randrange(1, 40)))
            if shape == "shuffled":
                rng.shuffle(ts)
            elif shape == "negative":
                ts = [t - 5 for t in ts]
            elif shape in ("nan", "inf"):
                ts[rng.randrange(len(ts))] = math.nan if shape == "nan" else -math.inf
            elif shape == "ints":
                ts = [int(t * 10) for t in ts]
            chunks = [(t, b"x") for t in ts]
            plan.add_chunks(number, chunks)
            added.append((number, chunks))
        expected = _running_max(added)
        assert isinstance(plan.times, array) and len(plan.times) == len(expected) == len(plan)
        assert [*map(repr, plan.times)] == [*map(repr, map(float, expected))], seed
        assert plan.pairs == [c for _, chunks in added for c in chunks]
