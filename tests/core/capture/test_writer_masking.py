"""Issue 25: the capture writer masks the session's key in response chunks (format version 2),
creates a capture atomically, and stops recording cleanly when the disk is full."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from inspector.core.capture.reader import load, load_bytes
from inspector.core.capture.writer import CaptureWriter, new_capture_path

KEY = "sk-proj-CANARYa1b2c3d4e5f6g7h8i9j0"
BODY = f'data: {{"choices":[{{"delta":{{"content":"echo {KEY}."}}}}]}}\n\n'.encode()


def _write(path: Path, chunks: list[bytes]) -> None:
    with CaptureWriter(path, meta={"model": "m"}, secrets=[KEY]) as w:
        w.request(1, "POST", "http://h/v1/chat/completions", {"Authorization": f"Bearer {KEY}"},
                  {"model": "m"})  # fmt: skip
        w.response(1, 200, {"x-debug-echo": f"caller={KEY}."}, 0.1)
        for i, chunk in enumerate(chunks):
            w.chunk(1, 0.2 + i / 100, chunk)
        w.end(1, 1.0, "error", f"Incorrect API key provided: {KEY}.")


@pytest.mark.parametrize("cuts", [[], [BODY.index(b"sk-") + 5], [BODY.index(b"sk-") + 3,
                                  BODY.index(b"sk-") + 9, BODY.index(b"sk-") + 20],
                                  [BODY.index(b"sk-") + 5, BODY.index(b"sk-") + 28]])  # fmt: skip
def test_the_key_is_masked_in_chunks_even_split_across_them(
    tmp_path: Path, cuts: list[int]
) -> None:
    chunks = [BODY[a:b] for a, b in zip([0, *cuts], [*cuts, len(BODY)], strict=True)]
    path = tmp_path / "c.jsonl"
    _write(path, chunks)
    raw = path.read_bytes()
    assert KEY.encode() not in raw and KEY[:12].encode() not in raw
    (attempt,) = load(path).attempts
    assert [len(c) for _, c in attempt.chunks] == [len(c) for c in chunks]  # framing kept
    start = BODY.index(KEY.encode())
    assert attempt.masked == [(start, start + len(KEY))]
    expected = BODY.replace(KEY.encode(), b"*" * len(KEY))
    assert attempt.body == expected
    json.loads(attempt.body.split(b"data: ")[1])  # the JSON stays valid
    header = json.loads(raw.splitlines()[0])
    assert header["version"] == 2


def test_a_version_1_capture_still_reads(tmp_path: Path) -> None:
    lines = [
        {"format": "toolcall-inspector-capture", "version": 1},
        {"type": "chunk", "attempt": 1, "t": 0.1, "text": "data: {}\n\n"},
        {"type": "end", "attempt": 1, "t": 0.2, "reason": "eof", "error": None},
    ]
    capture = load_bytes("".join(json.dumps(r) + "\n" for r in lines).encode(), "v1.jsonl")
    (attempt,) = capture.attempts
    assert attempt.body == b"data: {}\n\n" and attempt.masked == [] and attempt.complete


def test_a_bad_masked_field_is_a_warning_not_the_end(tmp_path: Path) -> None:
    lines = [
        {"format": "toolcall-inspector-capture", "version": 2},
        {"type": "chunk", "attempt": 1, "t": 0.1, "masked": [[5, 2]], "text": "data: {}\n\n"},
    ]
    capture = load_bytes("".join(json.dumps(r) + "\n" for r in lines).encode(), "v2.jsonl")
    assert capture.attempts[0].masked == [] and "masked" in capture.warnings[0]


def test_the_name_claimed_is_replaced_atomically_and_never_names_a_key(tmp_path: Path) -> None:
    path = new_capture_path(tmp_path, "20260101", "proxy", KEY, secrets=[KEY])
    assert path.name == "20260101-proxy-REDACTED.jsonl"
    claimed = load(path)  # never an empty file: a pending header, readable as a capture
    assert claimed.header["pending"] is True and claimed.attempts == []
    with CaptureWriter(path, secrets=[KEY]):
        header = json.loads(path.read_text().splitlines()[0])
        assert header["version"] == 2 and "pending" not in header
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left
    named = new_capture_path(tmp_path, "x", "sk-live-CANARYtenant0123456789")
    assert named.name == "x-REDACTED.jsonl"


_LIMITED = textwrap.dedent(
    """
    import resource, signal, sys
    from inspector.core.capture.writer import CaptureWriter, new_capture_path
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit: EFBIG, not a kill
    folder, limit = sys.argv[1], int(sys.argv[2])
    path = new_capture_path(folder, "full")
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    try:
        w = CaptureWriter(path, meta={"model": "m"})
    except Exception as exc:
        print("create:", exc)
        raise SystemExit(0)
    for i in range(200):
        w.chunk(1, i / 100, b"data: " + b"x" * 90 + b"\\n\\n")
    w.end(1, 3.0, "eof")
    print("failed:", w.failed)
    """
)


def _full_disk(folder: Path, limit: int) -> str:
    """Run the writer in a process whose files cannot grow past ``limit`` bytes (the kernel's
    RLIMIT_FSIZE: the write fails with EFBIG, as a full disk fails with ENOSPC)."""
    done = subprocess.run([sys.executable, "-c", _LIMITED, str(folder), str(limit)],
                          capture_output=True, text=True, check=True, timeout=60)  # fmt: skip
    return done.stdout.strip()


def test_a_disk_full_at_creation_leaves_no_file(tmp_path: Path) -> None:
    said = _full_disk(tmp_path, 0)
    assert said.startswith("create: ") and "cannot create capture" in said
    assert list(tmp_path.iterdir()) == []


def test_a_disk_filling_mid_stream_ends_the_recording_at_a_whole_record(tmp_path: Path) -> None:
    said = _full_disk(tmp_path, 4000)
    assert said.startswith("failed: cannot write the capture: ")
    (path,) = tmp_path.iterdir()
    data = path.read_bytes()
    assert 0 < len(data) <= 4000 and data.endswith(b"\n")  # cut back to its last whole line
    capture = load(path)
    assert capture.warnings == [] and capture.attempts[0].interrupted
    assert len(capture.attempts[0].chunks) > 10


def test_the_masked_ranges_survive_a_har_round_trip(tmp_path: Path) -> None:
    from inspector.core.capture import harexport
    from inspector.core.replay.harsessions import load_sessions

    path, har = tmp_path / "c.jsonl", tmp_path / "c.har"
    _write(path, [BODY])
    capture = load(path)
    harexport.write(har, harexport.to_har([capture]))
    (session,) = load_sessions(str(har)).sessions
    (attempt,) = session.capture.attempts
    assert attempt.masked == capture.attempts[0].masked != []
    assert attempt.body == capture.attempts[0].body and KEY not in har.read_text()


def test_many_threads_claim_one_name_at_once(tmp_path: Path) -> None:
    """The proxy claims names from worker threads: 50 sessions of one model in one second."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(16) as pool:
        paths = list(pool.map(lambda _: new_capture_path(tmp_path, "t", "m"), range(50)))
    assert len(set(paths)) == 50
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in paths)
