"""A run that never got a byte (a refused connection) has no stream: the counter says so
instead of "2 / 2 chunks" (the replay plan's one empty step per attempt), replay is off, and
the lanes say the request failed, as a 401's do."""

from __future__ import annotations

import socket
from dataclasses import replace
from typing import Any

import pytest
import qasync

from inspector.core.requests import scenarios
from inspector.ui.shell.mainwindow import MainWindow
from ui.waiting import run_live


def closed_port() -> int:
    with socket.socket() as s:  # bound, then closed: nothing listens there
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def window(window: MainWindow, monkeypatch: pytest.MonkeyPatch) -> MainWindow:
    """The shared fresh window (tests/ui/conftest.py) at 1280x800, every profile's base URL
    a port where nothing listens."""
    port = closed_port()

    def find_profile(name: str, extra: Any = None) -> scenarios.Profile:
        profile = scenarios.find_profile(name, extra)
        return replace(profile, base_url=f"http://127.0.0.1:{port}/v1")

    monkeypatch.setattr("inspector.ui.live.live.find_profile", find_profile)
    window.resize(1280, 800)
    return window


def test_a_refused_connection_shows_no_stream_not_a_chunk_count(
    window: MainWindow, qloop: qasync.QEventLoop
) -> None:
    window.live_bar.select("ollama", "qwen2.5:7b", "weather")

    run_live(window, qloop)
    session = window.live.session
    assert session is not None and session.records
    assert all(r.outcome in ("failed", "retried") for r in session.records), session.records
    bar = window.bar
    assert bar.position.text().strip() == "no stream: 0 bytes"
    assert not bar.play.isEnabled() and not bar.slider.isEnabled()
    shown = bar.position.fontMetrics().horizontalAdvance(bar.position.text())
    assert shown <= bar.position.contentsRect().width()  # the counter's room holds it whole
    assert window.lanes._empty.text().startswith("The request failed (cannot connect")
    window.doc.flushed.emit()  # a later flush does not bring the count back
    assert "chunks" not in bar.position.text()
