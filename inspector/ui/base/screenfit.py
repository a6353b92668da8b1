"""The window's size and place on the screen it opens on.

Invariants:
- A window never opens larger than the available geometry of its screen (the desktop less
  its panels): a geometry remembered on a larger screen is shrunk and moved onto this one.
- With nothing remembered, a laptop-sized screen (up to ``FILLED``) is filled (the window
  opens maximized, so the window manager fits the frame in); a larger one gets most of it, up
  to ``LARGEST``, centred. No fixed size: what fits is decided by the screen.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize
from PySide6.QtGui import QCursor, QGuiApplication, QScreen
from PySide6.QtWidgets import QWidget

FILLED = QSize(1440, 900)
"""A screen whose available area is at most this wide or high is filled."""
LARGEST = QSize(1800, 1100)
"""A window opened on a large screen is at most this big (it takes 90% of the screen)."""


def screen_of(window: QWidget, remembered: bool) -> QScreen:
    """The screen the window opens on: where its remembered geometry is, else the one under
    the mouse pointer (where window managers open new windows), else the primary one."""
    point = window.geometry().center() if remembered else QCursor.pos()
    return QGuiApplication.screenAt(point) or QGuiApplication.primaryScreen()


def fills(available: QRect) -> bool:
    """Is the screen small enough that the window should take all of it?"""
    return available.width() <= FILLED.width() or available.height() <= FILLED.height()


def default_geometry(available: QRect) -> QRect:
    """Where a window with nothing remembered goes: all of a small screen, most of a large
    one (centred)."""
    if fills(available):
        return QRect(available)
    size = QSize(
        max(FILLED.width(), min(LARGEST.width(), int(available.width() * 0.9))),
        max(FILLED.height(), min(LARGEST.height(), int(available.height() * 0.9))),
    ).boundedTo(available.size())
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
    geometry kept within the screen, else :func:`default_geometry`. True when the window
    should fill the screen (show it maximized)."""
    available = screen_of(window, remembered).availableGeometry()
    if remembered:
        if not window.isMaximized():
            window.setGeometry(clamped(window.geometry(), available))
        return False
    window.setGeometry(default_geometry(available))
    return fills(available)
