"""Every demo scenario in every dialect, directly and through the recording proxy (``make
test-slow``): the same status and bytes, ended the same way, and a capture that judges as the
direct body does. ``make test`` runs a handful per dialect with the official SDKs
(``test_proxy_with_sdks.py``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from inspector.core.analysis.session import Analysis
from inspector.core.base.settings import Settings
from inspector.core.capture.reader import load
from inspector.core.providers import REGISTRY, analyze_bytes
from inspector.net.demo import SCENARIOS
from inspector.net.proxy import Ending, RecordingProxy
from net.proxy.ending import ended

pytestmark = pytest.mark.slow

TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}},
    {"type": "function", "function": {"name": "web_search", "parameters": {
        "type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}}},
]  # fmt: skip
FAST = {"x-demo-chunk-delay": "0", "x-demo-stall": "0.2", "x-api-key": "sk-sweep-canary"}


@pytest.fixture
async def proxy(demo: str, tmp_path: Path) -> AsyncIterator[RecordingProxy]:
    server = RecordingProxy(demo, captures=tmp_path)
    await server.start()
    yield server
    await server.stop()


async def fetch(client: httpx.AsyncClient, base: str, dialect: str, model: str) -> Any:
    """(status, body as received, how it ended: None or the exception's class)."""
    provider = REGISTRY.get(dialect)
    ask = [{"role": "user", "content": "What's the weather in Paris?"}]
    wire = provider.request(base + provider.version_segment, model, ask, TOOLS)
    body = bytearray()
    async with client.stream("POST", wire.url, json=wire.body,
                             headers={**wire.headers, **FAST}) as response:  # fmt: skip
        try:
            async for chunk in response.aiter_raw():
                body += chunk
        except httpx.HTTPError as exc:
            return response.status_code, bytes(body), type(exc)
    return response.status_code, bytes(body), None


@pytest.mark.parametrize("dialect", REGISTRY.names())
async def test_every_scenario_through_the_proxy(
    demo: str, proxy: RecordingProxy, tmp_path: Path, dialect: str
) -> None:
    async with httpx.AsyncClient(trust_env=False, timeout=30) as client:
        for model in SCENARIOS:
            await fetch(client, demo, dialect, model)  # the conversation's steady answer next
            direct = await fetch(client, demo, dialect, model)
            proxied = await fetch(client, proxy.origin, dialect, model)
            assert proxied == direct, (model, dialect)
            ex = await ended(proxy)
            assert ex.dialect == dialect and ex.model == model and ex.status == direct[0]
            assert ex.ending is (Ending.COMPLETE if direct[2] is None else Ending.BROKEN), model
            capture = load(str(ex.capture_path))
            assert capture.attempts[0].body == direct[1], model
            if direct[0] == 200:
                judged = Analysis.from_capture(capture, Settings(dialect=dialect),
                                               providers=REGISTRY)  # fmt: skip
                raw = analyze_bytes(direct[1], dialect)
                calls = [(c.id, c.name, c.arguments) for c in judged.final.state.calls]
                assert calls == [(c.id, c.name, c.arguments) for c in raw.calls], model
    for path in tmp_path.iterdir():
        assert b"sk-sweep-canary" not in path.read_bytes()
