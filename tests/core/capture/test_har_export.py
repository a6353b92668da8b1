"""HAR 1.2 export: every export validates against the HAR 1.2 schema written from the spec
(tests/har/har-1.2.schema.json), keeps every body byte and every chunk's time (our own
import gives the capture back), and never holds a secret.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jsonschema
import orjson
import pytest
from conftest import REPO, TESTS, all_real_fixtures
from har import shapes

from inspector.core.capture import harexport
from inspector.core.capture.format import CaptureError
from inspector.core.capture.reader import load, load_bytes
from inspector.core.capture.records import Capture
from inspector.core.capture.writer import CaptureWriter
from inspector.core.replay.harsessions import read_sessions

SCHEMA = json.loads((TESTS / "har" / "har-1.2.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
SAMPLES = sorted((REPO / "resources" / "samples").glob("*.jsonl"))
CANARY = shapes.KEY


def exported(*captures: Capture) -> dict[str, Any]:
    """The HAR of ``captures``, checked against the spec: the schema, and each entry's time
    the sum of its timings (the spec's rule, which a schema cannot say)."""
    har = json.loads(harexport.dumps(harexport.to_har(captures)))
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in VALIDATOR.iter_errors(har)]
    assert not errors, errors[:5]
    for entry in har["log"]["entries"]:
        t = entry["timings"]
        assert entry["time"] == pytest.approx(t["send"] + t["wait"] + t["receive"])
    return har


def back(har: dict[str, Any]) -> list[Capture]:
    return [s.capture for s in read_sessions(orjson.dumps(har), "back.har").sessions]


def same(a: Capture, b: Capture) -> None:
    """``b`` is ``a`` again: header, kind, timing, and every attempt record and chunk."""
    assert (b.kind, b.timed, b.header) == (a.kind, a.timed, a.header)
    assert len(b.attempts) == len(a.attempts)
    for x, y in zip(a.attempts, b.attempts, strict=True):
        assert y.chunks == x.chunks  # every byte, every time
        assert (y.request, y.response, y.end, y.events) == (x.request, x.response, x.end, x.events)
        assert (y.reason, y.recovery_action, y.extra) == (x.reason, x.recovery_action, x.extra)
        assert (y.interrupted, y.expects_end) == (x.interrupted, x.expects_end)


def test_the_schema_is_a_valid_2020_12_schema_that_rejects_what_the_spec_forbids() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    har = exported(load(SAMPLES[0]))
    entry = har["log"]["entries"][0]
    for broken in (
        {**entry, "timings": {**entry["timings"], "wait": -1}},
        {**entry, "time": "fast"},
        {**entry, "cache": None},
        {**entry, "surprise": 1},  # not a spec field, and not _custom
        {k: v for k, v in entry.items() if k != "startedDateTime"},
        {**entry, "response": {**entry["response"], "redirectURL": None}},  # Charles writes it
    ):
        bad = {"log": {**har["log"], "entries": [broken]}}
        assert not VALIDATOR.is_valid(bad), broken.keys()


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.stem)
def test_every_sample_capture_round_trips_with_its_bytes_and_times(sample: Path) -> None:
    capture = load(sample)
    har = exported(capture)
    assert len(har["log"]["entries"]) == len(capture.attempts)
    assert all("_chunks" in e for e in har["log"]["entries"])
    (again,) = back(har)
    same(capture, again)


def test_every_real_raw_body_round_trips_untimed() -> None:
    raws = [load(p) for p in all_real_fixtures()]
    har = exported(*raws)
    assert not any("_chunks" in e for e in har["log"]["entries"])
    assert har["log"]["entries"][0]["request"]["url"] == harexport.NO_REQUEST_URL
    again = back(har)
    assert len(again) == len(raws)
    for raw, capture in zip(raws, again, strict=True):
        same(raw, capture)


def write_capture(path: Path, chunks: list[tuple[float, bytes]], *, end: bool = True) -> Capture:
    with CaptureWriter(path, meta={"dialect": "openai-chat", "model": "m"}) as w:
        w.request(1, "POST", "https://api.example/v1/chat/completions", {}, b"\xff\xfe body")
        w.response(1, 200, {"content-type": "text/event-stream"}, 0.01)
        for t, data in chunks:
            w.chunk(1, t, data)
        w.event(1, 0.5, "tool_result", {"call": "c1", "text": "sunny"})
        w.attempt(2, "stream_invalid_tool_call", "retry_streaming", note="x")
        w.request(2, "POST", "https://api.example/v1/chat/completions", {}, {"a": 1})
        if end:
            w.end(2, 0.9, "eof")
    return load(path)


def test_bytes_that_are_not_utf8_are_base64_and_come_back_exactly(tmp_path: Path) -> None:
    chunks = [(0.1, b'data: {"a": "\xc3'), (0.25, b'\xa9"}\n\n'), (0.3, b"data: \xff\n\n")]
    capture = write_capture(tmp_path / "c.jsonl", chunks)
    har = exported(capture)
    first = har["log"]["entries"][0]
    assert first["response"]["content"]["encoding"] == "base64"
    assert first["request"]["postData"]["_encoding"] == "base64"
    assert first["_chunks"] == [{"t": t, "size": len(data)} for t, data in chunks]
    (again,) = back(har)
    same(capture, again)
    assert again.attempts[0].body == b"".join(c for _, c in chunks)


def test_an_interrupted_capture_stays_interrupted(tmp_path: Path) -> None:
    capture = write_capture(tmp_path / "c.jsonl", [(0.1, b"data: {}\n\n")], end=False)
    assert capture.attempts[-1].interrupted
    (again,) = back(exported(capture))
    same(capture, again)


def test_another_tools_chunks_field_is_ignored_and_a_broken_one_of_ours_too() -> None:
    har = exported(load(SAMPLES[0]))
    entries = har["log"]["entries"]
    entries[0]["_chunks"][0]["size"] += 1  # no longer adds up to the body
    capture = back(har)[0]
    assert not capture.timed  # read whole, untimed: never cut at wrong places
    har["log"]["creator"]["name"] = "WebInspector"  # the spec: only the writer reads its fields
    for capture in back(har):
        assert not capture.timed and len(capture.attempts) == 1


def hand_made(tmp_path: Path) -> Path:
    """A capture not written by our writer (hand-edited, another tool's): secrets in clear."""
    meta = {"url": f"https://api.example/v1?key={CANARY}", "note": f"Bearer {CANARY}"}
    header = {"format": "toolcall-inspector-capture", "version": 1, "meta": meta}
    request = {"type": "request", "attempt": 1, "t": 0, "method": "POST",
               "url": f"https://me:{CANARY}@api.example/v1/chat/completions?api_key={CANARY}",
               "headers": {"Authorization": f"Bearer {CANARY}", "X-Api-Key": CANARY,
                           "X-Trace": f"id=7; token {CANARY}", "Cookie": f"s={CANARY}"},
               "body": {"model": "m", "user": CANARY, "stream": True}}  # fmt: skip
    lines = [header, request,
             {"type": "response", "attempt": 1, "t": 0.1, "status": 200,
              "headers": {"set-cookie": f"s={CANARY}", "x-echo": CANARY}},
             {"type": "chunk", "attempt": 1, "t": 0.2, "text": "data: {\"choices\": []}\n\n"},
             {"type": "end", "attempt": 1, "t": 0.3, "reason": "error",
              "error": f"server said: bad key {CANARY}"}]  # fmt: skip
    path = tmp_path / "hand.jsonl"
    path.write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    return path


def test_a_canary_key_in_headers_url_body_meta_or_errors_is_never_exported(
    tmp_path: Path,
) -> None:
    capture = load(hand_made(tmp_path))
    text = harexport.dumps(harexport.to_har([capture]))
    assert CANARY.encode() not in text
    assert b"REDACTED" in text and b'data: {\\"choices\\": []}' in text  # the body stays


def test_written_whole_or_not_at_all(tmp_path: Path) -> None:
    har = harexport.to_har([load(SAMPLES[0])], started=datetime(2025, 1, 1, tzinfo=UTC))
    out = tmp_path / "out.har"
    assert harexport.write(out, har) == out.stat().st_size
    assert load_bytes(out.read_bytes()).kind == "raw-sse"  # a HAR is no capture, but readable
    assert not (tmp_path / "out.har.part").exists()
    with pytest.raises(CaptureError) as err:
        harexport.write(tmp_path / "missing" / "out.har", har)
    assert "cannot write" in str(err.value) and "\n" not in str(err.value)
