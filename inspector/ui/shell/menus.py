"""The window's menus, the files behind File ▸ Open Recent and File ▸ Recorded sessions.

Invariants:
- Open Recent lists the files the user opened (File ▸ Open, a drop, Samples, the command
  line, Open Recent itself) as absolute paths: newest first, at most ``MAX_RECENT``, no
  repeats, only files that still exist. It lives in the application's QSettings.
- The captures live sessions record on their own are never "recent files": File ▸ Recorded
  sessions lists the captures folder (``live.captures_dir``), newest first, read afresh each
  time the menu opens.
- Menu items only call the window's intents (:class:`~.intents.Intents`: the menus never name
  the main window's class, which builds them). Every action is named (``objectName``
  "action-…") so tests and Help ▸ Keyboard shortcuts can tell them apart.
- Moving over the menus never wipes the window's status line: Qt shows each item's status tip
  as the status bar's message and clears it with an empty one; :class:`StatusTips` puts the
  line back instead.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QSettings, Qt, QUrl
from PySide6.QtGui import QAction, QDesktopServices, QKeySequence, QShortcut, QStatusTipEvent
from PySide6.QtWidgets import QMenu, QToolBar, QWidget

from inspector.core.base.resources import ResourcesMissing, resource
from inspector.ui.bugreport import bugreport
from inspector.ui.har import har
from inspector.ui.live import live
from inspector.ui.shell.help import (
    DOC_LINKS,
    about,
    first_run_hint,
    getting_started,
    open_doc_page,
    shortcuts,
)
from inspector.ui.shell.intents import Intents

MAX_RECENT = 8
MAX_SESSIONS = 15
"""File ▸ Recorded sessions lists this many captures at most (the folder has them all)."""


def add_action(
    menu: QMenu,
    text: str,
    slot: Callable[[], object],
    key: QKeySequence | QKeySequence.StandardKey | None = None,
    owner: QObject | None = None,
) -> QAction:
    """Add an item to ``menu`` that calls ``slot`` (the action belongs to ``owner``, by
    default the menu). ``triggered`` carries a ``checked`` flag: it never reaches ``slot``."""
    act = QAction(text, owner or menu)
    act.setObjectName("action-" + "-".join(text.replace("&", "").rstrip("…").lower().split()))
    if key is not None:
        act.setShortcut(key)
    act.triggered.connect(lambda _checked=False: slot())
    menu.addAction(act)
    return act


class RecentFiles:
    """The files the user opened lately, and the menu that lists them."""

    def __init__(
        self, settings: QSettings, menu: QMenu, open_path: Callable[[str], object]
    ) -> None:
        self._settings, self.menu, self._open = settings, menu, open_path
        self.refresh()

    def paths(self) -> list[str]:
        """Newest first; relative paths (older versions stored some) and files that are gone
        are left out."""
        value = self._settings.value("recent", [])
        values = value if isinstance(value, list) else [value]
        paths = [str(v) for v in values if v]
        return [p for p in paths if os.path.isabs(p) and Path(p).is_file()]

    def remember(self, path: str) -> None:
        """The user opened ``path``: it goes first, as an absolute path."""
        path = os.path.abspath(path)
        if not Path(path).is_file():
            return
        recent = [p for p in self.paths() if p != path]
        self._settings.setValue("recent", [path, *recent][:MAX_RECENT])
        self.refresh()

    def refresh(self) -> None:
        """List the paths again."""
        _clear(self.menu)
        for p in self.paths():
            add_action(self.menu, p, partial(self._open, p))
        self.menu.setEnabled(bool(self.paths()))


class RecordedSessions:
    """File ▸ Recorded sessions: the captures live sessions wrote, newest first, and the
    folder they are in."""

    def __init__(self, menu: QMenu, open_path: Callable[[str], object]) -> None:
        self.menu, self._open = menu, open_path
        menu.aboutToShow.connect(self.refresh)
        self.refresh()

    @staticmethod
    def paths() -> list[Path]:
        """The captures folder's ``*.jsonl``, newest first."""
        try:
            found = [(p.stat().st_mtime, p) for p in live.captures_dir().glob("*.jsonl")]
        except OSError:
            return []
        return [p for _, p in sorted(found, key=lambda tp: (tp[0], tp[1].name), reverse=True)]

    def refresh(self) -> None:
        """List the folder again (a session may have ended since)."""
        _clear(self.menu)
        paths = self.paths()
        for p in paths[:MAX_SESSIONS]:
            add_action(self.menu, p.name, partial(self._open, str(p))).setToolTip(str(p))
        if not paths:
            add_action(self.menu, "(no live session recorded yet)", lambda: None).setEnabled(False)
        self.menu.addSeparator()
        add_action(self.menu, "Show folder", self.show_folder)

    @staticmethod
    def show_folder() -> bool:
        """Open the captures folder in the desktop's file manager."""
        return QDesktopServices.openUrl(QUrl.fromLocalFile(str(live.captures_dir())))


@dataclass
class Menus:
    """The menus a window keeps a hand on."""

    recent: RecentFiles
    """File ▸ Open Recent."""
    sessions: RecordedSessions
    """File ▸ Recorded sessions."""
    samples: QMenu
    """File ▸ Samples."""


def build_menus(w: Intents) -> Menus:
    """The menu bar of ``w`` (File, View, Live, Help), the window-wide Space shortcut, and the
    first-run hint that points at Help."""
    window = w.window()  # the actions' and shortcuts' owner
    m = w.menuBar().addMenu("&File")
    add_action(m, "&Open…", w.open_dialog, QKeySequence.StandardKey.Open, window)
    recent = _submenu(m, "Open &Recent", "menu-open-recent")
    sessions = _submenu(m, "Recorded &sessions", "menu-recorded-sessions")
    samples = _submenu(m, "Sa&mples", "menu-samples")
    _fill_samples(w, samples)
    m.addSeparator()
    add_action(m, "Load &tools file…", w.load_tools_dialog, None, window)
    add_action(m, "&Export view as PNG…", w.export_png_dialog, None, window)
    add_action(m, "Export as &HAR…", partial(har.export_dialog, w), None, window)
    add_action(m, "&Serve this capture…", w.serve_capture, None, window)
    add_action(m, "&Bug report…", partial(bugreport.show_report, w), None, window)
    m.addSeparator()
    add_action(m, "&Close", w.close_document, QKeySequence.StandardKey.Close, window)
    quit_key = QKeySequence("Ctrl+Q")  # StandardKey.Quit: none on Windows
    add_action(m, "&Quit", w.close, quit_key, window)
    v = w.menuBar().addMenu("&View")
    add_action(v, "&Replay from start", w.doc.replay, QKeySequence(Qt.Key.Key_F5), window)
    add_action(v, "&Compare settings side by side…", w.open_compare, QKeySequence("Ctrl+D"), window)
    clients = add_action(v, "C&lients", w.show_clients, QKeySequence("Ctrl+L"), window)
    clients.setStatusTip("What each client library would hand your agent from this stream")
    v.addSeparator()
    panels = [(w.attempts_dock.toggleViewAction(), "panel")]
    panels += [(t.toggleViewAction(), "toolbar") for t in _toolbars(window)]
    for act, kind in panels:  # a closed panel or toolbar comes back from here
        owner = act.parent()
        act.setObjectName(f"action-show-{owner.objectName() if owner else kind}")
        act.setText(f"{act.text()} {kind}")
        v.addAction(act)
    lm = w.menuBar().addMenu("&Live")
    proxy = add_action(lm, "&Proxy…", w.show_proxies, None, window)
    proxy.setStatusTip("Put a recording proxy in front of a provider: your agent's calls, live")
    matrix = add_action(lm, "&Matrix…", w.open_matrix, QKeySequence("Ctrl+M"), window)
    matrix.setStatusTip("Targets x scenarios run at once, filled live: which models break what")
    h = w.menuBar().addMenu("&Help")
    add_action(h, "&Getting started", lambda: getting_started(w), QKeySequence("F1"), window)
    add_action(h, "&Keyboard shortcuts", lambda: shortcuts(w), None, window)
    h.addSeparator()
    for title, page in DOC_LINKS:
        add_action(h, title, partial(open_doc_page, w, page), None, window)
    h.addSeparator()
    add_action(h, "&About Tool-Call Inspector", lambda: about(window), None, window)
    pause = QShortcut(QKeySequence(Qt.Key.Key_Space), window)
    pause.setContext(Qt.ShortcutContext.WindowShortcut)
    pause.setWhatsThis("Pause or resume the replay")
    pause.activated.connect(w.doc.toggle)
    window.installEventFilter(StatusTips(w))
    first_run_hint(w)
    return Menus(
        RecentFiles(w.settings, recent, w.open),
        RecordedSessions(sessions, partial(w.open, remember=False)),
        samples,
    )


class StatusTips(QObject):
    """Shows a status tip over the window's status line, then puts the line back (Qt's own
    handling clears the line each time the pointer moves onto a menu item without a tip)."""

    def __init__(self, window: Intents) -> None:
        super().__init__(window.window())
        self._window = window
        self._saved: tuple[str, str] | None = None  # (the line a tip covers, the tip)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.StatusTip or not isinstance(event, QStatusTipEvent):
            return False
        bar, tip = self._window.statusBar(), event.tip()
        if tip:
            line = self._saved[0] if self._saved is not None else bar.currentMessage()
            self._saved = (line, tip)
            bar.showMessage(tip)
        elif self._saved is not None:
            line, shown = self._saved
            if bar.currentMessage() == shown:  # not replaced by a newer line meanwhile
                bar.showMessage(line)
            self._saved = None
        return True


def _clear(menu: QMenu) -> None:
    """Empty ``menu``; its items go once control is back in the event loop (the item being
    triggered may be among them: ``QMenu.clear`` would delete it mid-signal)."""
    for act in menu.actions():
        menu.removeAction(act)
        if act.parent() is menu:
            act.deleteLater()


def _fill_samples(w: Intents, menu: QMenu) -> None:
    """File ▸ Samples: the shipped captures (``resources/samples``); an install without them
    says so in a disabled item instead of showing an empty menu."""
    try:
        paths = sorted(resource("samples").glob("*.jsonl"))
    except ResourcesMissing as exc:
        paths, why = [], str(exc)
    else:
        why = "no samples in this install"
    for path in paths:
        add_action(menu, path.stem, partial(w.open, str(path), True), None, w.window())
    if not paths:
        menu.addAction(why).setEnabled(False)


def _submenu(menu: QMenu, text: str, name: str) -> QMenu:
    sub = menu.addMenu(text)
    sub.setObjectName(name)
    return sub


def _toolbars(w: QWidget) -> list[QToolBar]:
    """The window's toolbars, in the order they were added."""
    return [t for t in w.findChildren(QToolBar) if t.parent() is w]
