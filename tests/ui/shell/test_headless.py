"""Headless use of the window never waits on a dialog (inspector/ui/base/dialogs.py,
inspector/ui/shell/app.py): ``open FILE --screenshot PNG`` either writes the PNG (exit 0) or says in
one line on stderr what the window would have asked or told (exit 2), never hangs.

The subprocess runs start together (each is mostly Python and Qt starting up) so the module
stays within a few seconds; every run is bounded by a timeout, a bound for a hang (a run
waiting on a dialog waits forever), not a speed: seven Qt start-ups at once on a loaded 2-core
machine took 20 s of a 45 s bound.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO
from PySide6.QtWidgets import QWidget

from inspector.core.capture.writer import CaptureWriter
from inspector.ui.base import dialogs
from inspector.ui.document.document import PROGRESSIVE_BYTES

CHUNK = b'data: {"choices":[{"index":0,"delta":{"content":"' + b"h" * 900 + b'"}}]}\n\n'


def _capture(path: Path, chunks: int, *, status: int = 200, body: bytes = CHUNK) -> Path:
    with CaptureWriter(path, meta={"dialect": "openai-chat"}) as w:
        w.request(1, "POST", "http://h/v1/chat/completions", {}, {"model": "m"})
        ctype = "text/event-stream" if status == 200 else "application/json"
        w.response(1, status, {"content-type": ctype}, 0.01)
        for i in range(chunks):
            w.chunk(1, 0.02 + i * 1e-4, body)
        w.end(1, 0.5, "eof" if status == 200 else "error")
    return path


def _corrupt_in_the_middle(path: Path) -> Path:
    data = path.read_bytes()
    cut = data.index(b"\n", len(data) // 2) + 1
    path.write_bytes(data[:cut] + b'{"type":"chunk","att\n' + data[cut:])
    return path


def _header_only(d: Path) -> Path:
    CaptureWriter(d / "header.jsonl", meta={"dialect": "openai-chat"}).close()
    return d / "header.jsonl"


def _raw_empty_event(d: Path) -> Path:
    (d / "empty.sse").write_bytes(b"data: {}\n\n")
    return d / "empty.sse"


def _http_401_capture(d: Path) -> Path:
    body = b'{"error":{"message":"Incorrect API key provided","code":"invalid_api_key"}}'
    return _capture(d / "e401.jsonl", 1, status=401, body=body)


def _http_401_body(d: Path) -> Path:
    (d / "e401.txt").write_bytes(b'{"error":{"message":"Incorrect API key provided"}}\n')
    return d / "e401.txt"


def _corrupt_small(d: Path) -> Path:
    return _corrupt_in_the_middle(_capture(d / "corrupt.jsonl", 20))


def _corrupt_large(d: Path) -> Path:
    """Opened progressively (over PROGRESSIVE_BYTES): the corrupt record is met mid-load."""
    path = _capture(d / "large.jsonl", PROGRESSIVE_BYTES // len(CHUNK) + 200)
    assert path.stat().st_size > PROGRESSIVE_BYTES
    return _corrupt_in_the_middle(path)


OK = (0, "screenshot saved to ")
EITHER = (-1, "")
# (input, exit code, the stderr line's start). Whether the window asks about the dialect of a
# header-only capture or an HTTP 401 capture is the window's policy (MainWindow._unrecognised:
# only a received stream no dialect recognised is asked about); what is pinned here is that
# the run never waits: a picture (exit 0), or the question as one line (exit 2).
CASES: dict[str, tuple[Callable[[Path], Path], int, str]] = {
    "header-only": (_header_only, *EITHER),
    "http-401-capture": (_http_401_capture, *EITHER),
    # A raw JSON error body is "not a stream" to analyze (exit 2); the same file gives the same
    # exit code and line in a screenshot run (issue 25: the exit-code table's unreadable row).
    "http-401-body": (_http_401_body, 2, "toolcall-inspector: not a stream: "),
    "raw-data-empty-object": (_raw_empty_event, 2, "toolcall-inspector: "),
    "corrupt-in-the-middle": (_corrupt_small, 2, "toolcall-inspector: "),
    "large-corrupt-in-the-middle": (_corrupt_large, 2, "toolcall-inspector: "),
    "missing-file": (lambda d: d / "nope.jsonl", 2, "toolcall-inspector: "),
}
HANG = 240.0
"""Seconds all runs together may take before the ones still going count as hung."""

WORDS = {
    "raw-data-empty-object": "dialect was not recognised",
    "corrupt-in-the-middle": "corrupt.jsonl: line 14: corrupt record",
    "large-corrupt-in-the-middle": "large.jsonl: line ",
    "missing-file": "nope.jsonl",
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Every case's ``open --screenshot`` run, started together: name -> (code, stderr, png)."""
    d = tmp_path_factory.mktemp("headless")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    procs = {}
    for name, (make, _, _) in CASES.items():
        png = d / f"{name}.png"
        args = [sys.executable, "-m", "inspector", "open", str(make(d)), "--screenshot", str(png)]
        procs[name] = (subprocess.Popen(args, cwd=REPO, env=env, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, text=True), png)  # fmt: skip
    try:
        done, deadline = {}, time.monotonic() + HANG
        for name, (proc, png) in procs.items():
            _, err = proc.communicate(timeout=max(deadline - time.monotonic(), 1.0))
            done[name] = (proc.returncode, err, png)
        yield done
    finally:
        for proc, _ in procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.communicate()


@pytest.mark.timeout(HANG + 60)  # the first case's set-up waits for every run
@pytest.mark.parametrize("name", list(CASES))
def test_screenshot_never_waits_on_a_dialog(runs: dict[str, Any], name: str) -> None:
    code, err, png = runs[name]
    _, want_code, start = CASES[name]
    if want_code == EITHER[0]:
        want_code, start = OK if code == 0 else (2, "toolcall-inspector: ")
        assert code == 0 or "the stream's dialect was not recognised" in err, err
    assert code == want_code, err
    assert err.count("\n") == 1 and err.startswith(start), err
    assert "Traceback" not in err
    assert WORDS.get(name, "") in err
    if code == 0:
        assert png.read_bytes()[:4] == b"\x89PNG"
    else:
        assert not png.exists()  # no picture of a window that could not show the file


# -- in process: every dialog has its headless line ---------------------------------------------


def test_every_dialog_reports_one_line_instead_when_headless(qtbot: Any) -> None:
    parent = QWidget()
    qtbot.addWidget(parent)
    lines: list[str] = []
    dialogs.go_headless(lines.append)
    try:
        assert dialogs.choose_capture(parent, "") == ""
        assert dialogs.choose_tools(parent) == ""
        assert dialogs.choose_png(parent) == ""
        assert dialogs.choose_dialect(parent, "odd.sse") is None
        dialogs.cannot_open(parent, "a.jsonl", "a.jsonl: line 3: corrupt record")
        dialogs.cannot_open(parent, "b.jsonl", "no such file\n\n(really)")
        dialogs.cannot_read_tools(parent, "tools.json: not JSON")
        dialogs.nothing_to_compare(parent, loading=True)
        assert dialogs.show_live_error(parent, "HTTP 401") is None
        dialogs.unexpected_error(parent, "ValueError: boom")
    finally:
        dialogs.go_headless(None)
    assert lines[3:] == [
        "odd.sse: the stream's dialect was not recognised (choose one in the window, or run "
        "analyze --dialect)",
        "a.jsonl: line 3: corrupt record",
        "b.jsonl: no such file (really)",
        "cannot read tools: tools.json: not JSON",
        "Compare: The capture is still loading: compare once it is in.",
        "live session: HTTP 401",
        "unexpected error: ValueError: boom",
    ]
    assert len(lines) == 10 and all("file dialog" in line for line in lines[:3])
    assert not dialogs.headless_instead("back to dialogs")


def test_the_excepthook_is_one_headless_line(
    qtbot: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from inspector.ui.shell.app import install_excepthook

    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    install_excepthook(None)
    lines: list[str] = []
    dialogs.go_headless(lines.append)
    try:
        try:
            raise ValueError("boom")
        except ValueError as exc:
            sys.excepthook(type(exc), exc, exc.__traceback__)
    finally:
        dialogs.go_headless(None)
    assert lines == ["unexpected error: ValueError: boom"]
    assert capsys.readouterr().err == ""  # the report writes the line, not the hook too
