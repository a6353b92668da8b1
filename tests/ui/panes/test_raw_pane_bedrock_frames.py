"""The raw pane shows a binary frame as its headers and its payload (real window, real
recorded Bedrock stream framed into real event-stream frames)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from bedrock_fixtures import recorded

from inspector.core.providers.bedrock_converse.eventstream import exception_frame
from inspector.ui.shell.mainwindow import MainWindow


@pytest.fixture
def window(qtbot: Any) -> MainWindow:
    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(1280, 800)
    w.show()
    return w


def test_a_frame_shows_its_headers_then_its_payload(window: MainWindow, tmp_path: Path) -> None:
    rec = recorded()[2]  # text, then two weather calls
    path = tmp_path / "bedrock.bin"
    path.write_bytes(rec.framed + exception_frame("throttlingException", b'{"message":"slow"}'))
    assert window.open(str(path))
    assert len(window.lanes.lanes) == 2 and "valid" in window.lanes.lanes[0].status.text()
    window.raw.select_seq(3)  # the first call's contentBlockStart
    text = window.raw.detail.toPlainText()
    assert text.startswith("#3  event  event='contentBlockStart'  bytes ")
    assert "frame headers (3):\n  :event-type: 'contentBlockStart'\n" in text
    assert "  :content-type: 'application/json'\n  :message-type: 'event'\n\npayload:" in text
    assert '"toolUseId": "weather-tool-1"' in text.split("payload:")[1]
    last = window.raw.model.rowCount() - 1
    window.raw.select_seq(last)
    text = window.raw.detail.toPlainText()
    assert "  :exception-type: 'throttlingException'" in text
    assert "  :message-type: 'exception'" in text and '"message": "slow"' in text


def test_a_json_line_and_an_sse_event_show_no_frame_headers(
    window: MainWindow, tmp_path: Path
) -> None:
    path = tmp_path / "bedrock.jsonl"
    path.write_bytes(recorded()[2].lines)
    assert window.open(str(path))
    window.raw.select_seq(0)
    text = window.raw.detail.toPlainText()
    assert text.startswith("#0  event  event='message'") and "frame headers" not in text
    assert '"contentBlockDelta"' in text
