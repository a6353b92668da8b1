"""The window's live bar with the Bedrock profiles: a SigV4 profile says how it signs, and a
run against the demo provider's Bedrock endpoint fills lanes from real binary frames."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
import qasync
from PySide6.QtCore import Qt

from inspector.ui.shell.mainwindow import MainWindow


@pytest.fixture
def window(
    qtbot: Any, qloop: qasync.QEventLoop, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> Iterator[MainWindow]:
    monkeypatch.setattr("inspector.ui.live.live.captures_dir", lambda: tmp_path)
    w = MainWindow()
    w.live.demo_chunk_delay = 0.002
    qtbot.addWidget(w)
    w.show()
    yield w
    qloop.run_until_complete(w.aclose())


async def until(predicate: Any, timeout: float = 20.0) -> None:
    async with asyncio.timeout(timeout):
        while not predicate():
            await asyncio.sleep(0.01)


def test_a_sigv4_profile_says_how_it_signs(window: MainWindow) -> None:
    lb = window.live_bar
    lb.profile.setCurrentIndex(lb.profile.findData("bedrock"))
    assert lb.about.text().strip() == (
        "bedrock-converse at https://bedrock-runtime.us-east-1.amazonaws.com · SigV4 "
        "(us-east-1), AWS credentials from their usual chain"
    )


def test_a_demo_bedrock_run_fills_lanes_from_binary_frames(
    window: MainWindow, qloop: qasync.QEventLoop, qtbot: Any
) -> None:
    lb = window.live_bar
    lb.select("demo-bedrock", "demo-parallel", "parallel")
    qtbot.keyClick(lb.model.edit, Qt.Key.Key_Return)

    async def ran() -> None:
        await until(lambda: window.live.session is not None and not window.live.running)

    qloop.run_until_complete(ran())
    view = window.doc.view
    assert view is not None and view.state.dialect_name == "bedrock-converse"
    assert len(window.lanes.lanes) >= 2 and all(
        "valid" in lane.status.text() for lane in window.lanes.lanes
    )
    window.raw.select_seq(0)
    assert "frame headers (3):" in window.raw.detail.toPlainText()
