"""The Qt runtime we depend on must not corrupt the interpreter (see the pin in pyproject)."""

from __future__ import annotations

import sys
from typing import Any

from PySide6.QtWidgets import QLabel


def test_void_qt_calls_do_not_release_none(qtbot: Any) -> None:
    """PySide6 6.12.0 on Python 3.11 dropped one reference to None per void call; the app then
    aborted with 'Fatal Python error: none_dealloc' after minutes of replay."""
    label = QLabel()
    qtbot.addWidget(label)
    before = sys.getrefcount(None)
    for _ in range(5000):
        label.setText("x")
    assert abs(sys.getrefcount(None) - before) < 100
