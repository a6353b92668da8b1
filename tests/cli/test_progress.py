"""``analyze`` shows its progress on stderr when stderr is a terminal (a real pseudo-terminal
here), and writes nothing there when it is not; stdout holds the report alone either way."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
import tempfile

from conftest import TESTS

from inspector.cli.progress import Progress

SAMPLE = TESTS.parent / "resources" / "samples" / "large-arguments.jsonl"


def _run_with_terminal_stderr(*args: str) -> tuple[int, bytes, bytes]:
    """``analyze`` in a child whose stderr is a pseudo-terminal: (exit code, stdout, what the
    terminal got)."""
    parent, child = pty.openpty()
    # stdout to a file, not a pipe: the child never waits for us to read it
    with tempfile.TemporaryFile() as out:
        try:
            run = subprocess.Popen(
                [sys.executable, "-m", "inspector.cli", "analyze", *args],
                stdout=out,
                stderr=child,
                stdin=subprocess.DEVNULL,
            )
            os.close(child)
            seen = bytearray()
            while True:
                try:
                    piece = os.read(parent, 65536)
                except OSError:  # the child closed the terminal's other end
                    break
                if not piece:
                    break
                seen += piece
            code = run.wait(timeout=120)
        finally:
            os.close(parent)
        out.seek(0)
        return code, out.read(), bytes(seen)


def test_a_terminal_sees_each_phase_then_a_cleared_line() -> None:
    code, out, seen = _run_with_terminal_stderr(str(SAMPLE), "--json")
    assert code == 0 and out.startswith(b"{")
    text = seen.decode()
    for phase in ("analyze: reading", "analyze: ingest", "analyze: clients"):
        assert phase in text
    assert "3,398 chunks" in text and " MB" in text
    assert text.endswith("\r"), "the line is cleared before the report"


def test_no_progress_when_stderr_is_not_a_terminal() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "inspector.cli", "analyze", str(SAMPLE), "--json"],
        capture_output=True,
        timeout=120,
    )
    assert run.returncode == 0 and run.stderr == b""
    assert run.stdout.startswith(b"{")


def test_the_line_names_the_ingest_rate_so_far_then_once_it_is_done() -> None:
    progress = Progress(io.StringIO())
    progress.begin("ingest")
    assert "chunks/s" not in progress.line(), "no chunk yet: no rate"
    progress.chunks = 1200
    assert "chunks/s" in progress.line(), "the rate so far, while the ingest runs"
    progress.begin("clients")
    line = progress.line()
    assert line.startswith("analyze: clients") and "1,200 chunks" in line and "chunks/s" in line
    progress.close()


def test_a_capture_read_and_fed_at_once_shows_the_bytes_read_so_far() -> None:
    progress = Progress(io.StringIO())
    progress.size = 96_700_000
    progress.begin("reading + ingest")
    progress.chunks, progress.done = 2_000, 40_000_000
    line = progress.line()
    assert line.startswith("analyze: reading + ingest · 40.0 MB of 96.7 MB · 2,000 chunks")
    assert "chunks/s" in line
    progress.done = progress.size
    assert " of " not in progress.line(), "all read: the size alone"
    progress.close()
