"""At the first start on a 1280×800 screen (a 1152×720 window) the Live state and the
Attempts pane's outcomes are read whole: the state is never elided for the model's
description, and an outcome that does not fit its column wraps instead of being cut. The
models' descriptions are readable there too: whole, word-wrapped under each name, in the model
list, whole in the model box's tooltip, and the line beside is whole or absent, never a stub."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QRect, QSettings, QSize, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QStyleOptionViewItem, QToolButton

from inspector.ui.live.widgets import ABOUT_ROLE, ModelItems
from inspector.ui.shell import statusline
from inspector.ui.shell.mainwindow import MainWindow
from ui.waiting import run_live, until


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


def run_default(window: MainWindow, qloop: qasync.QEventLoop, model: str = "") -> None:
    if not model:
        run_live(window, qloop, window.start_default_live)
        return
    window.live_bar.model.setEditText(model)  # the default profile and scenario, another model
    run_live(window, qloop, window.live_bar.start_requested.emit)


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


def test_every_state_of_a_tool_loop_run_is_whole_with_all_options_on_in_the_first_window(
    window: MainWindow, qloop: qasync.QEventLoop
) -> None:
    """The three options on (picked from the button's menu, as a user does), a tool-loop run
    to its end: the row never overflows into "»", and each state the run shows (connecting,
    streaming, running tools, done, each round and attempt) is whole when it is shown."""
    assert window.width() == 1152
    bar, label = window.live_bar, window.live_bar.state_label
    for act in (bar.loop, bar.sequential):  # retry is on by default
        act.trigger()
    assert bar.loop.isChecked() and bar.sequential.isChecked() and bar.retry.isChecked()
    assert bar.options.text() == "⚙ loop · seq · retry"
    assert "☑ Sequential dispatch (tool loop)" in bar.options.toolTip()  # whole there
    seen: list[tuple[str, str, bool]] = []

    def shown(_text: str) -> None:
        overflow = [
            b for b in bar.findChildren(QToolButton) if b.objectName().endswith("ext_button")
        ]
        seen.append((label.text(), label.shown(), any(b.isVisible() for b in overflow)))

    window.live.state_changed.connect(shown)  # after the bar's own slot: it has the text
    bar.scenario.setCurrentIndex(bar.scenario.findData("filesystem"))
    run_default(window, qloop, "demo-parallel")
    states = [s.strip() for s, *_ in seen]
    assert "streaming · round 2 · attempt 1" in states  # the loop ran round 1's tools
    assert states[-1].startswith("done · round 2")
    cut = [(said, painted) for said, painted, _ in seen if painted != said]
    assert not cut, f"states elided: {cut}"
    assert not any(o for *_, o in seen), "the Live toolbar overflows into »"
    for state in ("connecting", "streaming", "running tools", "done"):  # 9 rounds, 2 attempts
        bar.show_state(f"{state} · round 9 · attempt 2")
        assert label.shown() == label.text(), label.shown()


def test_the_models_descriptions_are_readable_in_the_first_window(
    window: MainWindow, qloop: qasync.QEventLoop, qtbot: Any
) -> None:
    assert window.width() == 1152
    lb = window.live_bar

    async def listed() -> None:
        window.live.list_demo_models()
        await until(lambda: lb.model.count() > 10)

    qloop.run_until_complete(listed())
    box = lb.model
    longest = max(range(box.count()), key=lambda i: len(str(box.itemData(i, ABOUT_ROLE) or "")))
    about = str(box.itemData(longest, ABOUT_ROLE))
    assert len(about) > 150  # the case: far more than a line of the list
    assert box.count() > 10

    # The line beside is whole, or a whole short warning, or absent: never a stub.
    forms: dict[str, str] = {}
    for i in range(box.count()):
        box.setCurrentIndex(i)
        said, shown = lb.about.text(), lb.about.shown()
        assert "…" not in shown and (shown in ("", said) or shown.strip().startswith("⚠"))
        forms[box.itemText(i)] = shown
        tip = box.toolTip()
        assert tip.startswith(box.itemText(i)) and said.strip() in tip  # whole in the tooltip
    assert "" in forms.values()  # a long description gives way entirely at 1152 px
    assert any(f.strip().startswith("⚠ ") for f in forms.values())  # a warning stays
    box.setCurrentIndex(longest)
    assert about in box.toolTip()

    # The list shows it whole, word-wrapped under the name, in a popup on the screen.
    box.showPopup()
    view = box.view()
    qtbot.waitUntil(lambda: view.isVisible())
    delegate = box.itemDelegate()
    assert isinstance(delegate, ModelItems)
    index = box.model().index(longest, 0)
    row = view.visualRect(index)
    option = QStyleOptionViewItem()
    option.initFrom(view)
    option.rect = row
    wrapped = delegate.about_rect(option, about)
    name_height = view.fontMetrics().height()
    assert wrapped.width() <= row.width()
    assert row.height() >= name_height + wrapped.height()  # every wrapped line has room
    assert wrapped.height() >= 2 * view.fontMetrics().height()  # wrapped, not one long line
    popup = view.window().frameGeometry()
    assert QGuiApplication.primaryScreen().availableGeometry().contains(popup)
    box.hidePopup()


def test_the_status_line_keeps_the_headline_whole_in_the_first_window(
    window: MainWindow, qloop: qasync.QEventLoop, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert window.width() == 1152
    run_default(window, qloop, "demo-missing-index")
    head = window.views.clients_follower.headline
    assert head.startswith("valid — breaks 2 clients: openai-python (raised), langchain")
    painted: list[str] = []
    real = statusline.elided
    monkeypatch.setattr(statusline, "elided", lambda *a: painted.append(real(*a)) or painted[-1])
    window.views.show_status()  # as any change of view or setting does
    bar = window.statusBar()
    assert isinstance(bar, statusline.StatusBar)
    line = bar.currentMessage()
    assert head in line and bar.toolTip() == line  # whole in the message and its tooltip
    assert bar.property(statusline.KEEP) == head  # the part to keep whole
    metrics, room = bar.fontMetrics(), bar.message_width()
    assert metrics.horizontalAdvance(line) > room  # the case: the line is cut at 1152 px
    bar.grab()  # paints it
    shown = painted[-1]
    assert head in shown and shown.endswith("…")  # the verdict whole; what follows gives way
    assert shown.startswith(line[: line.index(head)])  # the file's name before it
    # A longer name (a proxied session's, a capture renamed): the name gives way, not the
    # verdict, and nothing painted runs past the room.
    named = "a-capture-of-a-long-agent-session-kept-under-its-task-name-" + line
    bar.showMessage(named)
    bar.grab()
    shown = painted[-1]
    assert (
        metrics.horizontalAdvance(line[: line.index(head)] + head)
        < room
        < (metrics.horizontalAdvance(named[: named.index(head)] + head))
    )  # the case: the verdict would be cut at its end
    assert head in shown and "…" in shown[: shown.index(head)]
    assert metrics.horizontalAdvance(shown) <= room
