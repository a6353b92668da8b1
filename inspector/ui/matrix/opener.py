"""How the main window reaches the Matrix view: whether a path is a saved matrix, and the one
Matrix window it opens (created on first use, so the window starts without the matrix
modules).

Invariant: one Matrix window per main window; it opens a cell's capture through the main
window's own ``open`` (:meth:`~inspector.ui.document.host.Host.open`) and is never larger than
the screen.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtGui import QGuiApplication

from inspector.ui.base import dialogs, screenfit
from inspector.ui.document.host import Host
from inspector.ui.live import live

if TYPE_CHECKING:
    from inspector.ui.matrix.matrix import MatrixWindow

FILE_NAME = "matrix.json"  # inspector.core.matrix.result.FILE_NAME, without importing it


def is_matrix(path: str) -> bool:
    """Is ``path`` a matrix folder (holding ``matrix.json``) or a ``matrix.json``?"""
    p = Path(path)
    return (p / FILE_NAME).is_file() if p.is_dir() else p.name == FILE_NAME and p.is_file()


def matrices_dir() -> Path:
    """Where matrices run from the window are written (beside the live captures)."""
    return live.captures_dir().parent / "matrices"


def show(host: Host, window: MatrixWindow | None, folder: str | None) -> MatrixWindow:
    """Show ``window`` (created if None) over ``host``, on ``folder`` if given; returns it."""
    w = host.window()
    if window is None:
        from inspector.ui.matrix.matrix import MatrixWindow

        window = MatrixWindow(matrices_dir(), w)
        window.open_capture.connect(lambda path, client: _open_capture(host, path, client))
        dialogs.close_on_keys(window)
        screen = w.screen() or QGuiApplication.primaryScreen()
        # the screen's share, as the main window's first start (a 1600x1000 screen is not
        # left with a 1280x800 matrix whose client columns scroll off)
        window.setGeometry(screenfit.default_geometry(screen.availableGeometry()))
    if folder is not None and not window.open_folder(folder):
        dialogs.cannot_open(w, folder, window.status.text())  # headless: one line, exit 2
        return window
    window.show()
    window.raise_()
    return window


def _open_capture(host: Host, path: str, client: str) -> None:
    """A cell's capture in the lanes; a client column's in the Clients view too."""
    host.open(path)
    if client:
        host.show_clients()
    host.window().raise_()
