"""Issue 25: the raw pane says where the capture writer masked the session's key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspector.core.capture.writer import CaptureWriter
from inspector.ui.shell.mainwindow import MainWindow

KEY = "sk-proj-CANARYa1b2c3d4e5f6g7h8i9j0"


def test_the_raw_pane_shows_the_masked_bytes_of_the_event(qtbot: Any, tmp_path: Path) -> None:
    path = tmp_path / "echo.jsonl"
    first = b'data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n'
    second = f'data: {{"choices":[{{"index":0,"delta":{{"content":"{KEY}."}}}}]}}\n\n'.encode()
    with CaptureWriter(path, meta={"dialect": "openai-chat"}, secrets=[KEY]) as w:
        w.request(1, "POST", "http://h/v1/chat/completions", {}, {"model": "m"})
        w.response(1, 200, {"content-type": "text/event-stream"}, 0.1)
        w.chunk(1, 0.2, first)
        w.chunk(1, 0.3, second)
        w.chunk(1, 0.4, b"data: [DONE]\n\n")
        w.end(1, 0.5, "eof")
    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    assert window.open(str(path))
    window.raw.table.selectRow(1)
    text = window.raw.detail.toPlainText()
    start = len(first) + second.index(KEY.encode())
    assert f"masked when recorded: bytes {start}–{start + len(KEY)}" in text
    assert "*" * len(KEY) in text and KEY not in text
    window.raw.table.selectRow(0)
    assert "masked" not in window.raw.detail.toPlainText()


def test_a_raw_pane_shows_an_event_before_any_masked_ranges_are_set(
    qtbot: Any, tmp_path: Path
) -> None:
    """A fresh pane (a live stream's first events, before any attempt's masks were handed
    over) shows an event's detail: nothing masked, not an AttributeError."""
    from inspector.core.analysis.session import Analysis
    from inspector.core.base.settings import Settings
    from inspector.core.capture.reader import load
    from inspector.core.providers import REGISTRY
    from inspector.ui.panes.panes import RawWirePane

    path = tmp_path / "body.sse"
    path.write_bytes(b'data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n')
    analysis = Analysis.from_capture(
        load(str(path)), Settings(dialect="openai-chat"), providers=REGISTRY
    )
    pane = RawWirePane()
    qtbot.addWidget(pane)
    pane.sync(analysis.final.state)
    pane.table.selectRow(0)
    text = pane.detail.toPlainText()
    assert text.startswith("#0") and "masked" not in text
