"""Issue 25: the proxy forwards what the agent sent — its own Authorization beside an
upstream URL holding user-info, and header bytes that are not UTF-8."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from aiohttp import web

from inspector.net.proxy import RecordingProxy

ODD = b"caf\xc3\xa9\xff\xfe"


class Upstream:
    """Notes each request's raw headers; answers with a header of odd bytes."""

    def __init__(self) -> None:
        self.seen: list[list[tuple[bytes, bytes]]] = []
        self.url = ""

    async def handle(self, request: web.Request) -> web.Response:
        self.seen.append(list(request.raw_headers))
        odd = ODD.decode("utf-8", "surrogateescape")
        return web.Response(text="ok", headers={"X-Odd": odd})


@pytest.fixture
async def upstream() -> AsyncIterator[Upstream]:
    up = Upstream()
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", up.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    up.url = f"127.0.0.1:{runner.addresses[0][1]}"
    yield up
    await runner.cleanup()


def _header(seen: list[tuple[bytes, bytes]], name: bytes) -> list[bytes]:
    return [v for k, v in seen if k.lower() == name]


async def test_user_info_is_used_only_when_the_agent_sent_no_authorization(
    upstream: Upstream, tmp_path: Path
) -> None:
    proxy = RecordingProxy(f"http://user:p%40ss@{upstream.url}/v1", captures=tmp_path)
    await proxy.start()
    try:
        async with httpx.AsyncClient(trust_env=False) as client:
            agent = await client.get(proxy.agent_url + "/models",
                                     headers={"Authorization": "Bearer sk-agent"})  # fmt: skip
            bare = await client.get(proxy.agent_url + "/models")
    finally:
        await proxy.stop()
    assert (agent.status_code, bare.status_code) == (200, 200)  # was 502 with the agent's
    first, second = upstream.seen
    assert _header(first, b"authorization") == [b"Bearer sk-agent"]  # unchanged, alone
    expected = b"Basic " + base64.b64encode(b"user:p@ss")
    assert _header(second, b"authorization") == [expected]
    printed = " ".join(ex.line() for ex in proxy.exchanges)
    assert "p%40ss" not in printed and "p@ss" not in printed


async def test_header_bytes_pass_through_as_bytes_both_ways(
    upstream: Upstream, tmp_path: Path
) -> None:
    proxy = RecordingProxy(f"http://{upstream.url}/v1", captures=tmp_path)
    await proxy.start()
    try:
        host, port = proxy.origin.removeprefix("http://").split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(b"GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Name: " + ODD
                     + b"\r\nConnection: close\r\n\r\n")  # fmt: skip
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), 10)
        writer.close()
    finally:
        await proxy.stop()
    (seen,) = upstream.seen
    assert _header(seen, b"x-name") == [ODD]  # was b"caf\xc3\xa9": the odd bytes dropped
    assert answer.startswith(b"HTTP/1.1 200") and b"\r\nX-Odd: " + ODD + b"\r\n" in answer
