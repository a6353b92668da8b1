"""What the menus and Help ask of the main window: a :class:`~inspector.ui.document.host.Host`
with the window's own intents (open a file, compare, the proxies, the matrix …), the panels the
View menu lists and the Live toolbar's Run button, whose word Getting started quotes.

Invariant: the menus and Help take :class:`Intents`, never the main window's class (the main
window builds them); the main window is one by its shape, checked by mypy where it builds its
menus. A menu item only calls an intent: what it does is the window's or a feature's.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtWidgets import QDockWidget, QMenuBar

from inspector.ui.document.host import Host
from inspector.ui.live.bar import LiveToolBar


class Intents(Host, Protocol):
    """The main window as its menus and Help see it."""

    attempts_dock: QDockWidget
    """The attempts panel (View ▸ Attempts panel brings it back)."""
    live_bar: LiveToolBar
    """The Live toolbar."""

    def menuBar(self) -> QMenuBar:
        """The window's menu bar."""
        ...

    def close(self) -> bool:
        """File ▸ Quit (Qt's own ``QWidget.close``)."""
        ...

    def open_dialog(self) -> None:
        """File ▸ Open…"""
        ...

    def load_tools_dialog(self) -> None:
        """File ▸ Load tools file…"""
        ...

    def export_png_dialog(self) -> None:
        """File ▸ Export view as PNG…"""
        ...

    def close_document(self) -> None:
        """File ▸ Close."""
        ...

    def open_compare(self) -> None:
        """View ▸ Compare settings side by side…"""
        ...

    def serve_capture(self) -> None:
        """File ▸ Serve this capture…"""
        ...

    def show_proxies(self) -> None:
        """Live ▸ Proxy…"""
        ...

    def open_matrix(self, folder: str | None = None) -> bool:
        """Live ▸ Matrix…, on a saved matrix ``folder`` if given."""
        ...
