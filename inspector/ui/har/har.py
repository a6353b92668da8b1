"""HAR files in the window: opening one (a picker when it holds several LLM sessions) and
File ▸ Export as HAR….

Invariants:
- Opening a HAR goes through the same door as any file (:meth:`Host.open`: File ▸ Open, a
  drop, Open Recent, the command line). One LLM session opens at once; several ask
  which (:class:`HarPicker`: entry, method, path, model, status, dialect, and why a session
  cannot be shown); none, or a file that is no HAR, is the usual "cannot open" message.
- A session that cannot be shown (a body the exporter left out, a non-streaming reply) is
  shown as the document's notice, one line saying which exporter and why: never an empty
  view that looks like an empty stream.
- Export writes what is on show: the capture behind a replay (a file, a HAR session, a
  finished live or proxied session), or a running session's capture file as it stands.
  Secrets are redacted by the capture rule (:mod:`inspector.core.capture.harexport`).
- Headless use never waits on a dialog (:func:`~inspector.ui.base.dialogs.headless_instead`).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QStandardPaths
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QLabel,
    QMessageBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from inspector.core.base.errors import InspectorError
from inspector.core.capture import harexport
from inspector.core.capture.reader import load
from inspector.core.capture.records import Capture
from inspector.core.replay.harsessions import HarSession, HarSessions, is_har_file, load_sessions
from inspector.core.replay.sources import LiveSource
from inspector.ui.base.dialogs import headless_instead
from inspector.ui.document.host import Host

COLUMNS = ("Entry", "Method", "Path", "Model", "Status", "Dialect", "Note")
HAR_FILTER = "HAR files (*.har);;All files (*)"


def is_har(path: str) -> bool:
    """Does ``path`` hold a HAR (its first bytes, or a .har/.zhar name)?"""
    return is_har_file(path)


def open_har(host: Host, path: str, *, play: bool = False) -> bool:
    """Open the HAR at ``path``: its one LLM session, or the one the user picks."""
    doc = host.doc
    try:
        sessions = load_sessions(path)
    except InspectorError as exc:
        doc.failed.emit(path, str(exc))
        return False
    if not sessions.sessions:
        doc.failed.emit(path, sessions.none_reason())
        return False
    if len(sessions.sessions) == 1:
        session: HarSession | None = sessions.sessions[0]
    else:
        session = choose_session(host.window(), sessions)
    if session is None:
        return False
    return show_session(host, path, session, play=play)


def show_session(host: Host, path: str, session: HarSession, *, play: bool = False) -> bool:
    """Show ``session`` of the HAR at ``path`` (or, when it cannot be shown, why)."""
    if session.problem is not None:
        host.doc.show_notice(path, session.problem)
        return False
    host.doc.open_capture(session.capture, path, play=play)
    host.statusBar().showMessage(f"{Path(path).name}: {session.label}")
    return True


class HarPicker(QDialog):
    """Which LLM session of a HAR to open: one row per session, Open or Cancel."""

    def __init__(self, sessions: HarSessions, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("har-picker")
        self.setWindowTitle(f"Open {Path(sessions.name).name}")
        self.sessions = sessions.sessions
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(f"{Path(sessions.name).name}: {sessions.summary}. Open which?"))
        self.table = table = QTableWidget(len(self.sessions), len(COLUMNS))
        table.setHorizontalHeaderLabels(COLUMNS)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.verticalHeader().setVisible(False)
        for row, s in enumerate(self.sessions):
            note = s.problem or ("" if s.streamed else "not streamed")
            cells = (s.entry, s.method, s.path, s.model, s.status or "—", s.dialect or "?", note)
            for col, value in enumerate(cells):
                item = QTableWidgetItem(str(value))
                item.setToolTip(str(value))
                table.setItem(row, col, item)
        table.resizeColumnsToContents()
        table.setColumnWidth(6, min(table.columnWidth(6), 260))
        table.selectRow(next((i for i, s in enumerate(self.sessions) if not s.problem), 0))
        table.cellDoubleClicked.connect(lambda _row, _col: self.accept())
        layout.addWidget(table)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Open | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.resize(900, 360)

    @property
    def chosen(self) -> HarSession | None:
        """The session on the selected row."""
        rows = self.table.selectionModel().selectedRows()
        return self.sessions[rows[0].row()] if rows else None


def choose_session(parent: QWidget, sessions: HarSessions) -> HarSession | None:
    """The session to open (None: cancelled, or headless)."""
    name = Path(sessions.name).name
    if headless_instead(
        f"{sessions.name}: {sessions.summary}; the window asks which to open "
        f"(analyze {name} --entry N judges one without it)"
    ):
        return None
    picker = HarPicker(sessions, parent)
    if picker.exec() != QDialog.DialogCode.Accepted:
        return None
    return picker.chosen


# -- export ------------------------------------------------------------------------------


def current_capture(host: Host) -> Capture | None:
    """What File ▸ Export as HAR writes: the capture on show (see the module docstring)."""
    doc = host.doc
    if doc.replayer is not None:
        return doc.replayer.capture
    if isinstance(doc.source, LiveSource):
        path = _live_capture_path(host) or ""
    else:
        analysis = doc.analysis
        if analysis is not None and analysis.capture is not None:
            return analysis.capture
        path = doc.path or ""
    if not path or is_har_file(path):
        return None
    try:
        return load(path)
    except InspectorError:
        return None


def _live_capture_path(host: Host) -> str | None:
    """The capture file of the session whose Analysis is on show, as it stands: the Live
    bar's session, or the proxied request the proxy list opened."""
    analysis = host.doc.analysis
    for holder in host.running_sessions():
        if holder is not None and getattr(holder, "analysis", None) is analysis:
            path = getattr(holder, "capture_path", None)
            return str(path) if path else None
    return None


def export_dialog(host: Host) -> None:
    """File ▸ Export as HAR…: where to, then write it."""
    capture = current_capture(host)
    if capture is None:
        text = "Nothing to export: open a capture or run a session first."
        if not headless_instead(f"Export as HAR: {text}"):
            QMessageBox.information(host.window(), "Export as HAR", text)
        return
    if headless_instead("Export as HAR: a file dialog needs the window"):
        return
    path, _ = QFileDialog.getSaveFileName(
        host.window(), "Export as HAR", str(proposed_path(capture.path or host.doc.path)),
        HAR_FILTER,
    )  # fmt: skip
    if path:
        export_to(host, capture, path)


def proposed_path(source: str | None) -> Path:
    """Where Export as HAR proposes to write: the capture's name with ``.har``, in the user's
    Documents folder (else home), never the working directory (which is often the checkout
    the window was started from)."""
    folder = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    base = Path(folder) if folder and Path(folder).is_dir() else Path.home()
    return base / Path(source or "session").with_suffix(".har").name


def export_to(host: Host, capture: Capture, path: str) -> bool:
    """Write ``capture`` as HAR to ``path``; a failure is a message box, never a traceback."""
    try:
        har = harexport.to_har([capture])
        size = harexport.write(path, har)
    except InspectorError as exc:
        if not headless_instead(f"Export as HAR: {exc}"):
            QMessageBox.warning(host.window(), "Export as HAR", str(exc))
        return False
    entries = len(har["log"]["entries"])
    host.statusBar().showMessage(
        f"Exported {entries} entr{'ies' if entries != 1 else 'y'} ({size} bytes) to {path}, "
        "secrets redacted",
        10_000,
    )
    return True
