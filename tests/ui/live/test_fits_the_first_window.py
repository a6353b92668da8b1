"""At the first start on a 1280×800 screen (a 1152×720 window) the Live state and the
Attempts pane's outcomes are read whole: the state is never elided for the model's
description, and an outcome that does not fit its column wraps instead of being cut."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QRect, QSettings, QSize, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QToolButton

from inspector.ui.shell.mainwindow import MainWindow


@pytest.fixture
def window(
    qtbot: Any, qloop: qasync.QEventLoop, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> Iterator[MainWindow]:
    assert QGuiApplication.primaryScreen().geometry().size() == QSize(1280, 800)
    QSettings("toolcall-inspector", "toolcall-inspector").clear()  # a first start
    monkeypatch.setattr("inspector.ui.live.live.captures_dir", lambda: tmp_path)
    w = MainWindow()
    w.persist_layout = False
    w.live.demo_chunk_delay = 0.002
    qtbot.addWidget(w)
    w.show_fitted()
    qtbot.waitExposed(w)
    yield w
    w.close()
    qloop.run_until_complete(w.aclose())


def run_default(window: MainWindow, qloop: qasync.QEventLoop) -> None:
    async def scenario() -> None:
        window.start_default_live()
        async with asyncio.timeout(30):
            while not (window.live.session is not None and window.live.running):
                await asyncio.sleep(0.01)
            while window.live.running:
                await asyncio.sleep(0.01)
        await asyncio.sleep(0.3)  # the last flush

    qloop.run_until_complete(scenario())


def test_the_live_state_and_the_attempts_outcomes_are_whole_in_the_first_window(
    window: MainWindow, qloop: qasync.QEventLoop
) -> None:
    assert window.width() == 1152  # 90 % of 1280
    run_default(window, qloop)
    bar, label = window.live_bar, window.live_bar.state_label
    said = label.text().strip()
    assert said == "done · round 1 · attempt 2"
    assert label.contentsRect().width() >= label.fontMetrics().horizontalAdvance(said)
    overflow = [b for b in bar.findChildren(QToolButton) if b.objectName().endswith("ext_button")]
    assert not any(b.isVisible() for b in overflow), "the Live toolbar overflows into »"

    pane = window.views.attempts
    retried = pane.topLevelItem(0)
    text = retried.text(1)
    assert text.startswith("↻ retried · stream_invalid_tool_call")
    room = pane.columnWidth(1)
    metrics = pane.fontMetrics()
    assert metrics.horizontalAdvance(text) > room  # the case: one line would be cut
    wrapped = metrics.boundingRect(
        QRect(0, 0, room - 8, 10_000), int(Qt.TextFlag.TextWordWrap), text
    )
    assert pane.visualItemRect(retried).height() >= wrapped.height()
