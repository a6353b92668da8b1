"""Help: Getting started, Keyboard shortcuts, the documentation pages, About, and the
first-run hint in the status bar.

Invariants:
- The shortcuts table is built, each time it opens, from the window's own actions and
  shortcuts (and the Compare window's closing keys, :data:`dialogs.CLOSE_KEYS`): it cannot
  drift from what the keys do.
- A documentation page opens through the desktop (``QDesktopServices.openUrl`` on the file's
  URL); when the desktop has no handler for it, the page is shown rendered in a window of our
  own, so a Help item never does nothing.
- The help windows are never modal through ``exec()`` (Help may be opened while a live session
  runs on the event loop); each exists once and comes to the front when asked for again.
- The first-run hint shows in the first window a user ever opens, and never again (QSettings).
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QAction, QDesktopServices, QKeySequence, QShortcut, QTextDocument
from PySide6.QtWidgets import (
    QDialog,
    QLabel,
    QMenu,
    QMessageBox,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from inspector import __version__
from inspector.core.base.resources import DOCS_PACKAGE, ResourcesMissing, doc
from inspector.ui.base.dialogs import CLOSE_KEYS, close_on_keys
from inspector.ui.shell.intents import Intents

PICTURE = ("images", "lanes-absent.png")
"""The picture Help ▸ Getting started explains (under the shipped ``docs/``)."""
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

GETTING_STARTED = """
<h2>What the window shows</h2>
<p>How a provider streamed its tool calls, fragment by fragment, and where they broke.
Open something first: <b>File ▸ Samples</b> (recorded streams that show one quirk each),
<b>File ▸ Open</b> or a file dropped on the window, or press <b>{run}</b> on the Live toolbar
to stream from the built-in demo provider (no API key needed).</p>
<p><img src="{picture}" width="640"></p>
<ul>
<li><b>Lanes</b> (top): one column per tool call, in wire-index order. The header shows the
id and name <i>exactly as received</i> (a value, omitted, <code>""</code>, <code>null</code> or
repaired); below it the call's verdict (valid, invalid, not checked when validation is off,
streaming while it is open). The table lists every fragment with its time, identity, text
(whitespace made visible), running length and the JSON state after it; a struck-through row
was dropped. <i>Buffer</i> is the argument text so far, <i>Parsed</i> the arguments once the
call is complete. When the lanes do not fit, a counter says how many are out of sight.</li>
<li><b>Raw wire</b> (bottom): every SSE event as it arrived, byte range included. Selecting a
fragment selects its event, and back. <b>Problems &amp; quirks</b> lists what is wrong and
where; <b>Clients</b> (View ▸ Clients) which client libraries (openai-python, LiteLLM,
LangChain …) would not hand your agent these calls, how, and from which chunk on (a badge on a
lane names the clients that get its call wrong); <b>Turn</b> the finish reason and text;
<b>Timeline</b> when each call opened and closed.</li>
<li><b>Attempts</b> (left): each request of the session with its outcome and, in a tool
loop, its round. Click one to show it. Closed it? <b>View ▸ Attempts panel</b> brings it back.</li>
<li><b>Toolbars</b>: <i>Validation</i> and <i>Empty id</i> re-judge the same stream at once
(<i>literal</i> reads an empty id as the <code>by-id</code> client does);
<i>Replay</i>, <i>Step</i>, the speed and the slider replay a capture. The Live toolbar picks a
profile, a model and a scenario and starts or stops a session; every session is recorded
(<b>File ▸ Recorded sessions</b>).</li>
</ul>
<p><b>View ▸ Compare</b> (Ctrl+D) judges the stream under two settings side by side.
<b>Help ▸ Keyboard shortcuts</b> lists every key; <b>Help ▸ Provider quirks</b> explains each
quirk code.</p>
"""


def getting_started(w: Intents) -> QDialog:
    """Help ▸ Getting started: what the window shows, around a picture of it."""

    def build() -> QWidget:
        text = QTextBrowser()
        text.setOpenExternalLinks(True)
        picture = QUrl.fromLocalFile(str(doc_page(*PICTURE))).toString()
        run = w.live_bar.start.text().replace("&", "")  # the button's own word
        text.setHtml(GETTING_STARTED.format(picture=picture, run=escape(run)))
        return text

    return _window(w.window(), "help-getting-started", "Getting started", build, (720, 700))


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
    """Open a documentation page with the desktop's viewer, or show it rendered here."""
    if not path.is_file():
        w.statusBar().showMessage(f"Not found: {path} (this install lacks the docs)", 15000)
        return False
    if QDesktopServices.openUrl(QUrl.fromLocalFile(str(path))):
        return True

    def build() -> QWidget:
        text = QTextBrowser()  # links to other pages open here, web links in the browser
        text.setOpenExternalLinks(True)
        text.setSource(QUrl.fromLocalFile(str(path)), QTextDocument.ResourceType.MarkdownResource)
        return text

    _window(w.window(), f"help-doc-{path.stem}", path.name, build, (820, 700))
    return True


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
