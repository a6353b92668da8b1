"""A newcomer's first five minutes, on a laptop's 1280×800 screen (tests/conftest.py gives Qt's
offscreen platform one, from tests/offscreen-1280x800.json).

One walk, in the order a new user takes it, asserting what they would read: a sample opened
from File ▸ Samples replays; Pause, then Resume goes on from where it paused; the lane headers
count the rows their tables show; empty-id and validation flip; Compare opens and closes; a
live demo run starts from the Live toolbar and stops. Every control used is in its toolbar's
row, none in a "»" overflow menu.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QRect, QSettings, QSize, Qt
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import QApplication, QComboBox, QToolBar, QToolButton, QWidget

from inspector.core.reports import words
from inspector.ui.shell.mainwindow import MainWindow
from ui.waiting import WAIT_MS, live_ended, until

LAPTOP = QSize(1280, 800)
SAMPLE = "glm-empty-string-continuations"


@pytest.fixture
def window(
    qtbot: Any, qloop: qasync.QEventLoop, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[MainWindow]:
    monkeypatch.setattr("inspector.ui.live.live.captures_dir", lambda: tmp_path)
    screen = QGuiApplication.primaryScreen()
    assert screen.geometry().size() == LAPTOP, "the walkthrough needs the 1280×800 screen"
    QSettings("toolcall-inspector", "toolcall-inspector").clear()  # a newcomer has none
    w = MainWindow()
    w.live.demo_chunk_delay = 0.002
    qtbot.addWidget(w)
    w.show_fitted()  # as the app shows it
    qtbot.waitExposed(w)
    yield w
    w.close()
    qloop.run_until_complete(w.aclose())


def in_row(bar: QToolBar, widget: QWidget) -> bool:
    """Is ``widget`` shown in ``bar``'s own row (not in its "»" overflow menu)?"""
    inside = QRect(0, 0, bar.width(), bar.height()).contains(widget.geometry())
    return widget.isVisible() and widget.parentWidget() is bar and inside


def overflow_shown(bar: QToolBar) -> bool:
    return any(
        b.isVisible()
        for b in bar.findChildren(QToolButton)
        if b.objectName().endswith("ext_button")
    )


def menu_action(w: MainWindow, text: str) -> QAction:
    """The menu item whose text (without its & mnemonic) starts with ``text``."""
    menus = [w.samples_menu, *(a.menu() for a in w.menuBar().actions() if a.menu())]
    for menu in menus:
        for act in menu.actions():
            if act.text().replace("&", "").startswith(text):
                return act
    raise AssertionError(f"no menu item {text!r}")


def fragments_agree(w: MainWindow) -> bool:
    """Does every lane header count the rows its table shows?"""
    for lane in w.lanes.lanes:
        if lane.isHidden():
            continue
        m = re.search(r"(\d+) fragments(?:, <s>(\d+) dropped)?", lane.status.text())
        assert m is not None, lane.status.text()
        if int(m.group(1)) + int(m.group(2) or 0) != lane.model.rowCount():
            return False
    return True


def choose(box: QComboBox, data: str) -> None:
    """Pick the item with ``data`` as a user does (``activated`` is the user's signal)."""
    i = box.findData(data)
    box.setCurrentIndex(i)
    box.activated.emit(i)


def lane_words(w: MainWindow) -> str:
    return " ".join(lane.status.text() for lane in w.lanes.lanes if not lane.isHidden())


def test_a_newcomer_walks_through_the_window_on_a_laptop_screen(
    window: MainWindow, qtbot: Any, qloop: qasync.QEventLoop
) -> None:
    w, bar, live = window, window.bar, window.live_bar
    available = QGuiApplication.primaryScreen().availableGeometry()
    assert available.contains(w.frameGeometry()), "the window fits the screen it opens on"
    assert w.statusBar().isVisible() and w.rect().contains(w.statusBar().geometry())
    needed = [
        (bar, bar.validation),
        (bar, bar.empty_id),
        (bar, bar.play),
        (bar, bar.step),
        (bar, bar.speed),
        (bar, bar.slider),
        (bar, bar.position),
        (live, live.profile),
        (live, live.model),
        (live, live.start),
        (live, live.stop),
        (live, live.scenario),
        (live, live.edit),
        (live, live.options),
        (live, live.state_label),
        (live, live.about),
    ]
    for toolbar in (bar, live):
        assert not overflow_shown(toolbar), f"{toolbar.objectName()} overflows"
    for toolbar, widget in needed:
        assert in_row(toolbar, widget), f"{widget.objectName() or widget} is not in its row"

    # File ▸ Samples: the sample replays from its start, and the status bar says so.
    disagreed: list[int] = []
    w.doc.flushed.connect(lambda: disagreed.append(1) if not fragments_agree(w) else None)
    menu_action(w, SAMPLE).trigger()
    assert w.doc.playing and bar.play.text() == "Pause"
    assert w.statusBar().currentMessage().startswith(f"{SAMPLE}.jsonl · ")
    qtbot.waitUntil(lambda: "replaying" in w.statusBar().currentMessage(), timeout=WAIT_MS)
    qtbot.waitUntil(
        lambda: (w.doc.replayer.position if w.doc.replayer else 0) >= 4, timeout=WAIT_MS
    )

    # Pause, then Resume: it goes on from where it paused.
    bar.play.click()
    paused_at = w.doc.replayer.position
    assert not w.doc.playing and bar.play.text() == "Resume" and 0 < paused_at < 12
    assert f" {paused_at} / 12 chunks " == bar.position.text()
    assert fragments_agree(w)
    bar.play.click()
    assert w.doc.playing and w.doc.replayer.position >= paused_at
    qtbot.waitUntil(lambda: not w.doc.playing, timeout=WAIT_MS)
    assert bar.play.text() == "Replay" and bar.position.text() == " 12 / 12 chunks "
    assert disagreed == [], "a lane header counted fragments its table did not show"
    assert len(w.lanes.lanes) == 2 and lane_words(w).count(words.label("valid")) == 2
    assert "replaying" not in w.statusBar().currentMessage()

    # The empty-id bug, then validation off: the words change with them.
    choose(bar.empty_id, "literal")
    assert lane_words(w).count(words.label("invalid")) == 2 and "dropped" in lane_words(w)
    choose(bar.empty_id, "absent")
    choose(bar.validation, "off")
    assert lane_words(w).count(words.label("not checked")) == 2
    assert words.label("valid") not in lane_words(w)
    assert "validation off" in w.statusBar().currentMessage()
    choose(bar.validation, "structural")

    # Compare opens beside the window, and Esc closes it.
    menu_action(w, "Compare").trigger()
    compare = w._compare
    assert compare is not None
    compare.activateWindow()  # as a click on it would
    qtbot.waitUntil(lambda: QApplication.activeWindow() is compare, timeout=WAIT_MS)
    qtbot.keyClick(compare, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not compare.isVisible(), timeout=WAIT_MS)

    # A live demo run from the Live toolbar: the model list says what each model does; the
    # chosen one is what Run runs; then Stop.
    live.select("demo", "fault-stall", "weather")
    live.model.showPopup()  # opening the list asks the demo provider for its models
    qloop.run_until_complete(until(lambda: live.model.count() > 10))
    live.model.hidePopup()
    assert "stalls" in live.about.text()  # the line beside says what the model does
    assert live.model.currentText() == "fault-stall"
    live.start.click()

    async def run_then_stop() -> None:
        await until(lambda: live.state_label.text().strip() == "streaming · round 1 · attempt 1")
        assert w.live.running and live.stop.isEnabled() and not live.start.isEnabled()
        live.stop.click()
        await until(lambda: live_ended(w))

    qloop.run_until_complete(run_then_stop())
    assert live.start.isEnabled() and not live.stop.isEnabled()
    assert live.state_label.text().strip() == "cancelled · round 1 · attempt 1"
    assert w.statusBar().currentMessage().startswith("cancelled: stopped at round 1 · attempt 1")
    for toolbar in (bar, live):
        assert not overflow_shown(toolbar), f"{toolbar.objectName()} overflows after the run"
