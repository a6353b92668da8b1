"""Every menu item and every toolbar control of a fresh window works: triggering each one
raises nothing, logs no Qt warning, shows no warning or critical box, leaves no traceback, and
blocks on nothing.

The items are found by walking the window's menus (submenus included: Open Recent, Recorded
sessions, Samples, Help …) and toolbars when the test runs, so an item a later change adds is
covered without touching this file; a minimum count keeps the walk from passing over nothing.
The modal pieces are patched to answer at once (file dialogs: cancelled; message boxes and
``QDialog.exec``: recorded; ``QDesktopServices.openUrl``: recorded). File ▸ Quit is tested on
its own, through the application's real event loop.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QSettings, QtMsgType, QUrl
from PySide6.QtGui import QAction, QDesktopServices
from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QDialog,
    QFileDialog,
    QInputDialog,
    QMenu,
    QMessageBox,
    QToolBar,
    QToolButton,
)

from inspector.core.base.resources import resource
from inspector.ui.shell.app import install_excepthook, run_event_loop
from inspector.ui.shell.docviewer import DocViewer
from inspector.ui.shell.help import DOC_LINKS, doc_page
from inspector.ui.shell.mainwindow import MainWindow
from ui.waiting import until

SAMPLES = resource("samples")
MIN_MENU_ITEMS = 25
"""File (Open, one recent file, one recorded session + Show folder, 8 samples, tools, export,
Close), View (Replay, Compare, 3 panels), Help (5): fewer means the walk went wrong."""
MIN_TOOLBAR_CONTROLS = 12
PLATFORM_NOISE = (
    "This plugin does not support propagateSizeHints()",
    "This plugin does not support raise()",
)
"""What Qt's offscreen platform itself says of any window (a real X server does not)."""


class Modals:
    """What the patched modal pieces were asked to show."""

    def __init__(self) -> None:
        self.boxes: list[tuple[str, str]] = []
        """(kind, text) of every message box: about, information, question, warning, …"""
        self.dialogs: list[str] = []
        """Class names of the dialogs run through ``exec``."""
        self.urls: list[QUrl] = []

    def bad_boxes(self) -> list[tuple[str, str]]:
        return [b for b in self.boxes if b[0] in ("warning", "critical")]


@pytest.fixture
def modals(monkeypatch: pytest.MonkeyPatch) -> Modals:
    seen = Modals()
    for name in ("getOpenFileName", "getSaveFileName", "getOpenFileNames"):
        monkeypatch.setattr(QFileDialog, name, staticmethod(lambda *a, **k: ("", "")))
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: ""))
    monkeypatch.setattr(QInputDialog, "getItem", staticmethod(lambda *a, **k: ("", False)))
    monkeypatch.setattr(QInputDialog, "getText", staticmethod(lambda *a, **k: ("", False)))
    for kind in ("about", "aboutQt", "information", "question", "warning", "critical"):

        def box(*args: Any, _kind: str = kind, **_k: Any) -> QMessageBox.StandardButton:
            texts = [a for a in args if isinstance(a, str)]
            seen.boxes.append((_kind, " / ".join(texts)))
            return QMessageBox.StandardButton.No

        monkeypatch.setattr(QMessageBox, kind, staticmethod(box))
    icons = {QMessageBox.Icon.Warning: "warning", QMessageBox.Icon.Critical: "critical"}

    def shown(box: QMessageBox) -> int:  # exec() and open() of a box built by hand
        seen.boxes.append((icons.get(box.icon(), "information"), box.text()))
        return 0

    monkeypatch.setattr(QMessageBox, "exec", shown)
    monkeypatch.setattr(QMessageBox, "open", shown)

    def run(dialog: QDialog) -> int:
        seen.dialogs.append(type(dialog).__name__)
        return int(QDialog.DialogCode.Rejected)

    monkeypatch.setattr(QDialog, "exec", run)

    def open_url(url: QUrl) -> bool:
        seen.urls.append(QUrl(url))
        return True

    monkeypatch.setattr(QDesktopServices, "openUrl", staticmethod(open_url))
    return seen


@pytest.fixture
def window(
    qtbot: Any, qloop: qasync.QEventLoop, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[MainWindow]:
    """A fresh window with one recent file and one recorded live session to list."""
    sessions = tmp_path / "captures"
    sessions.mkdir()
    shutil.copy(SAMPLES / "retry-truncated-then-valid.jsonl", sessions / "20250101-demo.jsonl")
    monkeypatch.setattr("inspector.ui.live.live.captures_dir", lambda: sessions)
    recent = tmp_path / "opened-before.jsonl"
    shutil.copy(SAMPLES / "anthropic-parallel-tool-use.jsonl", recent)
    settings = QSettings("toolcall-inspector", "toolcall-inspector")
    settings.clear()  # fresh: no choices left by other tests (a live profile needing a key)
    settings.setValue("recent", [str(recent)])
    w = MainWindow()
    w.live.demo_chunk_delay = 0.2  # still streaming when the walk reaches Stop
    qtbot.addWidget(w)
    w.show()
    yield w
    w.doc.pause()
    qloop.run_until_complete(w.aclose())
    settings.remove("recent")


def menu_items(menu: QMenu, where: str = "") -> list[tuple[str, QAction]]:
    """Every item of ``menu`` and its submenus, as ("File ▸ Samples ▸ name", action)."""
    items: list[tuple[str, QAction]] = []
    for act in menu.actions():
        text = act.text().replace("&", "")
        path = f"{where} ▸ {text}" if where else text
        sub = act.menu()
        if isinstance(sub, QMenu):
            items += menu_items(sub, path)
        elif not act.isSeparator():
            items.append((path, act))
    return items


def all_menu_items(w: MainWindow) -> list[tuple[str, QAction]]:
    return [
        item
        for top in w.menuBar().actions()
        if isinstance(top.menu(), QMenu)
        for item in menu_items(top.menu(), top.text().replace("&", ""))  # type: ignore[arg-type]
    ]


@pytest.fixture(autouse=True)
def default_exception_handler(qloop: qasync.QEventLoop) -> Iterator[None]:
    """The run's one loop gets its default exception handler back after each test here."""
    yield
    qloop.set_exception_handler(None)


class Trouble:
    """Exceptions (through the app's excepthook, whose box is recorded), asyncio task errors
    and Qt warnings seen while the window is used."""

    def __init__(self, qloop: qasync.QEventLoop, qtlog: Any, modals: Modals) -> None:
        self.errors: list[str] = []
        self._qtlog, self._modals = qtlog, modals
        qloop.set_exception_handler(lambda _loop, ctx: self.errors.append(str(ctx)))

    def check(self, doing: str) -> None:
        warnings = [
            r.message
            for r in self._qtlog.records
            if r.type in (QtMsgType.QtWarningMsg, QtMsgType.QtCriticalMsg, QtMsgType.QtFatalMsg)
            and r.message not in PLATFORM_NOISE
        ]
        bad = self._modals.bad_boxes()
        assert not (self.errors or warnings or bad), f"{doing}: {self.errors} {warnings} {bad}"


def settle(qloop: qasync.QEventLoop, w: MainWindow) -> None:
    """Let the loop run what the trigger started: a live session gets to streaming (or ends)."""

    async def steady() -> None:
        await asyncio.sleep(0.02)
        await until(lambda: not (w.live._tasks and not w.live.running))

    qloop.run_until_complete(steady())


def test_every_menu_item_and_toolbar_control_works(
    window: MainWindow,
    modals: Modals,
    qloop: qasync.QEventLoop,
    qtlog: Any,
    monkeypatch: pytest.MonkeyPatch,
    capfd: Any,
) -> None:
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    install_excepthook(window)  # an exception in a slot becomes a recorded critical box
    trouble = Trouble(qloop, qtlog, modals)
    skip = {"action-quit"}  # tested on its own, below
    keys = [path for path, act in all_menu_items(window) if act.objectName() not in skip]
    assert any("Open Recent ▸ " in k for k in keys), keys
    assert any("Recorded sessions ▸ 20250101-demo" in k for k in keys), keys
    assert sum("Samples ▸ " in k for k in keys) == len(list(SAMPLES.glob("*.jsonl")))
    triggered: list[str] = []
    for key in keys:
        # items are looked up again each time: a menu that lists files is rebuilt as they open
        act = dict(all_menu_items(window)).get(key)
        assert act is not None, f"{key} went away while the menus were being walked"
        if not act.isEnabled():
            continue
        before = act.isChecked()
        act.trigger()
        if act.isCheckable():  # a panel or toolbar toggled off comes back the same way
            assert act.isChecked() != before, key
            act.trigger()
            assert act.isChecked() == before, key
        settle(qloop, window)
        trouble.check(key)
        triggered.append(key)
    assert len(triggered) >= MIN_MENU_ITEMS, triggered
    assert any(k.startswith("View ▸ Attempts") for k in triggered), triggered
    assert "File ▸ Serve this capture…" in triggered, triggered  # with a sample on show:
    assert window.serving.panel is not None and window.serving.panel.url.text(), "no server"

    window.samples_menu.actions()[0].trigger()  # the replay controls need a capture
    used: list[str] = []
    disabled: list[str] = []
    for name, use in toolbar_controls(window):
        if use():
            settle(qloop, window)
            trouble.check(name)
            used.append(name)
        else:
            disabled.append(name)
    assert len(used) >= MIN_TOOLBAR_CONTROLS, (used, disabled)
    session = window.live.session  # the Live toolbar's run button ran one, its stop stopped it
    assert session is not None and session.state == "cancelled", (used, disabled)
    settle(qloop, window)
    trouble.check("the toolbars")

    opened = [u.toLocalFile() for u in modals.urls]
    viewer = window.findChild(QDialog, "help-docs").findChild(DocViewer)  # the last page asked
    assert viewer.page == doc_page(DOC_LINKS[-1][1]), viewer.page
    assert not any(o.endswith(".md") for o in opened), opened  # pages open in the app
    assert all(Path(p).exists() for p in opened), opened  # the sessions folder
    assert "about" in {kind for kind, _ in modals.boxes}, modals.boxes
    assert "Traceback" not in capfd.readouterr().err


def toolbar_controls(w: MainWindow) -> list[tuple[str, Callable[[], bool]]]:
    """Each button, check box and choice of every toolbar, as (name, use it): using returns
    False when the control is disabled at that moment (Stop before a session runs)."""
    controls: list[tuple[str, Callable[[], bool]]] = []
    for bar in w.findChildren(QToolBar):
        for act in bar.actions():
            widget = bar.widgetForAction(act)
            menu = widget.menu() if isinstance(widget, QToolButton) else None
            if isinstance(menu, QMenu):  # its items, not the click that pops it up
                for path, item in menu_items(menu, f"{bar.windowTitle()} ▸ {widget.text()}"):
                    controls.append((path, _trigger(item)))
            if isinstance(widget, QAbstractButton) and not _pops_up(widget):
                controls.append((f"{bar.windowTitle()} ▸ {widget.text()}", _clicker(widget)))
            elif isinstance(widget, QComboBox):
                name = f"{bar.windowTitle()} ▸ choice {widget.currentText()!r}"
                controls.append((name, _chooser(widget)))
            elif not widget and not act.isSeparator():
                controls.append((f"{bar.windowTitle()} ▸ {act.text()}", _trigger(act)))
    return controls


def _pops_up(button: QAbstractButton) -> bool:
    """Does clicking ``button`` only pop its menu up (a modal menu loop)?"""
    return (
        isinstance(button, QToolButton)
        and button.menu() is not None
        and button.popupMode() == QToolButton.ToolButtonPopupMode.InstantPopup
    )


def _clicker(button: QAbstractButton) -> Callable[[], bool]:
    def use() -> bool:
        if not button.isEnabled():
            return False
        button.click()
        if button.isCheckable():  # back as it was: the walk should not change the settings
            button.click()
        return True

    return use


def _chooser(box: QComboBox) -> Callable[[], bool]:
    def use() -> bool:
        if not box.isEnabled() or not box.count():
            return False
        first = box.currentIndex()
        for i in [*range(box.count()), first]:
            box.setCurrentIndex(i)
            box.activated.emit(i)
        return True

    return use


def _trigger(act: QAction) -> Callable[[], bool]:
    def use() -> bool:
        if not act.isEnabled():
            return False
        act.trigger()
        if act.isCheckable():  # back as it was
            act.trigger()
        return True

    return use


def test_quit_closes_the_window_and_ends_the_loop_cleanly(
    qapp: Any, qloop: qasync.QEventLoop, modals: Modals, capfd: Any
) -> None:
    """File ▸ Quit mid-replay, through the application's own loop: the loop ends with 0, the
    window is closed, no timer or task is left, nothing is printed as a traceback."""
    w = MainWindow()
    w.persist_layout = False
    quit_item = w.findChild(QAction, "action-quit")
    assert quit_item is not None and quit_item.shortcut().toString()
    w.show()
    w.open(str(SAMPLES / "large-arguments.jsonl"), play=True)
    assert w.doc.playing

    def start(quit_with: Callable[[int], None]) -> None:
        loop = asyncio.get_running_loop()
        loop.call_later(0.1, quit_item.trigger)
        loop.call_later(5, quit_with, 1)  # Quit did not end the loop: fail, do not hang

    previous = qapp.quitOnLastWindowClosed()
    try:
        code = run_event_loop(qapp, start, w.aclose)
    finally:
        qapp.setQuitOnLastWindowClosed(previous)
        asyncio.set_event_loop(qloop)
    assert code == 0
    assert not w.isVisible() and not w.doc.playing and not w.doc._timer.isActive()
    assert not w.live._tasks
    err = capfd.readouterr().err
    assert "Traceback" not in err and "Task was destroyed" not in err, err
    assert not modals.bad_boxes()
