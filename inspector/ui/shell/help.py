"""Help: Getting started, Keyboard shortcuts, the documentation pages, About, and the
first-run hint in the status bar.

Invariants:
- The shortcuts table is built, each time it opens, from the window's own actions and
  shortcuts (and the Compare window's closing keys, :data:`dialogs.CLOSE_KEYS`): it cannot
  drift from what the keys do.
- A documentation page, Getting started included, opens in the app's own viewer
  (:mod:`.docviewer`: Qt renders the Markdown, with its pictures and links), never through the
  desktop, so a Help item never does nothing.
- The help windows are never modal through ``exec()`` (Help may be opened while a live session
  runs on the event loop); each exists once and comes to the front when asked for again.
- The first-run hint shows in the first window a user ever opens, and never again (QSettings).
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QDialog,
    QLabel,
    QMenu,
    QMessageBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from inspector import __version__
from inspector.core.base.resources import DOCS_PACKAGE, ResourcesMissing, doc
from inspector.ui.base.dialogs import CLOSE_KEYS, close_on_keys
from inspector.ui.shell.docviewer import DocViewer
from inspector.ui.shell.intents import Intents

DOC_LINKS = (
    ("Provider &quirks (docs/quirks.md)", "quirks.md"),
    ("&Demo provider (docs/demo-provider.md)", "demo-provider.md"),
    ("&Words used (docs/glossary.md)", "glossary.md"),
    ("&Captures and HAR files (docs/captures.md)", "captures.md"),
    ("Recording &proxy (docs/proxy.md)", "proxy.md"),
    ("Compatibility &matrix (docs/matrix.md)", "matrix.md"),
)
"""Help's documentation items: (menu text, page under the shipped ``docs/``)."""
FIRST_RUN_KEY = "first_run_hint_shown"

GETTING_STARTED_PAGE = "getting-started.md"
"""Help ▸ Getting started: live, proxy, matrix and clients, around pictures of each (and the
contents page of the documentation viewer)."""


def getting_started(w: Intents) -> QDialog:
    """Help ▸ Getting started, in the documentation viewer."""
    return _viewer(w, "help-getting-started", doc_page(GETTING_STARTED_PAGE))


def shortcut_rows(w: Intents) -> list[tuple[str, str, str]]:
    """(keys, what it does, where) for every key the window defines: menu items with their
    menu, other actions, window shortcuts, and the Compare window's closing keys."""
    rows: list[tuple[str, str, str]] = []
    seen: set[int] = set()

    def walk(menu: QMenu, where: str) -> None:
        for act in menu.actions():
            sub = act.menu()
            if isinstance(sub, QMenu):
                walk(sub, f"{where} ▸ {_plain(act.text())}")
                continue
            seen.add(id(act))
            if act.shortcuts():
                rows.append((_keys(act.shortcuts()), _plain(act.text()), where))

    for top in w.menuBar().actions():
        if isinstance(top.menu(), QMenu):
            walk(top.menu(), _plain(top.text()))  # type: ignore[arg-type]
    window = w.window()
    for act in window.findChildren(QAction):
        if id(act) not in seen and act.shortcuts() and act.text():
            rows.append((_keys(act.shortcuts()), _plain(act.text()), "window"))
    for sc in window.findChildren(QShortcut):  # its own: not a help or Compare window's
        if sc.parent() is not window:
            continue
        rows.append((_keys([sc.key()]), sc.whatsThis() or sc.objectName(), "window"))
    rows.append((_keys(list(CLOSE_KEYS)), "Close the window", "Compare and help windows"))
    return rows


def shortcuts(w: Intents) -> QDialog:
    """Help ▸ Keyboard shortcuts: a table of :func:`shortcut_rows`."""

    def build() -> QWidget:
        rows = shortcut_rows(w)
        table = QTableWidget(len(rows), 3)
        table.setHorizontalHeaderLabels(["Keys", "Does", "Where"])
        table.verticalHeader().hide()
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                table.setItem(r, c, QTableWidgetItem(text))
        table.resizeColumnsToContents()  # a few dozen rows: cheap
        table.horizontalHeader().setStretchLastSection(True)
        return table

    return _window(w.window(), "help-shortcuts", "Keyboard shortcuts", build, (560, 420))


def doc_page(*parts: str) -> Path:
    """A file of the shipped ``docs/``; where the install lacks it, the path it would have
    (:func:`open_doc` then says it is not found)."""
    try:
        return doc(*parts)
    except ResourcesMissing:
        return Path(DOCS_PACKAGE.replace(".", "/"), *parts)


def open_doc(w: Intents, path: Path) -> bool:
    """Show a documentation page in the documentation viewer (never through the desktop: see
    :mod:`.docviewer`); False, said in the status bar, when this install lacks it."""
    if not path.is_file():
        w.statusBar().showMessage(f"Not found: {path} (this install lacks the docs)", 15000)
        return False
    _viewer(w, "help-docs", path)
    return True


def _viewer(w: Intents, name: str, page: Path) -> QDialog:
    """The viewer window ``name`` (made once), on ``page``."""
    home = doc_page(GETTING_STARTED_PAGE)
    dialog = _window(w.window(), name, page.name, lambda: DocViewer(page, home), (960, 760))
    viewer = dialog.findChild(DocViewer)
    if viewer is not None and viewer.page != page:
        viewer.show_page(page)
    return dialog


def open_doc_page(w: Intents, page: str) -> bool:
    """Open one of :data:`DOC_LINKS`' pages (:func:`open_doc`)."""
    return open_doc(w, doc_page(page))


def about(parent: QWidget) -> None:
    """The About box."""
    QMessageBox.about(
        parent,
        "About Tool-Call Inspector",
        f"<b>Tool-Call Inspector</b> {escape(__version__)}<br>See, fragment by fragment, how "
        f"an LLM provider streams tool calls and where they break.<br><br>"
        f'<a href="{QUrl.fromLocalFile(str(doc_page())).toString()}">'
        f"Documentation</a> (docs/, as installed) · Help ▸ Getting started (F1)",
    )


def first_run_hint(w: Intents) -> QLabel | None:
    """Point a first-time user at Getting started, in the status bar (once per user)."""
    if w.settings.value(FIRST_RUN_KEY, False, type=bool):
        return None
    w.settings.setValue(FIRST_RUN_KEY, True)
    hint = QLabel('New here? <a href="start">Getting started</a> (F1) <a href="hide">✕</a>')
    hint.setObjectName("first-run-hint")
    hint.setTextFormat(Qt.TextFormat.RichText)
    hint.setToolTip("Help ▸ Getting started (F1): shown once, the first time the window opens")

    def clicked(link: str) -> None:
        hint.hide()
        if link == "start":
            getting_started(w)

    hint.linkActivated.connect(clicked)
    w.statusBar().addPermanentWidget(hint)
    return hint


def _window(
    owner: QWidget, name: str, title: str, build: Callable[[], QWidget], size: tuple[int, int]
) -> QDialog:
    """A help window of ``owner``, made once (``build`` gives its content); shown and raised,
    never larger than the screen it opens on, closed by Esc or Ctrl+W."""
    dialog = owner.findChild(QDialog, name)
    if dialog is None:
        dialog = QDialog(owner)
        dialog.setObjectName(name)
        dialog.setWindowTitle(f"{title} — Tool-Call Inspector")
        QVBoxLayout(dialog).addWidget(build())
        screen = owner.screen().availableGeometry()
        dialog.resize(min(size[0], screen.width() - 40), min(size[1], screen.height() - 60))
        close_on_keys(dialog)
    dialog.show()
    dialog.raise_()
    dialog.activateWindow()
    return dialog


def _plain(text: str) -> str:
    """A menu text without its mnemonic and ellipsis."""
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").rstrip("…")


def _keys(keys: list[QKeySequence]) -> str:
    return ", ".join(k.toString(QKeySequence.SequenceFormat.NativeText) for k in keys)
