"""The window's size and place on the screen it opens on.

Invariants:
- A window never opens larger than the available geometry of its screen (the desktop less
  its panels): a geometry remembered on a larger screen is shrunk and moved onto this one.
- With nothing remembered (a first start), the window takes :data:`SHARE` (90 %) of the
  available area, centred, on any screen: never maximized, never a fixed size. Later starts
  restore the saved geometry, pulled back onto the screen (:func:`clamped`).
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize
from PySide6.QtGui import QCursor, QGuiApplication, QScreen
from PySide6.QtWidgets import QWidget

SHARE = 0.9
"""The share of the available area (each way) a first start takes."""


def screen_of(window: QWidget, remembered: bool) -> QScreen:
    """The screen the window opens on: where its remembered geometry is, else the one under
    the mouse pointer (where window managers open new windows), else the primary one."""
    point = window.geometry().center() if remembered else QCursor.pos()
    return QGuiApplication.screenAt(point) or QGuiApplication.primaryScreen()


def default_geometry(available: QRect) -> QRect:
    """Where a window with nothing remembered goes: :data:`SHARE` of the available area each
    way, centred."""
    size = QSize(int(available.width() * SHARE), int(available.height() * SHARE))
    rect = QRect(QPoint(0, 0), size)
    rect.moveCenter(available.center())
    return rect


def clamped(geometry: QRect, available: QRect) -> QRect:
    """``geometry`` shrunk to fit ``available`` and moved into it."""
    rect = QRect(geometry.topLeft(), geometry.size().boundedTo(available.size()))
    x = min(max(rect.x(), available.x()), available.x() + available.width() - rect.width())
    y = min(max(rect.y(), available.y()), available.y() + available.height() - rect.height())
    rect.moveTo(x, y)
    return rect


def place(window: QWidget, remembered: bool) -> bool:
    """Size and place ``window`` (before it is shown) on the screen it opens on: a remembered
    geometry kept within the screen, else :func:`default_geometry`. Always False now (the
    window is never shown maximized on its own; kept for the callers' shape)."""
    available = screen_of(window, remembered).availableGeometry()
    if remembered:
        if not window.isMaximized():
            window.setGeometry(clamped(window.geometry(), available))
        return False
    window.setGeometry(default_geometry(available))
    return False
