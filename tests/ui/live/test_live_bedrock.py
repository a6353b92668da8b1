"""The window's live bar with the Bedrock profiles: a SigV4 profile says how it signs, and a
run against the demo provider's Bedrock endpoint fills lanes from real binary frames."""

from __future__ import annotations

from typing import Any

import qasync
from PySide6.QtCore import Qt

from inspector.ui.shell.mainwindow import MainWindow
from ui.waiting import live_ended, until


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
        await until(lambda: live_ended(window))

    qloop.run_until_complete(ran())
    view = window.doc.view
    assert view is not None and view.state.dialect_name == "bedrock-converse"
    assert len(window.lanes.lanes) >= 2 and all(
        "valid" in lane.status.text() for lane in window.lanes.lanes
    )
    window.raw.select_seq(0)
    assert "frame headers (3):" in window.raw.detail.toPlainText()
