"""What a window feature may ask of the window it lives in: the seam between the features (HAR
files, proxies, the matrix, the menus and Help) and the main window that builds them.

Invariants:
- A feature takes a :class:`Host`, never the main window's class: the main window imports the
  features to build them, so a feature that named it back would tie the two into one knot.
  The main window is a Host by its shape (mypy checks it where it hands itself over).
- Everything a feature changes goes through the document or the window's one door for files
  (:meth:`Host.open`); the Qt window itself (:meth:`Host.window`) is only a parent for a
  feature's dialogs and windows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QStatusBar, QWidget

from inspector.ui.document.document import Document


class Host(Protocol):
    """The window a feature lives in."""

    doc: Document
    """The open document: what is on show, and how it is judged."""
    settings: QSettings
    """The user's own choices, kept between runs."""

    def window(self) -> QWidget:
        """The top-level Qt window: the parent of a feature's dialogs and windows (Qt's own
        ``QWidget.window``)."""
        ...

    def statusBar(self) -> QStatusBar:
        """The window's status line."""
        ...

    def open(self, path: str, play: bool = False, *, remember: bool = True) -> bool:
        """Open a file as File ▸ Open does (a capture, a raw body, a HAR, a matrix folder);
        ``remember``: it heads File ▸ Open Recent."""
        ...

    def show_clients(self) -> None:
        """Bring the Clients view to the front."""
        ...

    def running_sessions(self) -> Sequence[object]:
        """The sessions running in the window (live, proxied), each with the ``analysis`` it
        feeds and the ``capture_path`` it writes (None: none of that kind)."""
        ...
