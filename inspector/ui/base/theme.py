"""Colours, badges and palettes: how verdicts and identity presence look, in light and dark.

Invariant: a verdict or presence is never shown by colour alone: every badge has a word or
symbol too, so the window reads the same in greyscale and for colour-blind users.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from inspector.core.reports.report import (
    shown as shown,  # one spelling of identity-as-received, CLI and UI
)

#: presence kind -> (badge text, light colour, dark colour)
PRESENCE: dict[str, tuple[str, str, str]] = {
    "value": ("value", "#2e7d32", "#81c784"),
    "omitted": ("omitted", "#757575", "#9e9e9e"),
    "empty": ('""', "#c62828", "#ef9a9a"),
    "null": ("null", "#6a1b9a", "#ce93d8"),
    "null-string": ('"null"', "#ad1457", "#f48fb1"),
    "repaired": ("repaired", "#ef6c00", "#ffb74d"),
}

#: verdict -> (label with symbol, light colour, dark colour)
VERDICT: dict[str, tuple[str, str, str]] = {
    "valid": ("✔ valid", "#2e7d32", "#81c784"),
    "invalid": ("✖ INVALID", "#c62828", "#ef9a9a"),
    "orphan": ("○ orphan (left out)", "#757575", "#9e9e9e"),
    "streaming": ("… streaming", "#1565c0", "#90caf9"),
    "unchecked": ("– not checked", "#757575", "#9e9e9e"),
}


def is_dark() -> bool:
    """Does the current palette have a dark window background?"""
    app = QGuiApplication.instance()
    if app is None:
        return False
    return QGuiApplication.palette().color(QPalette.ColorRole.Window).lightness() < 128


def colour(entry: tuple[str, str, str]) -> QColor:
    """The light or dark colour of a PRESENCE/VERDICT entry, for the current palette."""
    return QColor(entry[2] if is_dark() else entry[1])


def badge_html(kind: str) -> str:
    """A small coloured badge with its word, as rich text."""
    text, light, dark = PRESENCE[kind]
    c = dark if is_dark() else light
    return (
        f'<span style="color:{c}; border:1px solid {c}; font-size:small">&nbsp;{text}&nbsp;</span>'
    )


def apply_system_palette(app: QApplication) -> None:
    """Fusion style with a light or dark palette that follows the system colour scheme."""
    app.setStyle("Fusion")
    hints = QGuiApplication.styleHints()
    dark = hints.colorScheme() == Qt.ColorScheme.Dark
    app.setPalette(dark_palette() if dark else app.style().standardPalette())


def dark_palette() -> QPalette:
    """A plain dark palette for Fusion."""
    p = QPalette()
    base, window, text = QColor("#1e1f22"), QColor("#2b2d30"), QColor("#dfe1e5")
    for role, c in (
        (QPalette.ColorRole.Window, window),
        (QPalette.ColorRole.WindowText, text),
        (QPalette.ColorRole.Base, base),
        (QPalette.ColorRole.AlternateBase, window),
        (QPalette.ColorRole.Text, text),
        (QPalette.ColorRole.Button, window),
        (QPalette.ColorRole.ButtonText, text),
        (QPalette.ColorRole.ToolTipBase, window),
        (QPalette.ColorRole.ToolTipText, text),
        (QPalette.ColorRole.Highlight, QColor("#2f65ca")),
        (QPalette.ColorRole.HighlightedText, QColor("#ffffff")),
        (QPalette.ColorRole.PlaceholderText, QColor("#8c8f94")),
        (QPalette.ColorRole.Link, QColor("#6fa8ff")),
    ):
        p.setColor(role, c)
    return p
