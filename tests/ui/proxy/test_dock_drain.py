"""The Proxy panel in the real window: Demo starts a proxy in front of the built-in demo
provider on a free port, the draining toggle reaches the proxy, and an agent (the real openai
SDK) that raises mid-stream leaves a capture of the whole stream, the place it left said above
the lanes and the clients judging the whole stream."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction

from inspector.net.proxy import Ending
from inspector.ui.shell.mainwindow import MainWindow
from ui.waiting import until


def dock_of(window: MainWindow) -> Any:
    item = window.findChild(QAction, "action-proxy")
    assert item is not None
    item.trigger()
    return window.proxies.dock


AGENT = """
import asyncio, sys, openai
CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": CITY}}]
async def main():
    async with openai.AsyncOpenAI(base_url=sys.argv[1], api_key="sk-test", max_retries=0,
                                  default_headers={"x-demo-chunk-delay": "0.01"}) as agent:
        async with agent.chat.completions.stream(
            model="demo-missing-index", messages=[{"role": "user", "content": "hi"}], tools=TOOLS
        ) as stream:
            await stream.get_final_completion()
try:
    asyncio.run(main())
except TypeError as exc:  # openai-python cannot place a call without an index
    print("raised", type(exc).__name__)
"""
"""An agent as a program of its own: the real openai SDK, which raises mid-stream."""


async def agent_raises(base: str) -> None:
    agent = await asyncio.create_subprocess_exec(
        sys.executable, "-c", AGENT, base, stdout=asyncio.subprocess.PIPE
    )
    out, _ = await agent.communicate()
    assert out.decode().strip() == "raised TypeError"


@pytest.mark.parametrize("drain", [True, False], ids=["draining", "not-draining"])
def test_demo_proxy_with_the_drain_toggle_and_an_agent_that_raises(
    window: MainWindow, qloop: qasync.QEventLoop, qtbot: Any, drain: bool
) -> None:
    dock = dock_of(window)
    assert dock.listen.text() == "127.0.0.1:0" and dock.drain.isChecked()  # the defaults
    dock.drain.setChecked(drain)
    dock.demo_button.click()

    async def scenario() -> None:
        await until(lambda: dock.rows)
        (proxy,) = window.proxies.proxies
        assert proxy.upstream.base == window.live.demo_url and proxy.drain.on is drain
        await agent_raises(proxy.agent_url + "/v1")
        await until(lambda: proxy.exchanges and proxy.exchanges[-1].ended)

    qloop.run_until_complete(scenario())
    ex = window.proxies.exchanges[-1]
    failures: list[tuple[str, str]] = []
    window.doc.failed.connect(lambda path, why: failures.append((path, why)))
    # the list shows the exchange on its next flush (a timer): a user double-clicks a row
    # that is there, so does the test (opening an index not shown yet does nothing)
    qtbot.waitUntil(lambda: dock.model.rowCount() == 1, timeout=20_000)
    dock.open_row(dock.model.index(0, 0))  # its capture opens
    with contextlib.suppress(qtbot.TimeoutError):  # what it shows instead is said below
        qtbot.waitUntil(lambda: window.doc.view is not None or window.doc.notice, timeout=20_000)
    assert window.doc.view is not None, (
        f"{window.doc.notice=} {ex.note=} {ex.capture_path=} {ex.analysis is None=} "
        f"{window.statusBar().currentMessage()=} {failures=}"
    )
    views = window.views
    views.refresh_side()
    line = views.left_line
    shown = window.doc.analysis.attempts if window.doc.analysis else []
    assert not line.isHidden() and "The agent hung up after chunk" in line.text(), (
        f"{window.doc.path=} {ex.capture_path=} {ex.note=} {ex.ending=} "
        f"{[v.agent_left for v in shown]=}"
    )
    if drain:
        assert ex.ending is Ending.DRAINED and ex.verdict == "accepted"
        assert "openai-python (raised)" in ex.line() and "litellm" not in ex.line()
    else:
        assert ex.ending is Ending.AGENT_GONE and ex.verdict == "cancelled"
        assert "breaks" not in ex.line()  # a cut stream judges no client
    remembered = QSettings("toolcall-inspector", "toolcall-inspector").value("proxy_drain")
    assert remembered in (None, True, "true") if drain else remembered in (False, "false")
