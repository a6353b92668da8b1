"""The live session's window: the shared one, with the demo provider's chunks 2 ms apart."""

from __future__ import annotations

import pytest

from inspector.ui.shell.mainwindow import MainWindow


@pytest.fixture
def window(window: MainWindow) -> MainWindow:
    """The window of ``tests/ui/conftest.py``; a demo stream takes milliseconds, not seconds."""
    window.live.demo_chunk_delay = 0.002
    return window
