"""Desktop entry point: the application, its palette, the excepthook, and screenshot mode.

Invariant: no exception reaches the user as a traceback. The excepthook logs it to stderr
(one line plus the traceback only when TOOLCALL_INSPECTOR_DEBUG is set) and shows a message;
the window keeps running.
"""

from __future__ import annotations

import os
import sys
import traceback
from types import TracebackType

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from .mainwindow import SAMPLES, MainWindow
from .theme import apply_system_palette

DEFAULT_SAMPLE = SAMPLES / "glm-empty-string-continuations.jsonl"


def install_excepthook(window: MainWindow | None) -> None:
    """Route uncaught exceptions to a message box instead of a traceback on the terminal."""

    def hook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        print(f"toolcall-inspector: unexpected error: {kind.__name__}: {exc}", file=sys.stderr)
        if os.environ.get("TOOLCALL_INSPECTOR_DEBUG"):
            traceback.print_exception(kind, exc, tb)
        if window is not None and QApplication.instance() is not None:
            QMessageBox.critical(window, "Unexpected error",
                                 f"{kind.__name__}: {exc}\n\nThe window keeps running.")

    sys.excepthook = hook


def make_app() -> QApplication:
    """The QApplication (created once), with names for QSettings and the system palette."""
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = QApplication(sys.argv[:1])
        app.setApplicationName("Tool-Call Inspector")
        app.setOrganizationName("toolcall-inspector")
        apply_system_palette(app)
    return app


def run(path: str | None = None, screenshot: str | None = None, *,
        validation: str | None = None, empty_id: str | None = None, compare: bool = False) -> int:
    """Open the window (on ``path``, or a sample replaying) and run the event loop."""
    app = make_app()
    window = MainWindow()
    if screenshot:  # a picture must not depend on the last session's settings
        validation, empty_id = validation or "structural", empty_id or "absent"
    if validation or empty_id:
        window._apply(persist=False, **{
            k: v for k, v in (("validation", validation), ("empty_id", empty_id)) if v})
    install_excepthook(window)
    if screenshot:
        window.resize(1400, 900)  # the same picture whatever the last session's geometry
    window.show()
    if path:
        window.open(path)
    elif screenshot is None and DEFAULT_SAMPLE.exists():
        window.open(str(DEFAULT_SAMPLE), play=True)
    if compare and window.doc.replayer is not None:
        window.open_compare()
    if screenshot:
        return _screenshot(app, window, screenshot)
    return int(app.exec())


def _screenshot(app: QApplication, window: MainWindow, out: str) -> int:
    """Render once the document is loaded, save the PNG, and exit."""
    def shoot() -> None:
        if window.doc._worker is not None and window.doc._worker.is_alive():
            QTimer.singleShot(100, shoot)
            return
        target = window._compare if window._compare is not None else window
        ok = bool(target.grab().save(out, "PNG"))
        print(f"screenshot saved to {out}" if ok else f"could not write {out}", file=sys.stderr)
        window.close()
        app.exit(0 if ok else 2)

    QTimer.singleShot(400, shoot)
    return int(app.exec())
