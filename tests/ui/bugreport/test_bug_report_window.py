"""File ▸ Bug report… in the real window: the report of the capture on show, rendered (the
quirk's heading and the clients' table as rendered text, not Markdown source), Copy as
Markdown puts the Markdown on the clipboard, Save writes the four files; with nothing open it
says so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import qasync
from conftest import TESTS
from PySide6.QtGui import QAction, QGuiApplication

from inspector.ui.bugreport.bugreport import BugReportWindow
from inspector.ui.shell.mainwindow import MainWindow
from ui.waiting import until

GLM = TESTS / "clients" / "corpus" / "openai-chat" / "demo-glm-empty-string.jsonl"


def _item(window: MainWindow) -> QAction:
    item = window.findChild(QAction, "action-bug-report")
    assert item is not None
    return item


def _loaded(window: MainWindow, qloop: qasync.QEventLoop) -> None:
    """Open GLM and let the loop load it (the window is judged on the loop)."""
    assert window.open(str(GLM))
    qloop.run_until_complete(until(lambda: window.doc.analysis is not None))


def test_the_report_of_the_capture_on_show_renders_copies_and_saves(
    window: MainWindow, qloop: qasync.QEventLoop, tmp_path: Path
) -> None:
    _loaded(window, qloop)
    _item(window).trigger()
    shown = window.findChild(BugReportWindow, "bug-report")
    assert isinstance(shown, BugReportWindow) and shown.isVisible()
    rendered = shown.view.toPlainText()
    assert "empty_string_continuation_id" in rendered and "| client |" not in rendered
    assert "How to reproduce" in rendered
    shown.copy.click()
    assert QGuiApplication.clipboard().text().startswith("# ")
    assert "| `by-id` |" in QGuiApplication.clipboard().text()
    out = tmp_path / "saved"
    out.mkdir()
    assert shown.save_to(out)
    assert sorted(p.name for p in out.iterdir()) == [
        "capture.jsonl",
        "report.md",
        "repro.py",
        "test_regression.py",
    ]
    assert (out / "capture.jsonl").read_bytes() == GLM.read_bytes()
    _item(window).trigger()  # asked again: the same window, to the front
    assert window.findChildren(BugReportWindow) == [shown]


def test_with_nothing_open_it_says_so(window: MainWindow, monkeypatch: Any) -> None:
    said: list[str] = []
    monkeypatch.setattr(
        "inspector.ui.bugreport.bugreport.QMessageBox.information",
        lambda _parent, _title, text: said.append(text),
    )
    _item(window).trigger()
    assert said and "Nothing to report" in said[0]
