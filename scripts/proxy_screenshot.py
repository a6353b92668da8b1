"""Render the README's picture of the recording proxy (``make screenshots``): the real window,
its Proxy dock with two proxies in front of the demo provider, the official SDKs as agents,
and the last proxied session open in the lanes.

    QT_QPA_PLATFORM=offscreen:configfile=tests/offscreen-1280x800.json \\
        .venv/bin/python scripts/proxy_screenshot.py docs/images/proxy.png

Nothing of the user's is read or written: Qt gets a fresh configuration folder, the captures
go to a temporary folder.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

SCRATCH = tempfile.mkdtemp(prefix="tci-proxy-shot-")
os.environ["XDG_CONFIG_HOME"] = SCRATCH  # before Qt reads any setting

import anthropic  # noqa: E402
import openai  # noqa: E402
import qasync  # noqa: E402

from inspector.net.demo import DemoProvider  # noqa: E402
from inspector.ui.live import live  # noqa: E402
from inspector.ui.shell.app import make_app  # noqa: E402
from inspector.ui.shell.mainwindow import MainWindow  # noqa: E402

WEATHER = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
SEARCH = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}
CHAT_TOOLS: Any = [
    {"type": "function", "function": {"name": "get_weather", "parameters": WEATHER}},
    {"type": "function", "function": {"name": "web_search", "parameters": SEARCH}},
]
QUESTION = [{"role": "user", "content": "Weather in Paris, Tokyo and Lima?"}]


async def until(predicate: Any, timeout: float = 30.0) -> None:
    async with asyncio.timeout(timeout):
        while not predicate():
            await asyncio.sleep(0.02)


async def agents(window: MainWindow, demo: str) -> None:
    """Two proxies, an OpenAI agent and an Anthropic one through them, then the OpenAI
    agent's quirky stream opened in the lanes."""
    dock = window.proxies.dock
    for n, upstream in enumerate((demo + "/v1", demo), 1):
        dock.upstream.setText(upstream)
        dock.start_button.click()
        await until(lambda n=n: len(dock.rows) == n)
    oai_base, claude_base = (p.agent_url for p in window.proxies.proxies)
    paced = {"x-demo-chunk-delay": "0.005"}
    oai = openai.AsyncOpenAI(base_url=oai_base, api_key="sk-demo", default_headers=paced)
    claude = anthropic.AsyncAnthropic(base_url=claude_base, api_key="sk-demo",
                                      default_headers=paced)  # fmt: skip
    await oai.models.list()
    for model in ("demo-clean", "demo-parallel"):
        await oai.chat.completions.create(model=model, messages=QUESTION, tools=CHAT_TOOLS,
                                          stream=True)  # fmt: skip
    await claude.messages.create(model="demo-parallel", max_tokens=512, messages=QUESTION,
                                 stream=True, tools=[{"name": "get_weather",
                                                      "input_schema": WEATHER}])  # fmt: skip
    async with oai.chat.completions.stream(
        model="demo-parallel-index-0", messages=QUESTION, tools=CHAT_TOOLS
    ) as stream:
        await stream.get_final_completion()
    await until(lambda: len(window.proxies.exchanges) == 5 and window.proxies.exchanges[-1].ended)
    await asyncio.sleep(0.3)  # the list's next refresh
    dock.table.selectRow(0)
    dock.table.clicked.emit(dock.model.index(0, 2))
    await asyncio.sleep(0.5)


def main() -> int:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/images/proxy.png")
    app = make_app()
    live.captures_dir = lambda: Path(SCRATCH) / "captures"  # type: ignore[assignment]
    window = MainWindow()
    window.persist_layout = False
    window.default_layout()
    window.show()
    window.show_proxies()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)

    async def shoot() -> bool:
        demo = DemoProvider("127.0.0.1", 0, chunk_delay=0)
        try:
            await agents(window, await demo.start())
            return window.export_png(str(out))
        finally:
            await window.aclose()
            await demo.stop()

    try:
        saved = loop.run_until_complete(shoot())
    finally:
        window.close()
        loop.close()
    print(f"{out}: {'written' if saved else 'NOT written'}")
    return 0 if saved else 1


if __name__ == "__main__":
    sys.exit(main())
