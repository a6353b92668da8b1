"""Capture files: round trip, secrets, crash safety, raw SSE bodies, versions and migration."""

from __future__ import annotations

import base64
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import REPO, all_real_fixtures
from hypothesis import given, settings
from hypothesis import strategies as st

import inspector
from inspector.core.base.errors import InspectorError
from inspector.core.capture import compat
from inspector.core.capture import reader as capture_mod
from inspector.core.capture.format import CaptureError
from inspector.core.capture.reader import load, load_bytes
from inspector.core.capture.records import Capture
from inspector.core.capture.redaction import redact_headers, redact_url
from inspector.core.capture.writer import CaptureWriter

AUTH_SECRET = "sk-live-7Hq2Zx9Wm4KpR8"
URL_SECRET = "AIzaSyD9tSrke72PouQMnMX"
COOKIE_SECRET = "Zq81Yv0cTg5Ue"
SET_COOKIE_SECRET = "Rt5Xn3LpWq7Fs"
GOOG_SECRET = "Gk4Vb8Nm2Qw6Ej"
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]

# Attempt 1: one chunk splits "é" (C3 A9) between its two bytes, one is not UTF-8 at all.
CHUNKS_1 = [
    (0.125, b'data: {"delta":"caf\xc3'),
    (0.25, b'\xa9"}\n\n'),
    (0.5, b"data: \xff\xfe not utf-8\n\n"),
    (0.75, 'data: {"delta":"naïve ✓ 🛠"}\n\n'.encode()),
]
CHUNKS_2 = [(0.0625, b"data: [DONE]\n\n"), (0.1, b"")]


def _jsonl(*records: Any, newline: bool = True) -> bytes:
    return b"\n".join(orjson.dumps(r) for r in records) + (b"\n" if newline else b"")


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def write_sample(path: Path) -> None:
    """A two-attempt capture exercising every record type."""
    with CaptureWriter(path, meta={"dialect": "openai-chat", "scenario": "retry"}) as w:
        w.request(
            1,
            "POST",
            f"https://api.example.com/v1/chat?key={URL_SECRET}&alt=sse",
            {
                "Authorization": f"Bearer {AUTH_SECRET}",
                "Content-Type": "application/json",
                "Cookie": f"session={COOKIE_SECRET}",
                "x-goog-api-key": GOOG_SECRET,
            },
            {"model": "m", "stream": True, "tools": TOOLS},
        )
        w.response(
            1,
            200,
            [("content-type", "text/event-stream"), ("Set-Cookie", f"sid={SET_COOKIE_SECRET}")],
            t=0.0625,
        )
        for t, data in CHUNKS_1:
            w.chunk(1, t, data)
        w.end(1, 0.8, "error", "invalid tool call")
        w.attempt(2, "stream_invalid_tool_call", "retry_streaming", delay_s=0.5)
        w.request(2, "POST", "https://api.example.com/v1/chat", {}, b'{"model": "m"}', t=0.0)
        w.response(2, 200, {}, t=0.03)
        for t, data in CHUNKS_2:
            w.chunk(2, t, data)
        w.event(2, 0.2, "tool_result", {"id": "call_1", "output": [1, "two", None]})
        w.end(2, 0.3, "eof")


def test_round_trip_two_attempts(tmp_path: Path) -> None:
    path = tmp_path / "capture.jsonl"
    write_sample(path)
    cap = load(path)

    assert (cap.kind, cap.path, cap.timed, cap.warnings, cap.unknown) == (
        "capture",
        str(path),
        True,
        [],
        [],
    )
    assert cap.header["format"] == "toolcall-inspector-capture"
    assert cap.header["version"] == compat.CURRENT_VERSION == 2
    assert cap.header["tool"] == "toolcall-inspector"
    assert cap.header["tool_version"] == inspector.__version__
    assert datetime.fromisoformat(cap.header["created"]).utcoffset() is not None
    assert cap.meta == {"dialect": "openai-chat", "scenario": "retry"}
    assert cap.tools == TOOLS
    assert cap.request_body == {"model": "m", "stream": True, "tools": TOOLS}

    one, two = cap.attempts
    assert one.number == 1 and two.number == 2
    assert one.chunks == CHUNKS_1  # bytes identical chunk by chunk, times preserved exactly
    assert two.chunks == CHUNKS_2
    assert one.body == b"".join(d for _, d in CHUNKS_1)
    assert one.request is not None and one.request["method"] == "POST"
    assert one.request["url"] == "https://api.example.com/v1/chat?key=REDACTED&alt=sse"
    assert one.request["headers"]["Authorization"] == "REDACTED"
    assert one.request["headers"]["Content-Type"] == "application/json"
    assert (one.status, two.status) == (200, 200)
    assert one.response is not None and one.response["t"] == 0.0625
    assert one.response["headers"] == {
        "content-type": "text/event-stream",
        "Set-Cookie": "REDACTED",
    }
    assert (one.reason, one.recovery_action, one.extra) == (None, None, {})
    assert (two.reason, two.recovery_action) == ("stream_invalid_tool_call", "retry_streaming")
    assert two.extra == {"delay_s": 0.5}
    assert two.request is not None and two.request["body"] == {"model": "m"}
    assert one.end is not None and (one.end["reason"], one.end["error"]) == (
        "error",
        "invalid tool call",
    )
    assert two.end is not None and (two.end["t"], two.end["error"]) == (0.3, None)
    assert one.complete and two.complete
    assert two.events == [
        {
            "type": "event",
            "attempt": 2,
            "t": 0.2,
            "kind": "tool_result",
            "data": {"id": "call_1", "output": [1, "two", None]},
        }
    ]


def test_chunk_storage_text_when_utf8_else_b64(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    write_sample(path)
    chunks = [orjson.loads(x) for x in _lines(path) if b'"type":"chunk"' in x]
    stored = [("text" if "text" in c else "b64") for c in chunks]
    assert stored == ["b64", "b64", "b64", "text", "text", "text"]
    assert chunks[3]["text"] == 'data: {"delta":"naïve ✓ 🛠"}\n\n'
    assert base64.b64decode(chunks[0]["b64"]) == CHUNKS_1[0][1]


def test_secrets_never_reach_the_file(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    write_sample(path)
    text = path.read_bytes().decode("utf-8")
    for secret in (AUTH_SECRET, URL_SECRET, COOKIE_SECRET, SET_COOKIE_SECRET, GOOG_SECRET):
        # Not the value, and no part of it either (no "sk-…" hints).
        windows = {secret[i : i + 5] for i in range(len(secret) - 4)}
        assert not [w for w in windows if w in text], secret
    assert text.count("REDACTED") == 5


def test_redact_headers() -> None:
    headers = [
        ("Authorization", "Bearer sk-abc"),
        ("proxy-authorization", "Basic x"),
        ("X-API-Key", "k1"),
        ("api-key", "k2"),
        ("x-goog-api-key", "k3"),
        ("Cookie", "a=b"),
        ("set-cookie", "c=d"),
        ("set-cookie", "e=f"),
        ("X-Amz-Security-Token", "tok"),
        ("X-Client-Secret", "s"),
        ("Accept", "text/event-stream"),
        ("accept", "*/*"),
        ("x-ratelimit-remaining-tokens", "9000"),
        ("Content-Type", "application/json"),
    ]
    assert redact_headers(headers) == {
        "Authorization": "REDACTED",
        "proxy-authorization": "REDACTED",
        "X-API-Key": "REDACTED",
        "api-key": "REDACTED",
        "x-goog-api-key": "REDACTED",
        "Cookie": "REDACTED",
        "set-cookie": "REDACTED",
        "X-Amz-Security-Token": "REDACTED",
        "X-Client-Secret": "REDACTED",
        "Accept": "text/event-stream, */*",
        "x-ratelimit-remaining-tokens": "9000",
        "Content-Type": "application/json",
    }
    assert redact_headers({b"Authorization": b"x", b"Host": b"h"}) == {
        "Authorization": "REDACTED",
        "Host": "h",
    }


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (
            "https://h/v1/models/g:stream?alt=sse&key=AIza123",
            "https://h/v1/models/g:stream?alt=sse&key=REDACTED",
        ),
        (
            "https://h/p?api_key=a&API-KEY=b&token=c&access_token=d&keep=1",
            "https://h/p?api_key=REDACTED&API-KEY=REDACTED&token=REDACTED&access_token=REDACTED&keep=1",
        ),
        ("https://user:pw@h/p", "https://REDACTED@h/p"),
        ("https://h/p?x=%20y&page=1#frag", "https://h/p?x=%20y&page=1#frag"),
        # the rule is "the name contains a secret word": it errs on the side of redacting
        ("https://h/p?keyboard=1", "https://h/p?keyboard=REDACTED"),
        ("https://h/cb#access_token=zzz", "https://h/cb#access_token=REDACTED"),
    ],
)
def test_redact_url(url: str, expected: str) -> None:
    assert redact_url(url) == expected


def test_readable_after_every_write_without_close(tmp_path: Path) -> None:
    path = tmp_path / "live.jsonl"
    w = CaptureWriter(path)
    try:
        expected: list[tuple[float, bytes]] = []

        def check() -> Capture:
            with open(path, "rb") as other:  # another handle, while the writer is open
                raw = other.read()
            assert raw.endswith(b"\n")
            cap = load(path)
            assert cap.warnings == []
            assert (cap.attempts[0].chunks if cap.attempts else []) == expected
            return cap

        assert check().kind == "capture"
        w.request(1, "POST", "https://h", {}, {"tools": TOOLS})
        assert check().tools == TOOLS
        w.response(1, 200, {}, 0.01)
        assert check().attempts[0].status == 200
        for i, data in enumerate([b"data: 1\n\n", b"\xf0\x9f", b"\x9b\xa0", b"data: 2\n\n"]):
            w.chunk(1, i / 10, data)
            expected.append((i / 10, data))
            check()
        w.event(1, 0.5, "note", "x")
        assert check().attempts[0].events[0]["data"] == "x"
        w.end(1, 0.6, "cancelled")
        assert check().attempts[0].complete
    finally:
        w.close()
    assert w.closed
    w.close()  # idempotent


def test_cut_off_last_line_loads_with_warning(tmp_path: Path) -> None:
    path = tmp_path / "cut.jsonl"
    write_sample(path)
    lines = _lines(path)
    # Keep up to the third chunk of attempt 1, then half of the fourth chunk's line.
    fourth = next(i for i, x in enumerate(lines) if "naïve".encode() in x)
    path.write_bytes(b"".join(lines[:fourth]) + lines[fourth][: len(lines[fourth]) // 2])
    cap = load(path)
    assert cap.warnings == [f"line {fourth + 1} is cut off (the capture was interrupted); ignored"]
    assert cap.attempts[0].chunks == CHUNKS_1[:3]
    assert not cap.attempts[0].complete and len(cap.attempts) == 1


_CHILD = textwrap.dedent(
    """
    import sys, time
    from inspector.core.capture.writer import CaptureWriter

    def payload(i):
        return (b"data: %d\\n\\n" % i) + (b"\\xff" if i % 3 == 0 else b"") + b"x" * (i * 37 % 5000)

    w = CaptureWriter(sys.argv[1])
    w.request(1, "POST", "https://h", {}, {"stream": True})
    n = int(sys.argv[2])
    i = 0
    while True:
        w.chunk(1, i / 1000, payload(i))
        i += 1
        if i == n:
            print("written", flush=True)
            if sys.argv[3] == "stop":
                time.sleep(120)
    """
)


def _payload(i: int) -> bytes:
    return (b"data: %d\n\n" % i) + (b"\xff" if i % 3 == 0 else b"") + b"x" * (i * 37 % 5000)


def _run_and_kill(path: Path, n: int, mode: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(path), str(n), mode],
        stdout=subprocess.PIPE,
        env=env,
        cwd=REPO,
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == b"written\n"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        if proc.stdout is not None:
            proc.stdout.close()
    assert proc.returncode == -signal.SIGKILL


def test_sigkill_keeps_every_chunk_written(tmp_path: Path) -> None:
    path = tmp_path / "killed.jsonl"
    _run_and_kill(path, 25, "stop")
    cap = load(path)
    assert cap.warnings == []
    assert cap.attempts[0].chunks == [(i / 1000, _payload(i)) for i in range(25)]
    assert not cap.attempts[0].complete


def test_sigkill_while_writing_leaves_a_loadable_prefix(tmp_path: Path) -> None:
    path = tmp_path / "killed.jsonl"
    _run_and_kill(path, 200, "run")
    cap = load(path)
    chunks = cap.attempts[0].chunks
    assert len(chunks) >= 200
    assert chunks == [(i / 1000, _payload(i)) for i in range(len(chunks))]
    assert all("cut off" in w for w in cap.warnings) and len(cap.warnings) <= 1


def test_corrupt_middle_line_is_an_error_with_line_and_offset(tmp_path: Path) -> None:
    path = tmp_path / "capture.jsonl"
    write_sample(path)
    lines = _lines(path)
    lines[4] = b'{"type": "chunk", "attempt": 1, "t": 0.2, "te\n'
    path.write_bytes(b"".join(lines))
    with pytest.raises(CaptureError) as info:
        load(path)
    err = info.value
    assert isinstance(err, InspectorError)
    assert (err.path, err.line, err.offset) == (str(path), 5, sum(map(len, lines[:4])))
    assert str(err).startswith(f"{path}: line 5: corrupt record")
    assert "\n" not in str(err)


@pytest.mark.parametrize(
    ("record", "reason"),
    [
        ({"type": "chunk", "attempt": 1, "t": 0.1}, "chunk record has neither 'text' nor 'b64'"),
        ({"type": "chunk", "attempt": 1, "text": "x"}, "chunk record has no 't'"),
        (
            {"type": "chunk", "attempt": 1, "t": 1, "b64": "!!"},
            "chunk record has a 'b64' that is not valid base64",
        ),
        ({"type": "request", "attempt": 1, "method": "POST"}, "request record has no 'url'"),
        ({"type": "end", "t": 1.0, "reason": "eof"}, "end record has no 'attempt'"),
        (
            {"type": "response", "attempt": 0, "status": 200},
            "response record has an invalid 'attempt' 0",
        ),
        ({"attempt": 1}, "record has no 'type'"),
        ([1, 2], "record is not a JSON object"),
    ],
)
def test_invalid_record_names_line_and_key(tmp_path: Path, record: Any, reason: str) -> None:
    path = tmp_path / "capture.jsonl"
    with CaptureWriter(path) as w:
        w.request(1, "GET", "https://h", {}, None)
    with open(path, "ab") as f:
        f.write(orjson.dumps(record) + b"\n")
        f.write(b'{"type": "end", "attempt": 1, "t": 1.0, "reason": "eof"}\n')
    with pytest.raises(CaptureError) as info:
        load(path)
    assert str(info.value) == f"{path}: line 3: {reason}"
    assert info.value.line == 3


def test_chunk_before_request_and_gaps_are_fine() -> None:
    data = _jsonl(
        {"format": "toolcall-inspector-capture", "version": 1},
        {"type": "chunk", "attempt": 3, "t": 0.5, "text": "late"},
        {"type": "chunk", "attempt": 1, "t": 0.1, "text": "a"},
        {"type": "request", "attempt": 1, "t": 0, "method": "POST", "url": "u", "body": "raw"},
    )
    cap = load_bytes(data)
    assert [a.number for a in cap.attempts] == [1, 3]
    assert cap.attempts[1].chunks == [(0.5, b"late")] and cap.attempts[1].request is None
    assert cap.request_body == "raw" and cap.tools is None and cap.path is None


def test_unknown_record_type_is_kept_with_a_warning() -> None:
    future = {"type": "tls_info", "attempt": 1, "cipher": "x"}
    data = _jsonl(
        {"format": "toolcall-inspector-capture", "version": 1},
        {"type": "chunk", "attempt": 1, "t": 0.1, "text": "a"},
        future,
        {"type": "tls_info"},
        {"type": "chunk", "attempt": 1, "t": 0.2, "text": "b"},
        newline=False,
    )
    cap = load_bytes(data, "f.jsonl")
    assert cap.unknown == [future, {"type": "tls_info"}]
    assert cap.warnings == [
        "line 3: unknown record type 'tls_info' (from a newer version?); ignored"
    ]
    assert cap.attempts[0].body == b"ab"


def test_request_bodies_that_are_not_json(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    with CaptureWriter(path) as w:
        w.request(1, "POST", "u", {}, "not json {")
        w.request(2, "POST", "u", {}, b"\xff\xfe")
        w.request(3, "POST", "u", {}, '{"tools": []}')
    one, two, three = load(path).attempts
    assert one.request is not None and one.request["body"] == "not json {"
    assert two.request is not None and base64.b64decode(two.request["body_b64"]) == b"\xff\xfe"
    assert three.request is not None and three.request["body"] == {"tools": []}


# ------------------------------------------------------------------------- raw SSE bodies


def test_every_real_fixture_loads_as_raw_sse() -> None:
    fixtures = all_real_fixtures()
    assert len(fixtures) >= 10
    for path in fixtures:
        cap = load(path)
        raw = path.read_bytes()
        assert (cap.kind, cap.timed, cap.path, cap.header) == ("raw-sse", False, str(path), {})
        (attempt,) = cap.attempts
        assert attempt.chunks == [(0.0, raw)] and attempt.body == raw
        assert attempt.request is None and cap.request_body is None and cap.warnings == []


@pytest.mark.parametrize(
    "body",
    [
        b'\xef\xbb\xbfdata: {"a":1}\n\n',
        b"\n\n: keep-alive\r\n\r\nevent: x\r\ndata: [DONE]\r\n\r\n",
        b'{"error": {"message": "bad key"}}',  # a JSON error body without "format"
        b"\n \n",
        b"data: \xff cut",
    ],
)
def test_raw_bodies_are_kept_byte_for_byte(body: bytes) -> None:
    cap = load_bytes(body)
    assert cap.kind == "raw-sse" and cap.attempts[0].chunks == [(0.0, body)]


# ------------------------------------------------------------------------- errors opening


def test_open_errors_are_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "empty.jsonl").write_bytes(b"")
    cases = {
        tmp_path / "empty.jsonl": "empty file",
        tmp_path: "is a directory, not a capture",
        tmp_path / "missing.jsonl": "no such file",
    }
    for path, reason in cases.items():
        with pytest.raises(CaptureError) as info:
            load(path)
        assert str(info.value) == f"{path}: {reason}"

    def denied(*_: object, **__: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(capture_mod, "open", denied, raising=False)
    with pytest.raises(CaptureError, match=r"^x\.jsonl: permission denied$"):
        load("x.jsonl")


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_device_is_refused_before_it_is_read() -> None:
    """``analyze /dev/zero`` would read forever: a character or block device is refused with
    one line and exit 2 (in a subprocess, so a regression times out instead of hanging)."""
    cli = [sys.executable, "-m", "inspector", "analyze", "/dev/zero"]
    done = subprocess.run(cli, capture_output=True, text=True, timeout=60, cwd=REPO)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "toolcall-inspector: /dev/zero: not a regular file (a device)"
    ]
    with pytest.raises(CaptureError, match=r"^/dev/zero: not a regular file \(a device\)$"):
        load("/dev/zero")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_pipe_is_read_to_its_end(tmp_path: Path) -> None:
    """``analyze <(cat capture)`` reads a pipe: only devices are refused."""
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    body = b'data: {"choices": []}\n\ndata: [DONE]\n\n'
    writer = threading.Thread(target=fifo.write_bytes, args=(body,), daemon=True)
    writer.start()
    cap = load(fifo)
    writer.join(10)
    assert cap.kind == "raw-sse" and cap.attempts[0].body == body


def test_other_format_is_named() -> None:
    with pytest.raises(CaptureError) as info:
        load_bytes(b'{"format": "har", "version": 1}\n{}\n', "x.json")
    assert (
        str(info.value) == "x.json: line 1: unknown file format 'har' "
        "(expected 'toolcall-inspector-capture')"
    )


def test_cut_off_header_is_an_error_not_a_raw_body() -> None:
    with pytest.raises(CaptureError, match="header is cut off"):
        load_bytes(b'{"format":"toolcall-inspector-capture","vers', "c.jsonl")


def test_writer_cannot_create(tmp_path: Path) -> None:
    with pytest.raises(CaptureError, match="cannot create capture"):
        CaptureWriter(tmp_path / "no" / "such" / "dir.jsonl")


# ---------------------------------------------------------------------- versions, migration


def test_newer_version_is_refused_clearly() -> None:
    with pytest.raises(CaptureError) as info:
        load_bytes(b'{"format": "toolcall-inspector-capture", "version": 3}\n', "new.jsonl")
    assert str(info.value) == (
        "new.jsonl: line 1: capture version 3 is newer than this tool "
        "supports (2); upgrade toolcall-inspector"
    )


@pytest.mark.parametrize("version", [0, -1, "1", None])
def test_version_without_converter_path_is_refused(version: Any) -> None:
    data = orjson.dumps({"format": "toolcall-inspector-capture", "version": version})
    with pytest.raises(CaptureError) as info:
        load_bytes(data, "old.jsonl")
    message = str(info.value)
    if isinstance(version, int):
        assert message == (
            f"old.jsonl: line 1: capture version {version} is not supported: "
            "no migration from it to version 2"
        )
    else:
        invalid = f"capture header has no valid 'version' (got {version!r})"
        assert message == f"old.jsonl: line 1: {invalid}"


def test_migration_runs_through_load(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pretend version 0 stored chunks as {"type": "data", "n", "ts", "hex"}."""

    def convert_0_1(
        header: dict[str, Any], records: Iterator[dict[str, Any]]
    ) -> tuple[dict[str, Any], Iterator[dict[str, Any]]]:
        def convert(rec: dict[str, Any]) -> dict[str, Any]:
            if rec["type"] != "data":
                return rec
            data = bytes.fromhex(rec["hex"])
            return {
                "type": "chunk",
                "attempt": rec["n"],
                "t": rec["ts"],
                "b64": base64.b64encode(data).decode(),
            }

        header["version"] = 1
        header["migrated_from"] = 0
        return header, (convert(r) for r in records)

    monkeypatch.setitem(compat.CONVERTERS, 0, convert_0_1)
    data = _jsonl(
        {"format": "toolcall-inspector-capture", "version": 0},
        {"type": "data", "n": 1, "ts": 0.5, "hex": "c3a9ff"},
        {"type": "data", "n": 1, "ts": 0.75, "hex": ""},
        {"type": "end", "attempt": 1, "t": 1.0, "reason": "eof"},
    )
    cap = load_bytes(data, "v0.jsonl")
    assert cap.header == {"format": "toolcall-inspector-capture", "version": 2, "migrated_from": 0}
    assert cap.attempts[0].chunks == [(0.5, b"\xc3\xa9\xff"), (0.75, b"")]
    assert cap.attempts[0].complete
    # Errors found after migration still name the line of the record that caused them.
    monkeypatch.setitem(compat.CONVERTERS, 0, lambda h, r: ({**h, "version": 1}, r))
    with pytest.raises(CaptureError, match=r"^v0\.jsonl: line 2: chunk"):
        load_bytes(data.replace(b'"data"', b'"chunk"', 1), "v0.jsonl")


def test_migrate_applies_converters_step_by_step(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []

    def step(frm: int) -> compat.Converter:
        def convert(
            header: dict[str, Any], records: Iterator[dict[str, Any]]
        ) -> tuple[dict[str, Any], Iterator[dict[str, Any]]]:
            calls.append(frm)
            header["version"] = frm + 1
            header.setdefault("steps", []).append(frm)
            return header, ({**r, f"v{frm + 1}": True} for r in records)

        return convert

    monkeypatch.setattr(compat, "CURRENT_VERSION", 3)
    monkeypatch.setattr(compat, "CONVERTERS", {1: step(1), 2: step(2)})
    original = {"format": "toolcall-inspector-capture", "version": 1}
    header, records = compat.migrate(original, iter([{"type": "x"}]))
    assert calls == [1, 2] and header["steps"] == [1, 2] and header["version"] == 3
    assert list(records) == [{"type": "x", "v2": True, "v3": True}]
    assert original == {"format": "toolcall-inspector-capture", "version": 1}
    header, _ = compat.migrate({"version": 2}, iter([]))
    assert header == {"version": 3, "steps": [2]}

    monkeypatch.setattr(compat, "CONVERTERS", {1: lambda h, r: (h, r)})  # forgets to bump
    with pytest.raises(RuntimeError, match="from version 1 produced version 1"):
        compat.migrate({"version": 1}, iter([]))


def test_writer_writes_the_current_version(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    CaptureWriter(path).close()
    assert orjson.loads(_lines(path)[0])["version"] == compat.CURRENT_VERSION
    assert path.read_bytes().count(b"\n") == 1


# ------------------------------------------------------------------------------ hypothesis

_utf8_pieces = st.text(max_size=40).map(lambda s: s.encode("utf-8"))


@st.composite
def _chunk_lists(draw: st.DrawFn) -> list[tuple[float, bytes]]:
    """Arbitrary bytes plus valid UTF-8 split at arbitrary points (inside characters too)."""
    blob = b"".join(draw(st.lists(st.one_of(st.binary(max_size=40), _utf8_pieces), max_size=8)))
    cuts = sorted(draw(st.lists(st.integers(0, len(blob)), max_size=8)))
    pieces = [blob[a:b] for a, b in zip([0, *cuts], [*cuts, len(blob)], strict=True)]
    times = draw(
        st.lists(st.floats(0, 1e6, allow_nan=False), min_size=len(pieces), max_size=len(pieces))
    )
    return list(zip(times, pieces, strict=True))


@settings(max_examples=150, deadline=None)
@given(chunks=_chunk_lists(), attempt=st.integers(1, 5))
def test_arbitrary_chunks_round_trip_exactly(
    chunks: list[tuple[float, bytes]], attempt: int
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "h.jsonl"
        with CaptureWriter(path) as w:
            for t, data in chunks:
                w.chunk(attempt, t, data)
        cap = load(path)
    got = cap.attempts[0].chunks if cap.attempts else []
    assert got == chunks
    assert all(type(t) is float for t, _ in got)


def test_new_capture_paths_are_safe_names_and_never_an_existing_file(tmp_path: Path) -> None:
    from inspector.core.capture.writer import new_capture_path

    first = new_capture_path(
        tmp_path / "caps", "20261129-101010", "openrouter", "openai/gpt-4o-mini"
    )
    assert first.parent == tmp_path / "caps"  # the directory is made, no subfolder from "/"
    assert first.name == "20261129-101010-openrouter-openai_gpt-4o-mini.jsonl"
    first.write_bytes(b"an earlier session\n")
    second = new_capture_path(
        tmp_path / "caps", "20261129-101010", "openrouter", "openai/gpt-4o-mini"
    )  # the same second: a new name
    assert second.name.endswith("-2.jsonl") and second.exists()
    assert first.read_bytes() == b"an earlier session\n"  # nothing overwritten
    with CaptureWriter(second) as w:  # the writer takes the claimed, empty file
        w.chunk(1, 0.1, b"data: {}\n\n")
    assert load(second).attempts[0].body == b"data: {}\n\n"
    assert new_capture_path(tmp_path, "..", "a b").name == "_-a_b.jsonl"
