"""Reading ahead in another process (core.capture.ahead and .readahead): a capture read with its
lines past a boundary taken from a read-ahead process's messages is the very Capture (or the
very one-line error, line and offset) the reader gives on its own, for random captures with odd
lines, several attempts, events and cut-off endings; a file that changes is refused, before
anything is taken (read here instead) or after (an error); the real process reads, ends and is
killed as it should; and the window opening a large capture uses it."""

from __future__ import annotations

import os
import random
import time
from pathlib import Path
from typing import Any

import pytest

from core.capture.test_batch_reading import _random_capture, _read
from inspector.core.capture import ahead, readahead
from inspector.core.capture.format import CaptureError
from inspector.core.capture.readahead import ProcessAhead, ReadAheadStarter, file_stamp
from inspector.core.capture.reader import CaptureReader
from inspector.core.capture.records import Capture


class Here:
    """The read-ahead process's work done here, its messages handed out in order, ``stall``
    empty gets before each (a process still starting or busy)."""

    def __init__(self, path: str, start: int, stop: int, stall: int = 0, **kw: Any) -> None:
        self.messages: list[ahead.Message] = []
        stamp = kw.get("stamp") or file_stamp(path)
        ahead.read_ahead(path, start, stop, stamp, self.messages.append)
        self.stall, self.waits, self.closed = stall, 0, False

    def get(self, timeout: float) -> ahead.Message | None:
        assert not self.closed
        if self.waits < self.stall:
            self.waits += 1
            return None
        self.waits = 0
        return self.messages.pop(0)

    def close(self) -> None:
        self.closed = True


def read_with(
    data: bytes, path: str, past: int, rng: random.Random, **kw: Any
) -> tuple[Capture | str, bool]:
    """The capture (or error) read with a read-ahead from ``past`` bytes on; and whether one
    was started."""
    try:
        reader = CaptureReader(data, "x.jsonl")
        started = reader.read_ahead(lambda start, stop: Here(path, start, stop, **kw), past)
        while not reader.done:
            reader.read(rng.choice([1, 2, 7, 100, 513, 5000]))
        return reader.capture, started
    except CaptureError as exc:
        return f"{exc} @{exc.line}:{exc.offset}", True


@pytest.fixture
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ahead, "BATCH_BYTES", 300)


def test_random_captures_read_ahead_are_the_captures_read_here(
    tmp_path: Path, small_batches: None
) -> None:
    rng = random.Random(20261202)
    path = tmp_path / "x.jsonl"
    started = errors = 0
    for _ in range(250):
        data = _random_capture(rng)
        path.write_bytes(data)
        want = _read(data)
        got, ran = read_with(data, str(path), rng.randrange(0, len(data) + 10), rng, stall=1)
        assert got == want
        started += ran
        errors += isinstance(want, str)
    assert started >= 150 and errors >= 10  # both outcomes, read ahead, many times


def test_a_batch_of_an_attempt_not_opened_yet_opens_it_or_names_the_bad_number(
    tmp_path: Path, small_batches: None
) -> None:
    rng = random.Random(1)
    head = '{"format":"toolcall-inspector-capture","version":1}\n'
    for number in (2, 0):
        lines = [f'{{"type":"chunk","attempt":{number},"t":0.5,"text":"data: x{i}\\n\\n"}}\n'
                 for i in range(40)]  # fmt: skip
        data = (head + "".join(lines)).encode()
        path = tmp_path / f"n{number}.jsonl"
        path.write_bytes(data)
        got, ran = read_with(data, str(path), 10, rng)
        assert ran and got == _read(data)
    assert "invalid 'attempt' 0 @2:" in str(got)


def test_a_file_changed_before_anything_was_taken_is_read_here(tmp_path: Path) -> None:
    rng = random.Random(2)
    data = _random_capture(random.Random(3))
    path = tmp_path / "x.jsonl"
    path.write_bytes(data)
    stale = (len(data), 1, 1)  # not the file's stamp: the process refuses it at once
    got, ran = read_with(data, str(path), 0, rng, stamp=stale)
    assert ran and got == _read(data)


def test_a_file_changed_after_a_batch_was_taken_fails_the_load(tmp_path: Path) -> None:
    data = _random_capture(random.Random(4))
    while data.count(b"\n") < 100:
        data = _random_capture(random.Random(len(data)))
    path = tmp_path / "x.jsonl"
    path.write_bytes(data)
    reader = CaptureReader(data, "x.jsonl")
    here: list[Here] = []

    def start(offset: int, stop: int) -> Here:
        here.append(Here(str(path), offset, stop))
        here[0].messages[1:] = [("failed", "the file changed while it was read")]
        return here[0]

    assert reader.read_ahead(start, 0)
    with pytest.raises(CaptureError, match="the file changed while it was read; open it"):
        while not reader.done:
            reader.read(100)
    assert here[0].closed


def capture_file(tmp_path: Path, chunks: int) -> Path:
    head = '{"format":"toolcall-inspector-capture","version":1}\n'
    head += '{"type":"request","attempt":1,"t":0.0,"method":"POST","url":"u","body":{}}\n'
    head += '{"type":"response","attempt":1,"t":0.1,"status":200,"headers":{}}\n'
    line = '{"type":"chunk","attempt":1,"t":%s,"text":"data: {\\"n\\":%d}\\n\\n"}\n'
    body = "".join(line % (0.2 + i / 1000, i) for i in range(chunks))
    path = tmp_path / "big.jsonl"
    path.write_text(head + body)
    return path


def test_the_process_reads_the_file_and_ends(tmp_path: Path) -> None:
    path = capture_file(tmp_path, 20_000)
    data = path.read_bytes()
    stamp = file_stamp(str(path))
    assert stamp is not None
    reader = CaptureReader(data, "big.jsonl")
    processes: list[ProcessAhead] = []

    def start(offset: int, stop: int) -> ProcessAhead | None:
        got = ReadAheadStarter(str(path), stamp)(offset, stop)
        assert got is not None
        processes.append(got)
        return got

    assert reader.read_ahead(start, 1000)
    deadline = time.monotonic() + 60
    while not reader.done and time.monotonic() < deadline:
        reader.read(100)
    assert reader.capture == _read(data)
    (process,) = processes
    assert process._process.poll() is not None  # ended (or killed once its end was read)


def test_a_process_killed_midway_fails_the_load_with_a_line(tmp_path: Path) -> None:
    path = capture_file(tmp_path, 200_000)
    stamp = file_stamp(str(path))
    assert stamp is not None
    start = path.read_bytes().index(b'{"type":"chunk"')
    process = ProcessAhead(str(path), stamp, start, path.stat().st_size)
    first = None
    while first is None:
        first = process.get(1.0)
    assert first[0] == "chunks"
    process._process.kill()
    got: ahead.Message | None = None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and (got is None or got[0] != "failed"):
        got = process.get(0.5)
    assert got == ("failed", "the read-ahead process ended early")


def test_close_kills_the_process(tmp_path: Path) -> None:
    path = capture_file(tmp_path, 200_000)
    stamp = file_stamp(str(path))
    assert stamp is not None
    process = ProcessAhead(str(path), stamp, 0, path.stat().st_size)
    assert process.get(10.0) is not None
    process.close()
    assert process._process.poll() is not None  # killed and reaped, not left running


def test_a_stamp_is_only_given_for_a_regular_file(tmp_path: Path) -> None:
    assert file_stamp(str(tmp_path)) is None
    assert file_stamp(str(tmp_path / "gone")) is None
    path = tmp_path / "f"
    path.write_bytes(b"x")
    st = os.stat(path)
    assert file_stamp(str(path)) == (1, st.st_mtime_ns, st.st_ino)
    assert readahead.PIPE_BYTES >= 1 << 16


def test_a_head_and_the_process_for_the_rest_read_the_whole_capture(
    tmp_path: Path, small_batches: None
) -> None:
    """The window may hold the file's head only (up to the read-ahead's first line)."""
    rng = random.Random(5)
    path = tmp_path / "x.jsonl"
    seen = 0
    for _ in range(120):
        data = _random_capture(rng)
        path.write_bytes(data)
        want = _read(data)
        past = rng.randrange(0, len(data))
        try:
            offset = CaptureReader(data, "x.jsonl").boundary(past)
        except CaptureError:
            continue
        if offset < 0:
            continue
        seen += 1
        try:
            reader = CaptureReader(data[:offset], "x.jsonl", len(data))
            assert reader.read_ahead(lambda start, stop: Here(str(path), start, stop), past)
            while not reader.done:
                reader.read(rng.choice([1, 7, 100]))
            got: Capture | str = reader.capture
        except CaptureError as exc:
            got = f"{exc} @{exc.line}:{exc.offset}"
        assert got == want
    assert seen >= 60


def test_a_head_whose_process_fails_at_once_is_an_error(tmp_path: Path) -> None:
    path = capture_file(tmp_path, 200)
    data = path.read_bytes()
    offset = CaptureReader(data, "big.jsonl").boundary(1000)
    reader = CaptureReader(data[:offset], "big.jsonl", len(data))
    stale = (len(data), 1, 1)
    assert reader.read_ahead(lambda start, stop: Here(str(path), start, stop, stamp=stale), 1000)
    with pytest.raises(CaptureError, match="the file changed after it was read; open it again"):
        while not reader.done:
            reader.read(100)


def test_what_a_file_is_opened_from(tmp_path: Path) -> None:
    big = capture_file(tmp_path, 2000)
    head = readahead.read_for_load(str(big), 4096)
    assert not head.whole and head.size == big.stat().st_size
    assert isinstance(head.ahead, readahead.Started)
    assert head.data == big.read_bytes()[: head.ahead.offset]
    process = head.ahead.process
    head.close()  # dropped before the reader took it: the process is killed
    assert process is not None and process._process.poll() is not None
    small = readahead.read_for_load(str(big), 1 << 30)  # under twice the head: whole
    assert small.whole and isinstance(small.ahead, ReadAheadStarter)
    raw = tmp_path / "raw.sse"
    raw.write_bytes(b"data: {}\n\n" * 2000)
    assert readahead.read_for_load(str(raw), 4096).whole  # a raw body is read whole
    long_line = tmp_path / "long.jsonl"
    data = big.read_bytes()
    cut = data.index(b"\n") + 1  # after the header: a 20 KB line next
    long_line.write_bytes(data[:cut] + b'{"type":"x","pad":"' + b"x" * 20000 + b'"}\n' + data[cut:])
    got = readahead.read_for_load(str(long_line), 100, slack=1000)
    assert got.whole  # no line start within the head and its slack


def test_an_interpreter_that_cannot_read_ahead_gets_the_file_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = capture_file(tmp_path, 2000)
    monkeypatch.setattr(readahead.sys, "executable", "/bin/false")  # starts, ends at once
    got = readahead.read_for_load(str(big), 4096)
    assert got.whole and got.data == big.read_bytes() and got.ahead is None


def test_a_head_that_cannot_be_read_fails_with_read_files_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An OSError reading the head (a permission, a disk) is the one-line CaptureError every
    read gives, never an exception the worker thread would swallow (the window would wait)."""
    big = capture_file(tmp_path, 2000)

    def refused(*args: Any, **kw: Any) -> Any:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(readahead, "open", refused, raising=False)
    monkeypatch.setattr(readahead, "read_file", lambda p: ahead_read_file(p, refused))
    with pytest.raises(CaptureError, match="permission denied"):
        readahead.read_for_load(str(big), 4096)


def ahead_read_file(path: str, opener: Any) -> bytes:
    """read_file with its open() replaced."""
    import builtins

    from inspector.core.capture import reader

    real = builtins.open
    builtins.open = opener
    try:
        return reader.read_file(path)
    finally:
        builtins.open = real
