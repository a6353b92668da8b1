"""Desktop entry point (placeholder until the inspector window lands): shows the analyzer's
report for a file, or a welcome text, in a read-only window."""

from __future__ import annotations

import sys


def run(path: str | None = None) -> int:
    """Open the window and run the Qt event loop; returns the exit code."""
    from PySide6.QtGui import QFont
    from PySide6.QtWidgets import QApplication, QMainWindow, QPlainTextEdit

    app = QApplication.instance() or QApplication(sys.argv[:1])
    text = "Tool-Call Inspector\n\nOpen a capture with: toolcall-inspector open PATH\n"
    if path:
        from ..core import report
        from ..core.analysis import Analysis
        from ..core.capture import load

        text = report.to_text(Analysis.from_capture(load(path)), path)
    window = QMainWindow()
    window.setWindowTitle("Tool-Call Inspector")
    view = QPlainTextEdit(text)
    view.setReadOnly(True)
    view.setFont(QFont("monospace"))
    window.setCentralWidget(view)
    window.resize(1000, 600)
    window.show()
    return int(app.exec())
