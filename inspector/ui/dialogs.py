"""The window's dialogs: choosing files, asking for a dialect, telling about errors.

Invariants:
- A dialog that may come up while a live session runs on the event loop is never modal
  through ``exec()`` (it would stall the loop): :func:`show_live_error` opens its box.
- Each function returns what the user chose (None or "" when they cancelled); none changes
  the document itself.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox, QWidget

from inspector.core.analysis.session import DIALECT_CHOICES

from .. import __version__

DOCS = Path(__file__).resolve().parents[2] / "README.md"
FILE_FILTER = "Captures and SSE bodies (*.jsonl *.sse *.txt *.log);;All files (*)"


def choose_capture(parent: QWidget, start: str) -> str:
    """A capture or SSE body to open, starting in folder ``start`` ("" if cancelled)."""
    path, _ = QFileDialog.getOpenFileName(parent, "Open capture", start, FILE_FILTER)
    return path


def choose_tools(parent: QWidget) -> str:
    """A tool definitions file ("" if cancelled)."""
    path, _ = QFileDialog.getOpenFileName(parent, "Tool definitions", "", "JSON (*.json)")
    return path


def choose_png(parent: QWidget) -> str:
    """Where to save a PNG of the window ("" if cancelled)."""
    path, _ = QFileDialog.getSaveFileName(
        parent, "Export view as PNG", "inspector.png", "PNG (*.png)"
    )
    return path


def choose_dialect(parent: QWidget) -> str | None:
    """The dialect to read a stream in whose dialect was not recognised (None: cancelled)."""
    choice, ok = QInputDialog.getItem(
        parent,
        "Unknown dialect",
        "The stream's dialect was not recognised. Read it as:",
        list(DIALECT_CHOICES[1:]),
        0,
        False,
    )
    return choice if ok else None


def cannot_open(parent: QWidget, path: str, reason: str) -> None:
    """A file could not be opened."""
    QMessageBox.warning(parent, "Cannot open file", f"{path}\n\n{reason}")


def cannot_read_tools(parent: QWidget, reason: str) -> None:
    """A tool definitions file could not be read."""
    QMessageBox.warning(parent, "Cannot read tools", reason)


def nothing_to_compare(parent: QWidget, loading: bool) -> None:
    """Compare needs a whole capture."""
    text = "The capture is still loading: compare once it is in." if loading else None
    QMessageBox.information(parent, "Compare", text or "Open a capture first.")


def show_live_error(parent: QWidget, text: str) -> QMessageBox:
    """Show a session error without blocking the loop; returns the box (it deletes itself
    when closed)."""
    box = QMessageBox(
        QMessageBox.Icon.Warning, "Live session", text, QMessageBox.StandardButton.Ok, parent
    )
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box


def about(parent: QWidget) -> None:
    """The About box."""
    QMessageBox.about(
        parent,
        "About Tool-Call Inspector",
        f"<b>Tool-Call Inspector</b> {__version__}<br>See, fragment by fragment, how an "
        f"LLM provider streams tool calls and where they break.<br><br>"
        f'<a href="{QUrl.fromLocalFile(str(DOCS)).toString()}">Documentation</a> '
        f"(README.md, docs/)",
    )
