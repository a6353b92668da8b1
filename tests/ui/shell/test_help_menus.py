"""The menus a newcomer meets (Open Recent, Recorded sessions, View, Help), the windows that
close on Esc and Ctrl+W, and what the lanes say when they are empty or do not all fit."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings, Qt, QUrl
from PySide6.QtGui import QAction, QDesktopServices, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QLabel,
    QStyleOptionViewItem,
    QTableWidget,
    QTextBrowser,
)

from inspector.core.base.resources import resource
from inspector.ui.shell import help
from inspector.ui.shell.docviewer import DocViewer
from inspector.ui.shell.mainwindow import MainWindow

SAMPLES = resource("samples")
OLLAMA = SAMPLES / "ollama-parallel-calls-index-0.jsonl"  # three parallel calls
GLM = SAMPLES / "glm-empty-string-continuations.jsonl"


@pytest.fixture
def sessions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The folder live sessions record into, with two captures (the second is newer)."""
    folder = tmp_path / "captures"
    folder.mkdir()
    for i, name in enumerate(("20250101-older.jsonl", "20250102-newer.jsonl")):
        shutil.copy(GLM, folder / name)
        os.utime(folder / name, (1_700_000_000 + i, 1_700_000_000 + i))
    monkeypatch.setattr("inspector.ui.live.live.captures_dir", lambda: folder)
    return folder


@pytest.fixture
def window(qtbot: Any, sessions: Path) -> MainWindow:
    settings = QSettings("toolcall-inspector", "toolcall-inspector")
    for key in ("recent", "validation", "empty_id"):  # other tests' choices
        settings.remove(key)
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    return w


@pytest.fixture
def urls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What the desktop was asked to open (it opens nothing)."""
    seen: list[str] = []

    def open_url(url: QUrl) -> bool:
        seen.append(url.toLocalFile())
        return True

    monkeypatch.setattr(QDesktopServices, "openUrl", staticmethod(open_url))
    return seen


def item(window: MainWindow, name: str) -> QAction:
    act = window.findChild(QAction, name)
    assert act is not None, name
    return act


def test_open_recent_lists_what_the_user_opened_as_absolute_paths(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    window.settings.setValue("recent", ["captures/relative.jsonl", "/no/such/file.jsonl"])
    assert window.recent.paths() == []  # what older versions stored, and files gone, are not
    window.samples_menu.actions()[0].trigger()  # a sample the user picked is "opened"
    window.doc.pause()
    monkeypatch.chdir(SAMPLES.parent)
    window.open(f"samples/{GLM.name}")  # as from the command line, relative to the cwd
    assert window.recent.paths() == [str(GLM), str(SAMPLES / "anthropic-parallel-tool-use.jsonl")]
    assert [a.text() for a in window.recent_menu.actions()] == window.recent.paths()


def test_open_recent_keeps_only_files_that_opened_as_streams(
    window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.QtWidgets import QMessageBox

    boxes: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda *a: boxes.append(a[2])))
    text = tmp_path / "notes.txt"
    text.write_text("just some words\nand more words\n")
    window.open(str(text))  # refused by the gate: its notice shows, it is not remembered
    assert window.doc.notice and window.doc.notice.startswith("not a stream")
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"format": "toolcall-inspector-capture", "version": 99}\n')
    window.open(str(broken))  # fails to open: a box, and not remembered either
    assert len(boxes) == 1 and str(broken) in boxes[0]
    assert window.recent.paths() == []
    window.open(str(GLM))  # a stream: remembered
    window.doc.pause()
    assert window.recent.paths() == [str(GLM)]


def test_live_captures_go_to_recorded_sessions_not_open_recent(
    window: MainWindow, sessions: Path, urls: list[str]
) -> None:
    from inspector.core.capture.reader import load

    newest = sessions / "20250102-newer.jsonl"
    window.doc.open_capture(load(newest), str(newest))  # what a session that ended shows
    assert window.recent.paths() == []
    window.sessions.refresh()
    names = [a.text() for a in window.sessions.menu.actions() if not a.isSeparator()]
    assert names == ["20250102-newer.jsonl", "20250101-older.jsonl", "Show folder"]
    window.sessions.menu.actions()[1].trigger()  # the older one opens, and stays out of recent
    assert window.doc.path == str(sessions / "20250101-older.jsonl")
    assert window.recent.paths() == []
    item(window, "action-show-folder").trigger()
    assert urls == [str(sessions)]


def test_recorded_sessions_says_when_there_are_none(window: MainWindow, sessions: Path) -> None:
    for path in sessions.iterdir():
        path.unlink()
    window.sessions.refresh()
    first = window.sessions.menu.actions()[0]
    assert "no live session recorded yet" in first.text() and not first.isEnabled()


def test_a_closed_attempts_panel_comes_back_from_the_view_menu(window: MainWindow) -> None:
    dock = window.attempts_dock
    dock.close()
    assert dock.isHidden()
    show = dock.toggleViewAction()
    assert show in window.menuBar().actions()[1].menu().actions()  # View
    show.trigger()
    assert dock.isVisible()


def test_esc_and_ctrl_w_close_the_compare_and_help_windows(window: MainWindow, qtbot: Any) -> None:
    window.open(str(GLM))
    for key in ("Esc", "Ctrl+W"):
        window.open_compare()
        compare = window._compare
        assert compare is not None
        compare.activateWindow()
        qtbot.waitUntil(compare.isActiveWindow)
        qtbot.keyClick(compare, *_key(key))
        assert not compare.isVisible(), key
        dialog = help.getting_started(window)
        qtbot.waitUntil(dialog.isActiveWindow)
        qtbot.keyClick(dialog, *_key(key))
        assert not dialog.isVisible(), key
    assert window.doc.path == str(GLM)  # Ctrl+W in Compare did not close the document


def _key(text: str) -> tuple[Qt.Key, Qt.KeyboardModifier]:
    combo = QKeySequence(text)[0]
    return combo.key(), combo.keyboardModifiers()


def test_a_finished_attempt_without_calls_says_so_plainly(
    window: MainWindow, tmp_path: Path
) -> None:
    assert window.lanes._empty.text() == "No tool calls yet."
    body = tmp_path / "text-only.sse"
    chunk = '{"choices":[{"index":0,"delta":{"content":"%s"},"finish_reason":%s}]}'
    events = [chunk % ("Hello", "null"), chunk % (" there", '"stop"'), "[DONE]"]
    body.write_text("".join(f"data: {e}\n\n" for e in events))
    assert window.open(str(body))
    assert window.lanes._empty.isVisible()
    assert window.lanes._empty.text() == "No tool calls in this attempt."
    window.doc.seek(1)  # mid-stream: nothing yet, and more may come
    assert window.lanes._empty.text() == "No tool calls in this attempt (yet)."


def test_lanes_out_of_sight_are_counted_and_one_click_away(window: MainWindow, qtbot: Any) -> None:
    window.resize(1280, 800)
    window.open(str(OLLAMA))
    lanes, hint = window.lanes, window.lanes.hint
    assert len(lanes.lanes) == 3
    qtbot.waitUntil(hint.isVisible)  # once the row is laid out
    assert re.fullmatch(r"3 lanes · [12] off-screen →", hint.text()), hint.text()
    assert lanes.rect().contains(hint.geometry())  # in its own strip, under the lanes
    assert not lanes.viewport().geometry().intersects(hint.geometry())
    bar = lanes.horizontalScrollBar()  # the strip narrows the viewport (a vertical scroll
    # bar comes): the scroll range follows once the scroll area is laid out again
    qtbot.waitUntil(lambda: bar.maximum() == lanes.widget().width() - lanes.viewport().width())
    clicks = 0
    while lanes.off_screen()[1] and clicks < 3:  # each click brings the next lane in
        hint.click()
        clicks += 1
    assert lanes.off_screen()[1] == 0 and lanes.horizontalScrollBar().value() > 0
    assert hint.text().endswith("off-screen ←")
    hint.click()  # nothing more on the right: back to the first lane
    assert lanes.horizontalScrollBar().value() <= lanes.lanes[0].x()
    window.open(str(SAMPLES / "responses-function-call.jsonl"))  # one lane: it fits
    qtbot.waitUntil(lambda: not hint.isVisible())


def test_the_json_column_elides_at_its_end_with_the_whole_state_in_its_tooltip(
    window: MainWindow,
) -> None:
    window.open(str(GLM))
    lane = window.lanes.lanes[0]
    model, column = lane.model, lane.model.JSON_COLUMN
    row = next(
        r
        for r in range(model.rowCount())
        if "in string" in model.data(model.index(r, column), Qt.ItemDataRole.DisplayRole)
    )
    index = model.index(row, column)
    state = model.data(index, Qt.ItemDataRole.DisplayRole)
    assert state.startswith("open: in string (depth")
    assert state in model.data(index, Qt.ItemDataRole.ToolTipRole)
    option = QStyleOptionViewItem()
    lane.table.itemDelegateForColumn(column).initStyleOption(option, index)
    assert option.textElideMode == Qt.TextElideMode.ElideRight


def test_getting_started_explains_the_window_around_pictures_of_it(window: MainWindow) -> None:
    item(window, "action-getting-started").trigger()
    dialog = window.findChild(QDialog, "help-getting-started")
    assert dialog is not None and dialog.isVisible()
    browser = dialog.findChild(QTextBrowser)
    html = browser.toHtml()
    for picture in ("start-live.png", "start-proxy.png", "start-matrix.png", "start-clients.png"):
        assert help.doc_page("images", picture).is_file() and picture in html, picture
    text = browser.toPlainText()
    for part in ("Lanes", "Raw wire", "Attempts", "File ▸ Samples", "Recorded sessions"):
        assert part in text, part
    assert f"press {window.live_bar.start.text()}" in text.replace("\n", " ")
    assert dialog.width() <= window.screen().availableGeometry().width()
    assert help.getting_started(window) is dialog  # asked again: the same window, raised


def test_the_shortcuts_table_lists_every_key_the_window_defines(window: MainWindow) -> None:
    extra = QAction("Something added later", window)
    extra.setShortcut(QKeySequence("Ctrl+Shift+L"))
    window.addAction(extra)  # the table is built from the actions: it follows them
    item(window, "action-keyboard-shortcuts").trigger()
    table = window.findChild(QDialog, "help-shortcuts").findChild(QTableWidget)
    rows = [tuple(table.item(r, c).text() for c in range(3)) for r in range(table.rowCount())]
    keys = {r[0] for r in rows}
    native = QKeySequence.SequenceFormat.NativeText
    defined = [a for a in window.findChildren(QAction) if a.shortcuts()]
    assert len(defined) >= 6
    for act in defined:
        assert ", ".join(k.toString(native) for k in act.shortcuts()) in keys, act.text()
    assert ("Ctrl+Shift+L", "Something added later", "window") in rows
    assert "Space" in keys and "F1" in keys and "Esc, Ctrl+W" in keys
    assert all(r[0] and r[1] and r[2] for r in rows), rows


def test_help_pages_open_in_the_app_never_through_the_desktop(
    window: MainWindow, urls: list[str]
) -> None:
    shown = []
    for act in window.menuBar().actions()[-1].menu().actions():
        if "docs/" in act.text():
            act.trigger()
            page = window.findChild(QDialog, "help-docs")
            assert page is not None and page.isVisible()
            shown.append(page.findChild(DocViewer).page)
    assert shown == [help.doc_page(page) for _, page in help.DOC_LINKS]
    assert urls == []  # a desktop with no Markdown viewer no longer makes Help do nothing
    assert help.open_doc(window, help.doc_page("quirks.md"))
    page = window.findChild(QDialog, "help-docs")
    assert "empty_string_continuation_id" in page.findChild(QTextBrowser).toPlainText()
    assert not help.open_doc(window, help.doc_page("gone.md"))
    assert "Not found" in window.statusBar().currentMessage()


def test_the_first_run_hint_shows_once(qtbot: Any) -> None:
    QSettings("toolcall-inspector", "toolcall-inspector").remove(help.FIRST_RUN_KEY)
    first = MainWindow()
    qtbot.addWidget(first)
    first.show()
    hint = first.statusBar().findChild(QLabel, "first-run-hint")
    assert hint is not None and hint.isVisible() and "Getting started" in hint.text()
    hint.linkActivated.emit("start")
    assert not hint.isVisible()
    assert first.findChild(QDialog, "help-getting-started").isVisible()
    again = MainWindow()
    qtbot.addWidget(again)
    assert again.statusBar().findChild(QLabel, "first-run-hint") is None


def test_moving_over_the_menus_keeps_the_status_line(window: MainWindow) -> None:
    from PySide6.QtGui import QStatusTipEvent
    from PySide6.QtWidgets import QApplication

    window.open(str(GLM))
    line = window.statusBar().currentMessage()
    assert "2 call(s)" in line
    for tip in ("", "Opens a capture", ""):  # Qt sends these as the pointer moves over items
        QApplication.sendEvent(window, QStatusTipEvent(tip))
        assert window.statusBar().currentMessage() == (tip or line)


def test_the_status_line_elides_beside_the_first_run_hint_and_keeps_the_capture(
    qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from inspector.ui.shell import statusline

    QSettings("toolcall-inspector", "toolcall-inspector").remove(help.FIRST_RUN_KEY)
    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(1280, 800)
    w.show()
    qtbot.waitExposed(w)
    qtbot.wait(50)  # laid out
    bar = w.statusBar()
    hint = bar.findChild(QLabel, "first-run-hint")
    assert hint is not None and hint.isVisible()
    painted: list[str] = []
    real = statusline.elided
    monkeypatch.setattr(statusline, "elided", lambda *a: painted.append(real(*a)) or painted[-1])
    path = "/home/someone/captures/20250101-120000-demo.jsonl"
    summary = "; ".join(
        f"attempt {n}: HTTP 200, 4061 bytes in 0.97 s (eof) → accepted" for n in (1, 2, 3)
    )
    for line in (f"done: {summary} · capture: {path}", f"done: {summary} {summary}"):
        bar.showMessage(line)
        bar.grab()  # paints it
        assert bar.toolTip() == bar.currentMessage() == line  # the whole text
        shown = painted[-1]
        assert "…" in shown and shown != line  # elided where it does not fit, with "…"
        assert bar.fontMetrics().horizontalAdvance(shown) <= bar.message_width()
        assert 6 + bar.message_width() <= hint.x()  # never under the hint
    assert painted[0].endswith(f"… · capture: {path}")  # a short path stays whole
    bar.showMessage(f"done: {summary} · capture: {path[:-6]}{'-long' * 40}.jsonl")
    bar.grab()
    assert painted[-1].startswith("done: attempt 1") and "… · capture: /home/" in painted[-1]
    assert painted[-1].endswith("-long.jsonl") and painted[-1].count("…") == 2  # its middle
    assert painted[1].endswith("…")  # the capture's path stays whole
