"""File ▸ Bug report…: the capture on show's bug report (what ``toolcall-inspector report``
writes, :mod:`inspector.core.reports.bugreport`) rendered in a window of its own, with Copy as
Markdown and Save (the report, the capture, the reproduction script and the regression test
into a folder).

Invariants: the window is never modal and exists once per main window (asked again, it is
rebuilt for what is on show and comes to the front); a capture that cannot be reported is one
information line; it starts no timer and no task.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QMessageBox,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
)

from inspector.core.analysis.session import Analysis
from inspector.core.base.errors import InspectorError
from inspector.core.capture.records import Capture
from inspector.core.providers import REGISTRY
from inspector.core.reduce.write import dump
from inspector.core.reports.bugreport.bundle import Bundle, bundle
from inspector.core.reports.clients import clients_verdict
from inspector.core.reports.gate import header_settings
from inspector.ui.base.dialogs import headless_instead
from inspector.ui.base.markdown import whole_headings
from inspector.ui.document.host import Host
from inspector.ui.document.onshow import capture_on_show

TITLE = "Bug report"


class BugReportWindow(QDialog):
    """The rendered report, Copy as Markdown and Save…."""

    def __init__(self, host: Host) -> None:
        super().__init__(host.window())
        self.setObjectName("bug-report")
        self.setWindowTitle(TITLE)
        self.host = host
        self.made: Bundle | None = None
        self.capture_bytes = b""
        self.view = QTextBrowser()
        self.view.setOpenExternalLinks(True)
        self.copy = QPushButton("Copy as Markdown")
        self.copy.setObjectName("bug-report-copy")
        self.copy.clicked.connect(self.copy_markdown)
        self.save = QPushButton("Save…")
        self.save.setObjectName("bug-report-save")
        self.save.clicked.connect(self.save_dialog)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.copy)
        row.addWidget(self.save)
        layout = QVBoxLayout(self)
        layout.addWidget(self.view, 1)
        layout.addLayout(row)
        self.resize(900, 700)

    def show_bundle(self, made: Bundle, capture_bytes: bytes) -> None:
        self.made, self.capture_bytes = made, capture_bytes
        self.view.setMarkdown(made.markdown)
        whole_headings(self.view.document())
        self.show()
        self.raise_()

    def copy_markdown(self) -> None:
        if self.made is not None:
            QGuiApplication.clipboard().setText(self.made.markdown)
            self.host.statusBar().showMessage("Copied the bug report as Markdown", 5_000)

    def save_dialog(self) -> None:
        if headless_instead(f"{TITLE}: a folder dialog needs the window"):
            return
        folder = QFileDialog.getExistingDirectory(self, "Save the bug report into")
        if folder:
            self.save_to(Path(folder))

    def save_to(self, folder: Path) -> bool:
        """Write the report, the capture, the script and the regression test into ``folder``."""
        made = self.made
        if made is None:
            return False
        try:
            (folder / made.capture_name).write_bytes(self.capture_bytes)
            (folder / "report.md").write_text(made.markdown)
            (folder / made.script_name).write_text(made.script)
            (folder / "test_regression.py").write_text(made.test)
        except OSError as exc:
            QMessageBox.information(self, TITLE, f"Cannot write into {folder}: {exc}")
            return False
        self.host.statusBar().showMessage(f"Saved the bug report into {folder}", 10_000)
        return True


def show_report(host: Host) -> BugReportWindow | None:
    """File ▸ Bug report…: the report of what is on show, in its window."""
    capture = capture_on_show(host)
    if capture is None or not capture.attempts:
        _say(host, "Nothing to report: open a capture first.")
        return None
    try:
        settings = header_settings(capture, host.doc.settings, REGISTRY)
        analysis = Analysis.from_capture(capture, settings, None, providers=REGISTRY)
        made = bundle(capture, analysis, clients_verdict(analysis), "provider")
    except InspectorError as exc:
        _say(host, str(exc))
        return None
    data = _bytes_of(capture)
    window = host.window().findChild(BugReportWindow, "bug-report")
    if not isinstance(window, BugReportWindow):
        window = BugReportWindow(host)
    window.show_bundle(made, data)
    return window


def _bytes_of(capture: Capture) -> bytes:
    if capture.path:
        try:
            return Path(capture.path).read_bytes()
        except OSError:
            pass
    return dump(capture, list(capture.attempts))


def _say(host: Host, text: str) -> None:
    if not headless_instead(f"{TITLE}: {text}"):
        QMessageBox.information(host.window(), TITLE, text)
