"""The reader's two paths over a capture's lines (core.capture.reader): a file at the current
version is read by the line loop with its chunk fast path; a migrated one goes through the
converters' record stream, record by record. Both give the same Capture, warnings and
one-line errors, on every recorded capture and on hand-made odd lines."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import TESTS, all_real_fixtures

from inspector.core.capture import compat
from inspector.core.capture.format import CaptureError
from inspector.core.capture.reader import CaptureReader, load_bytes
from inspector.core.capture.records import Capture

CORPUS = TESTS / "clients" / "corpus"
HEADER = {"format": "toolcall-inspector-capture", "version": 1}


@pytest.fixture
def from_version_0(monkeypatch: pytest.MonkeyPatch) -> None:
    """A converter from a (made-up) version 0 that changes nothing but the version."""

    def convert(header: dict[str, Any], records: Iterator[dict[str, Any]]) -> Any:
        return {**header, "version": 1}, (r for r in records)

    monkeypatch.setitem(compat.CONVERTERS, 0, convert)


def _both(data: bytes) -> tuple[Capture | str, Capture | str]:
    """(read at the current version, read migrated from version 0): a capture or an error."""
    migrated = data
    for version in (b'"version":2', b'"version":1'):  # the current one, or the one before
        if version in data:
            migrated = data.replace(version, b'"version":0', 1)
            break
    assert migrated != data or not data.lstrip(b"\xef\xbb\xbf").startswith(b"{")
    out: list[Capture | str] = []
    for d in (data, migrated):
        try:
            out.append(load_bytes(d, "x.jsonl"))
        except CaptureError as exc:
            out.append(f"{exc} @{exc.line}:{exc.offset}")
    return out[0], out[1]


def _capture(*lines: Any, tail: bytes = b"\n") -> bytes:
    text = [json.dumps(HEADER, separators=(",", ":"))]
    text += [x if isinstance(x, str) else json.dumps(x, separators=(",", ":")) for x in lines]
    return "\n".join(text).encode() + tail


CHUNK = {"type": "chunk", "attempt": 1, "t": 0.5, "text": "data: {}\n\n"}
ODD = {
    "plain": [CHUNK, CHUNK],
    "blank lines": [CHUNK, "", "   ", "\t", CHUNK],
    "int t": [{**CHUNK, "t": 1}, CHUNK],
    "b64": [{"type": "chunk", "attempt": 1, "t": 0.1, "b64": "/w=="}, CHUNK],
    "extra key": [{**CHUNK, "x": 1}, CHUNK],
    "attempt record later": [CHUNK, {"type": "attempt", "attempt": 1, "reason": "r"}, CHUNK],
    "second attempt": [CHUNK, {**CHUNK, "attempt": 2}, CHUNK, {**CHUNK, "attempt": 2}],
    "big attempt number": [{**CHUNK, "attempt": 2**70}],
    "attempt 0": [CHUNK, {**CHUNK, "attempt": 0}],
    "attempt true": [CHUNK, {**CHUNK, "attempt": True}],
    "attempt float": [CHUNK, {**CHUNK, "attempt": 1.0}],
    "t string": [CHUNK, {**CHUNK, "t": "0.5"}],
    "text and b64": [CHUNK, {"type": "chunk", "attempt": 1, "t": 0.1, "text": "", "b64": ""}],
    "text not str": [CHUNK, {**CHUNK, "text": 5}],
    "no type": [CHUNK, {"attempt": 1, "t": 0.1, "text": "a", "x": 2}],
    "type not chunk": [CHUNK, {"type": "chunky", "attempt": 1, "t": 0.1, "text": "a"}],
    "array": [CHUNK, "[1, 2]"],
    "number": [CHUNK, "7"],
    "corrupt middle": [CHUNK, '{"type": "chunk", "attempt"', CHUNK],
    "end and request": [
        {"type": "request", "attempt": 1, "t": 0, "method": "POST", "url": "u", "body": "x"},
        CHUNK,
        {"type": "end", "attempt": 1, "t": 1, "reason": "done"},
        {"type": "end", "attempt": 1, "t": 1, "reason": "again"},
    ],
}


@pytest.mark.usefixtures("from_version_0")
@pytest.mark.parametrize("name", sorted(ODD))
def test_odd_lines_read_the_same_on_both_paths(name: str) -> None:
    for tail in (b"\n", b"", b"\r\n", b"\n\n  \n"):
        data = _capture(*ODD[name], tail=tail)
        for d in (data, data.replace(b"\n", b"\r\n"), b"\xef\xbb\xbf" + data):
            current, migrated = _both(d)
            assert current == migrated, (name, d)
    assert isinstance(_both(_capture(*ODD["corrupt middle"]))[0], str)
    assert "line 3" in str(_both(_capture(*ODD["corrupt middle"]))[0])


@pytest.mark.usefixtures("from_version_0")
def test_a_cut_off_last_line_is_warned_about_on_both_paths() -> None:
    data = _capture(CHUNK, CHUNK, tail=b'\n{"type": "chunk", "att')
    current, migrated = _both(data)
    assert isinstance(current, Capture) and current == migrated
    assert current.warnings == ["line 4 is cut off (the capture was interrupted); ignored"]
    assert len(current.attempts[0].chunks) == 2


@pytest.mark.usefixtures("from_version_0")
def test_every_recorded_capture_reads_the_same_on_both_paths() -> None:
    paths = sorted(CORPUS.glob("*/*.jsonl"))
    assert len(paths) > 50
    for path in [*paths, *all_real_fixtures()]:
        current, migrated = _both(path.read_bytes())
        assert isinstance(current, Capture) and current == migrated, path


def test_reading_a_slice_at_a_time_gives_the_same_capture() -> None:
    path = sorted(CORPUS.glob("openai-chat/*.jsonl"))[0]
    data = path.read_bytes()
    whole = load_bytes(data)
    for size in (1, 2, 7):
        reader = CaptureReader(data, "x")
        offsets = [reader.offset]
        while not reader.done:
            assert reader.read(size) <= size
            offsets.append(reader.offset)
        assert reader.capture == whole
        assert offsets == sorted(offsets) and offsets[-1] == len(data)


@pytest.mark.usefixtures("from_version_0")
def test_a_reader_lets_the_file_go_once_it_is_read() -> None:
    for version in (b'"version":1', b'"version":0'):
        data = _capture(CHUNK, CHUNK, {**CHUNK, "attempt": 2}).replace(b'"version":1', version)
        before = sys.getrefcount(data)
        reader = CaptureReader(data, "x")
        reader.read(1)
        assert sys.getrefcount(data) > before  # still reading
        reader.read_all()
        assert sys.getrefcount(data) == before
        assert [len(a.chunks) for a in reader.capture.attempts] == [2, 1]
