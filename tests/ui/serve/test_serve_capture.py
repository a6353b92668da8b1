"""File ▸ Serve this capture… in the real window: the capture on show is answered as a
provider on loopback (the real openai SDK reads it), its base URL is shown and copied, and Stop
closes the listener, leaving no socket, task or timer."""

from __future__ import annotations

from typing import Any

import httpx
import openai
import qasync
from PySide6.QtGui import QAction, QGuiApplication

from inspector.core.base.resources import resource
from inspector.core.capture.reader import load
from inspector.ui.shell.mainwindow import MainWindow
from ui.waiting import until

SAMPLE = resource("samples") / "retry-truncated-then-valid.jsonl"


def serve_item(window: MainWindow) -> QAction:
    item = window.findChild(QAction, "action-serve-this-capture")
    assert item is not None
    return item


def test_serve_answers_the_capture_on_show_until_stopped(
    window: MainWindow, qloop: qasync.QEventLoop
) -> None:
    assert window.open(str(SAMPLE))
    serve_item(window).trigger()
    panel = window.serving.panel
    assert panel is not None and panel.isVisible()
    qloop.run_until_complete(until(lambda: bool(panel.url.text())))
    url = panel.url.text()
    assert url.startswith("http://127.0.0.1:")
    panel.copy.click()
    assert QGuiApplication.clipboard().text() == url
    window.serving.server.speed = None  # type: ignore[union-attr]  # no need to wait here
    recorded = load(SAMPLE)

    async def agent() -> tuple[bytes, list[Any]]:
        async with httpx.AsyncClient() as raw:  # attempt 1: the truncated one
            first = (await raw.post(url + "/v1/chat/completions", json={})).content
        client = openai.AsyncOpenAI(base_url=url + "/v1", api_key="unused", max_retries=0)
        async with client:
            stream = await client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "hi"}], stream=True
            )
            chunks = [chunk async for chunk in stream]  # attempt 2, read by the real SDK
        return first, chunks

    first, chunks = qloop.run_until_complete(agent())
    assert first == recorded.attempts[0].body
    assert any(c.choices and c.choices[0].delta.tool_calls for c in chunks)
    lines = panel.log.toPlainText().splitlines()
    assert [line.split("→ ")[1].split(" (")[0] for line in lines] == ["attempt 1", "attempt 2"]

    panel.stop.click()
    qloop.run_until_complete(window.serving.aclose())
    assert window.serving.server is None and not panel.stop.isEnabled()

    async def refused() -> bool:
        try:
            async with httpx.AsyncClient() as raw:
                await raw.post(url + "/v1/chat/completions", json={})
        except httpx.ConnectError:
            return True
        return False

    assert qloop.run_until_complete(refused())


def test_serve_with_nothing_open_says_so(window: MainWindow, monkeypatch: Any) -> None:
    said: list[str] = []
    monkeypatch.setattr(
        "inspector.ui.serve.serve.QMessageBox.information",
        lambda _parent, _title, text: said.append(text),
    )
    serve_item(window).trigger()
    assert said and "Nothing to serve" in said[0]
    assert window.serving.server is None


def test_closing_the_panel_stops_serving(window: MainWindow, qloop: qasync.QEventLoop) -> None:
    assert window.open(str(SAMPLE))
    serve_item(window).trigger()
    panel = window.serving.panel
    assert panel is not None
    qloop.run_until_complete(until(lambda: bool(panel.url.text())))
    panel.close()
    assert window.serving.server is None
