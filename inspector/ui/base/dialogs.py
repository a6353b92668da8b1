"""The window's dialogs: choosing files, asking for a dialect, telling about errors, and the
keys that close a secondary window.

Invariants:
- A dialog that may come up while a live session runs on the event loop is never modal
  through ``exec()`` (it would stall the loop): :func:`show_live_error` opens its box.
- Each function returns what the user chose (None or "" when they cancelled); none changes
  the document itself.
- Headless use of the window (``open --screenshot``, :func:`go_headless`) never shows or waits
  on a dialog: every function here passes its message, as one line, through
  :func:`headless_instead` to the report the app installed (which writes it to stderr and
  ends the process with exit 2), and returns what a cancelled dialog would.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox, QWidget

from inspector.core.providers import REGISTRY

CLOSE_KEYS = (QKeySequence(Qt.Key.Key_Escape), QKeySequence("Ctrl+W"))
"""The keys that close a secondary window (Compare, the help windows)."""
FILE_FILTER = (
    "Captures, SSE bodies and HAR files (*.jsonl *.sse *.txt *.log *.har *.zhar);;All files (*)"
)

Report = Callable[[str], None]
_headless: list[Report] = []  # the report while headless (at most one)


def go_headless(report: Report | None) -> None:
    """Headless use of the window: from now on no dialog is shown, each one's message goes to
    ``report`` as one line instead; None: dialogs again."""
    _headless[:] = [report] if report is not None else []


def headless_instead(line: str) -> bool:
    """In headless use, report ``line`` (one line: a dialog's title and message) instead of
    showing a dialog, and return True; otherwise do nothing and return False."""
    if not _headless:
        return False
    _headless[0](" ".join(line.split()))
    return True


def choose_capture(parent: QWidget, start: str) -> str:
    """A capture or SSE body to open, starting in folder ``start`` ("" if cancelled)."""
    if headless_instead("Open capture: a file dialog needs the window"):
        return ""
    path, _ = QFileDialog.getOpenFileName(parent, "Open capture", start, FILE_FILTER)
    return path


def choose_tools(parent: QWidget) -> str:
    """A tool definitions file ("" if cancelled)."""
    if headless_instead("Tool definitions: a file dialog needs the window"):
        return ""
    path, _ = QFileDialog.getOpenFileName(parent, "Tool definitions", "", "JSON (*.json)")
    return path


def choose_png(parent: QWidget) -> str:
    """Where to save a PNG of the window ("" if cancelled)."""
    if headless_instead("Export view as PNG: a file dialog needs the window"):
        return ""
    path, _ = QFileDialog.getSaveFileName(
        parent, "Export view as PNG", "inspector.png", "PNG (*.png)"
    )
    return path


def choose_dialect(
    parent: QWidget, name: str = "", chosen: Callable[[str], None] | None = None
) -> QInputDialog | None:
    """Ask which dialect to read a stream (file ``name``) in whose dialect no provider
    recognised: a window-modal question opened with ``open()`` (never ``exec()``: it is asked
    from the loop), which calls ``chosen`` with the dialect picked; nothing when cancelled.
    Returns the dialog (keep it), or None when headless (one line instead)."""
    where = f"{name}: " if name else ""
    if headless_instead(f"{where}the stream's dialect was not recognised (choose one in the "
                        "window, or run analyze --dialect)"):  # fmt: skip
        return None
    box = QInputDialog(parent)
    box.setWindowTitle("Unknown dialect")
    box.setLabelText("No provider recognises this stream. Read it as:")
    box.setComboBoxItems(list(REGISTRY.names()))
    box.setComboBoxEditable(False)
    if chosen is not None:
        box.textValueSelected.connect(chosen)
    box.open()
    return box


def cannot_open(parent: QWidget, path: str, reason: str) -> None:
    """A file could not be opened."""
    if headless_instead(reason if reason.startswith(path) else f"{path}: {reason}"):
        return
    QMessageBox.warning(parent, "Cannot open file", f"{path}\n\n{reason}")


def cannot_read_tools(parent: QWidget, reason: str) -> None:
    """A tool definitions file could not be read."""
    if headless_instead(f"cannot read tools: {reason}"):
        return
    QMessageBox.warning(parent, "Cannot read tools", reason)


def nothing_to_compare(parent: QWidget, loading: bool) -> None:
    """Compare needs a whole capture."""
    text = "The capture is still loading: compare once it is in." if loading else None
    if headless_instead(f"Compare: {text or 'Open a capture first.'}"):
        return
    QMessageBox.information(parent, "Compare", text or "Open a capture first.")


def show_live_error(parent: QWidget, text: str) -> QMessageBox | None:
    """Show a session error without blocking the loop; returns the box (it deletes itself
    when closed), None when headless."""
    if headless_instead(f"live session: {text}"):
        return None
    box = QMessageBox(
        QMessageBox.Icon.Warning, "Live session", text, QMessageBox.StandardButton.Ok, parent
    )
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box


def unexpected_error(parent: QWidget, text: str) -> None:
    """A bug surfaced (the excepthook): say so; the window keeps running."""
    if headless_instead(f"unexpected error: {text}"):
        return
    QMessageBox.critical(parent, "Unexpected error", f"{text}\n\nThe window keeps running.")


def close_on_keys(window: QWidget) -> None:
    """Esc and Ctrl+W close ``window`` (a secondary window: Compare, a help window)."""
    for key in CLOSE_KEYS:
        shortcut = QShortcut(key, window)
        shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
        shortcut.activated.connect(window.close)
