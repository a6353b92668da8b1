"""The window the window's tests share (a test module may still define its own ``window``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QSettings

from inspector.ui.shell.mainwindow import MainWindow


@pytest.fixture
def window(
    qtbot: Any, qloop: qasync.QEventLoop, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[MainWindow]:
    """A fresh main window, shown: no remembered settings, no layout written back, live
    captures under ``tmp_path / "captures"``; closed after the test (sessions, proxies and
    servers stopped by ``aclose``)."""
    QSettings("toolcall-inspector", "toolcall-inspector").clear()
    monkeypatch.setattr("inspector.ui.live.live.captures_dir", lambda: tmp_path / "captures")
    w = MainWindow()
    w.persist_layout = False
    qtbot.addWidget(w)
    w.show()
    yield w
    qloop.run_until_complete(w.aclose())
