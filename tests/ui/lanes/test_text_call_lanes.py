"""Calls written as text fill lanes of their own, live, in the window; a Gemini streamed
call's fragment rows show the JSON path each one writes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from core.calls.test_text_calls import chat, pieces
from core.providers.gemini.test_partial_args import RECIPE
from PySide6.QtCore import Qt

from inspector.ui.shell.mainwindow import MainWindow

TEXT = (
    'Checking. <tool_call>\n{"name": "read_file", "arguments": {"path": "README.md"}}\n'
    '</tool_call>\n<tool_call>\n{"name": "search", "arguments": {"query": "weather"}}\n'
    "</tool_call>"
)


@pytest.fixture
def window(qtbot: Any) -> MainWindow:
    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    return w


def test_text_calls_fill_their_lanes_as_the_replay_steps(
    window: MainWindow, tmp_path: Path
) -> None:
    path = tmp_path / "hermes-in-text.sse"
    path.write_bytes(chat(*pieces(TEXT, 7)))  # 7 characters a delta: every tag is split
    window.open(str(path), play=True)
    window.doc.pause()
    window.doc.seek(0)
    assert not window.lanes.lanes
    window.doc.step(5)  # '…\n{"name": "rea': the name is not complete yet
    assert not window.lanes.lanes
    window.doc.step(1)  # 'd_file"': now it is, and the call has its lane
    (lane,) = window.lanes.lanes
    assert "from text" in lane.header.text() and "read_file" in lane.header.text()
    assert lane.model.rowCount() == 1 and lane.call is not None and lane.call.open
    window.doc.step(3)  # ' {"path': the arguments begin
    assert lane.model.rowCount() == 2
    window.doc.step(2)  # a row per delta while they go on
    assert lane.model.rowCount() == 4 and lane.call.open
    assert lane.buffer.toPlainText() == '{"path": "README.md"'
    window.doc.seek(len(window.doc.replayer.plan))
    first, second = window.lanes.lanes
    assert first is lane and "search" in second.header.text()
    assert all("valid" in ln.status.text() for ln in (first, second))
    assert lane.buffer.toPlainText().endswith('{"path": "README.md"}')


def test_a_gemini_streamed_call_shows_each_fragment_s_json_path(
    window: MainWindow, tmp_path: Path
) -> None:
    path = tmp_path / "vertex-partial-args.sse"
    path.write_bytes(b"".join(RECIPE))
    window.open(str(path))
    (lane,) = window.lanes.lanes
    shown = [lane.model.index(row, 4).data() for row in range(lane.model.rowCount())]
    assert shown[4] == '$.recipe.ingredients[0].amount ▸ ,"ingredients":[{"amount":16'
    assert shown[0] == "∅" and shown[-1] == "]}"
    tip = lane.model.index(7, 4).data(Qt.ItemDataRole.ToolTipRole)
    assert tip.startswith("JSON path $.recipe['serving notes']\n")
    assert "valid" in lane.status.text()
