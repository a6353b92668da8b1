"""The status-bar progress of a progressive open: how much of the file is in, and Cancel.

Invariant: it never blocks (no modal dialog): the window stays usable while a file loads,
and Cancel keeps what was read (see :meth:`inspector.ui.document.document.Document.stop_loading`).
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QToolButton, QWidget


class LoadProgress(QWidget):
    """A label, a progress bar and a Cancel button; hidden while nothing loads."""

    cancel = Signal()
    """The user wants the load stopped (keeping what was read)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel()
        widest = "Loading 100 % (1,000,000 of 1,000,000)"  # a size that follows the text
        self.label.setFixedWidth(self.label.fontMetrics().horizontalAdvance(widest) + 8)  # lays
        # out the status bar, and repaints the window around it, at every flush
        self.bar = QProgressBar()
        self.bar.setFixedWidth(160)
        self.bar.setTextVisible(False)
        self.button = QToolButton()
        self.button.setText("Cancel")
        self.button.setToolTip("Stop loading and keep what was read so far")
        self.button.clicked.connect(self.cancel)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for w in (self.label, self.bar, self.button):
            layout.addWidget(w)
        self.hide()

    def show_progress(self, done: int, total: int) -> None:
        """(done, total) from ``Document.progress``; done < 0 hides the bar."""
        if done < 0:
            self.hide()
            return
        scale = max(1, total // 1_000_000)  # QProgressBar takes ints: keep them small
        self.bar.setRange(0, max(total // scale, 1))
        self.bar.setValue(done // scale)
        share = f"{100 * done / total:.0f} %" if total else ""
        text = f"Loading {share} ({_size(done)} of {_size(total)})"
        if text != self.label.text():
            self.label.setText(text)
        if self.isHidden():
            self.show()


def _size(n: int) -> str:
    """Bytes for people (a replay catching up counts steps; they read as plain numbers)."""
    return f"{n / 1e6:,.0f} MB" if n >= 10_000_000 else f"{n:,}"
