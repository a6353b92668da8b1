"""Menu items, and the recently opened files behind File ▸ Open Recent.

Invariants:
- The recent files live in the application's QSettings: newest first, at most
  ``MAX_RECENT``, no repeats. A sample (``resources/samples``) is never remembered.
- Menu items only call the window's intents.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

from PySide6.QtCore import QObject, QSettings
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu

SAMPLES = Path(__file__).resolve().parents[2] / "resources" / "samples"
"""The Samples menu lists this folder's captures."""
MAX_RECENT = 8


def add_action(
    menu: QMenu,
    text: str,
    slot: Callable[[], object],
    key: QKeySequence | QKeySequence.StandardKey | None = None,
    owner: QObject | None = None,
) -> QAction:
    """Add an item to ``menu`` that calls ``slot`` (the action belongs to ``owner``, by
    default the menu)."""
    act = QAction(text, owner or menu)
    if key is not None:
        act.setShortcut(key)
    act.triggered.connect(slot)
    menu.addAction(act)
    return act


class RecentFiles:
    """The files opened lately, and the menu that lists them."""

    def __init__(
        self, settings: QSettings, menu: QMenu, open_path: Callable[[str], object]
    ) -> None:
        self._settings, self.menu, self._open = settings, menu, open_path
        self.refresh()

    def paths(self) -> list[str]:
        """Newest first."""
        value = self._settings.value("recent", [])
        return [str(v) for v in (value if isinstance(value, list) else [value]) if v]

    def remember(self, path: str) -> None:
        """``path`` was opened: it goes first (unless it is a sample, or no file at all)."""
        if not Path(path).exists() or Path(path).parent == SAMPLES:
            return
        recent = [p for p in self.paths() if p != path]
        self._settings.setValue("recent", [path, *recent][:MAX_RECENT])
        self.refresh()

    def refresh(self) -> None:
        """List the paths again."""
        self.menu.clear()
        for p in self.paths():
            add_action(self.menu, p, partial(self._open, p))
        self.menu.setEnabled(bool(self.paths()))
