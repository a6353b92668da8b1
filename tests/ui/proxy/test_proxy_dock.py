"""Live ▸ Proxy… in the real window: start proxies, copy the agent's base URL, watch an
agent's streaming request as live lanes, open finished ones, stop; every button clicked."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import openai
import qasync
from PySide6.QtGui import QAction, QGuiApplication

from inspector.core.capture.reader import load
from inspector.core.replay.sources import LiveSource, ReplaySource
from inspector.core.reports import words
from inspector.net.demo import DemoProvider
from inspector.ui.shell.mainwindow import MainWindow
from ui.waiting import until

CANARY = "sk-canary-window-55e0"
CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
TOOLS: Any = [{"type": "function", "function": {"name": "get_weather", "parameters": CITY}}]


def open_dock(window: MainWindow) -> Any:
    item = window.findChild(QAction, "action-proxy")
    assert item is not None and item.text() == "&Proxy…"
    item.trigger()
    dock = window.proxies.dock
    assert dock is not None and dock.isVisible()
    return dock


def test_a_proxied_stream_opens_as_live_lanes_then_as_its_capture(
    window: MainWindow, qloop: qasync.QEventLoop, tmp_path: Path
) -> None:
    dock = open_dock(window)
    demo = DemoProvider("127.0.0.1", 0, chunk_delay=0)

    async def scenario() -> None:
        url = await demo.start()
        dock.upstream.setText(url)
        dock.listen.setText("127.0.0.1:0")
        dock.start_button.click()
        await until(lambda: dock.rows)
        (row,) = dock.rows
        row.copy.click()
        base = QGuiApplication.clipboard().text()
        assert base == window.proxies.proxies[0].agent_url == row.url.text()
        agent = openai.AsyncOpenAI(base_url=base + "/v1", api_key=CANARY, max_retries=0,
                                   default_headers={"x-demo-chunk-delay": "0.03"})  # fmt: skip

        async def ask() -> Any:
            async with agent.chat.completions.stream(
                model="demo-parallel", messages=[{"role": "user", "content": "hi"}], tools=TOOLS
            ) as stream:
                return await stream.get_final_completion()

        asking = asyncio.ensure_future(ask())
        await until(lambda: dock.model.rowCount() == 1)
        ex = window.proxies.exchanges[0]
        await until(lambda: ex.analysis is not None and ex.analysis.attempts
                    and ex.analysis.attempts[-1].state.events)  # fmt: skip
        assert not ex.ended
        dock.table.clicked.emit(dock.model.index(0, 2))  # the user clicks the streaming row
        assert isinstance(window.doc.source, LiveSource) and window.doc.analysis is ex.analysis
        final = await asking
        assert len(final.choices[0].message.tool_calls or []) == 3
        await until(lambda: isinstance(window.doc.source, ReplaySource))
        assert window.doc.path == ex.capture_path  # the live view became its capture
        assert len(window.lanes.lanes) == 3
        await until(lambda: dock.model.data(dock.model.index(0, 4)) == "200")
        verdict = dock.model.data(dock.model.index(0, 6))
        assert verdict == f"{words.label('accepted')} · 3 calls"
        assert [dock.model.data(dock.model.index(0, c)) for c in (1, 2, 3, 5)] == [
            "POST", "/v1/chat/completions", "demo-parallel", "openai-chat",
        ]  # fmt: skip
        await agent.models.list()  # forwarded, listed, not recorded
        await until(lambda: dock.model.rowCount() == 2)
        assert dock.model.data(dock.model.index(0, 2)) == "/v1/models"
        assert dock.model.data(dock.model.index(0, 6)).startswith("forwarded · ")
        dock.table.clicked.emit(dock.model.index(0, 0))
        assert "forwarded, not recorded" in window.statusBar().currentMessage()
        dock.table.clicked.emit(dock.model.index(1, 0))  # the finished stream: its capture
        assert window.doc.path == ex.capture_path
        row.stop.click()
        await until(lambda: not dock.rows and not window.proxies._tasks)
        await demo.stop()

    qloop.run_until_complete(scenario())
    (capture,) = (tmp_path / "captures").iterdir()
    assert CANARY.encode() not in capture.read_bytes()
    assert load(capture).attempts[0].end["reason"] == "eof"  # type: ignore[index]


def test_several_proxies_at_once_and_what_cannot_start(
    window: MainWindow, qloop: qasync.QEventLoop
) -> None:
    dock = open_dock(window)
    dock.upstream.setText("")
    dock.start_button.click()
    assert dock.message.text().startswith("Type the upstream")
    dock.upstream.setText("ftp://example.com")
    dock.start_button.click()
    assert "http:// or https://" in dock.message.text()
    dock.upstream.setText("http://127.0.0.1:9/v1")
    dock.listen.setText("nowhere")
    dock.start_button.click()
    assert "listen address" in dock.message.text()

    async def scenario() -> None:
        dock.listen.setText("127.0.0.1:0")
        dock.start_button.click()
        dock.upstream.setText("http://127.0.0.1:9")
        dock.start_button.click()
        await until(lambda: len(dock.rows) == 2)
        urls = {p.agent_url for p in window.proxies.proxies}
        assert {r.url.text() for r in dock.rows} == urls and len(urls) == 2
        assert sorted(u.endswith("/v1") for u in urls) == [False, True]  # the upstream's path
        port = window.proxies.proxies[0].port
        dock.listen.setText(f"127.0.0.1:{port}")  # taken: said in the dock, nothing else
        dock.start_button.click()
        await until(lambda: "Cannot listen" in dock.message.text())
        assert len(window.proxies.proxies) == 2

    qloop.run_until_complete(scenario())
    window.close()  # stops every proxy; aclose (the fixture) awaits them
    assert not window.proxies.proxies
