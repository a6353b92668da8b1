"""The proxy's verdict is the stream's, not the agent's socket: an agent that hangs up after
the provider's end marker leaves an accepted capture, and one that leaves early has its
upstream read on to the end (bounded; off with ``drain=Drain(on=False)``; never on Stop),
the point where it left marked in the capture."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from aiohttp import web

from inspector.core.analysis.rounds import AGENT_LEFT
from inspector.core.analysis.session import Analysis
from inspector.core.capture.reader import load
from inspector.core.providers import REGISTRY
from inspector.net.proxy import Ending, RecordingProxy
from inspector.net.proxy.relay import Drain

CHAT = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "hi"}]}


class Upstream:
    """Streams ``frames`` text frames ``gap`` seconds apart, then ``[DONE]`` (when
    ``done``), then holds the body open ``hold`` seconds before ending it; notes whether it was
    read to its end or dropped."""

    def __init__(self, frames: int, gap: float, *, done: bool = True, hold: float = 0.0) -> None:
        self.frames, self.gap, self.done, self.hold = frames, gap, done, hold
        self.sent = 0
        self.finished = asyncio.Event()
        self.dropped = asyncio.Event()

    async def handle(self, request: web.Request) -> web.StreamResponse:
        out = web.StreamResponse(headers={"content-type": "text/event-stream"})
        await out.prepare(request)
        try:
            for n in range(self.frames):
                frame = {"choices": [{"index": 0, "delta": {"content": f"{n} "}}]}
                await out.write(b"data: " + orjson.dumps(frame) + b"\n\n")
                self.sent += 1
                await asyncio.sleep(self.gap)
            if self.done:
                end = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
                await out.write(b"data: " + orjson.dumps(end) + b"\n\ndata: [DONE]\n\n")
            await asyncio.sleep(self.hold)
            await out.write_eof()
        except (ConnectionError, asyncio.CancelledError):
            self.dropped.set()
            raise
        self.finished.set()
        return out


@pytest.fixture
async def serve() -> AsyncIterator[Any]:
    runners: list[web.AppRunner] = []

    async def start(upstream: Upstream) -> str:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", upstream.handle)
        runner = web.AppRunner(app, handler_cancellation=True)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        runners.append(runner)
        return f"http://127.0.0.1:{runner.addresses[0][1]}"

    yield start
    for runner in runners:
        await runner.cleanup()


async def hang_up(origin: str, until: Any) -> bytes:
    """Read the proxied stream until ``until(bytes so far)``, then close the connection."""
    got = bytearray()
    async with httpx.AsyncClient(trust_env=False) as client:
        url = origin + "/v1/chat/completions"
        async with client.stream("POST", url, json=CHAT) as response:
            async for chunk in response.aiter_raw():
                got += chunk
                if until(bytes(got)):
                    break
    return bytes(got)


async def ended(server: RecordingProxy) -> Any:
    for _ in range(500):
        if server.exchanges and server.exchanges[-1].ended:
            return server.exchanges[-1]
        await asyncio.sleep(0.02)
    raise AssertionError("the exchange never ended")


def left_events(path: str) -> list[dict[str, Any]]:
    (attempt,) = load(path).attempts
    return [e for e in attempt.events if e.get("kind") == AGENT_LEFT]


@pytest.mark.parametrize("drain", [True, False], ids=["draining", "not-draining"])
async def test_an_agent_hanging_up_right_after_done_leaves_an_accepted_capture(
    serve: Any, tmp_path: Path, drain: bool
) -> None:
    # The openai SDK closes its connection as soon as it reads [DONE]: the upstream's body has
    # not ended yet (here it holds on for a second), yet every byte of the stream is there.
    upstream = Upstream(3, 0.01, hold=1.0)
    server = RecordingProxy(await serve(upstream), captures=tmp_path, drain=Drain(on=drain))
    await server.start()
    try:
        got = await hang_up(server.origin, lambda b: b"[DONE]" in b)
        ex = await ended(server)
    finally:
        await server.stop()
    assert ex.verdict == "accepted", ex.note
    path = ex.capture_path
    assert path is not None
    (attempt,) = load(path).attempts
    assert attempt.end is not None and attempt.end["reason"] == "eof"
    assert b"[DONE]" in attempt.body and attempt.body.startswith(got[: len(got) // 2])
    assert "✔ accepted" in ex.line() and "cancelled" not in ex.line()


async def test_an_agent_leaving_early_has_the_upstream_drained_and_the_place_marked(
    serve: Any, tmp_path: Path
) -> None:
    upstream = Upstream(30, 0.01)
    server = RecordingProxy(await serve(upstream), captures=tmp_path)
    await server.start()
    try:
        got = await hang_up(server.origin, lambda b: b.count(b"data: ") >= 3)
        await asyncio.wait_for(upstream.finished.wait(), 10)
        ex = await ended(server)
    finally:
        await server.stop()
    assert upstream.sent == 30 and not upstream.dropped.is_set()
    assert ex.ending is Ending.DRAINED and ex.verdict == "accepted"
    assert ex.drained > 0 and "read on to its end" in str(ex.note)
    path = ex.capture_path
    assert path is not None
    (attempt,) = load(path).attempts
    assert attempt.body.count(b'"content"') == 30 and b"[DONE]" in attempt.body
    assert attempt.end is not None and attempt.end["reason"] == "eof"
    (left,) = left_events(path)
    assert left["data"]["relayed"] == ex.size >= len(got) > 0
    chunks = left["data"]["position"]["chunks"]
    assert 0 < chunks < len(attempt.chunks)  # before it: sent to the agent; after: drained
    sent = b"".join(data for _, data in attempt.chunks[:chunks])
    assert len(sent) == ex.size
    # the capture read back judges the whole stream, and its Analysis knows where it left
    analysis = Analysis.from_capture(load(path), providers=REGISTRY)
    (view,) = analysis.attempts
    assert view.state.complete and [e.kind for e in view.events] == [AGENT_LEFT]


async def test_draining_stops_at_its_time_bound(serve: Any, tmp_path: Path) -> None:
    upstream = Upstream(400, 0.02)  # 8 s of stream
    server = RecordingProxy(await serve(upstream), captures=tmp_path, drain=Drain(seconds=0.3))
    await server.start()
    try:
        await hang_up(server.origin, lambda b: b.count(b"data: ") >= 3)
        await asyncio.wait_for(upstream.dropped.wait(), 10)
        ex = await ended(server)
    finally:
        await server.stop()
    assert upstream.sent < 400 and ex.ending is Ending.AGENT_GONE and ex.verdict == "cancelled"
    assert ex.drained > 0 and "then dropped" in str(ex.note)
    assert ex.capture_path is not None and len(left_events(ex.capture_path)) == 1


async def test_draining_stops_at_its_byte_bound(serve: Any, tmp_path: Path) -> None:
    upstream = Upstream(400, 0.005)
    server = RecordingProxy(await serve(upstream), captures=tmp_path, drain=Drain(bytes=500))
    await server.start()
    try:
        await hang_up(server.origin, lambda b: b.count(b"data: ") >= 3)
        await asyncio.wait_for(upstream.dropped.wait(), 10)
        ex = await ended(server)
    finally:
        await server.stop()
    assert ex.ending is Ending.AGENT_GONE and 500 <= ex.drained < 500 + 4096
    assert "(the limit)" in str(ex.note) or "then dropped" in str(ex.note)


async def test_with_draining_off_the_upstream_request_is_dropped_at_once(
    serve: Any, tmp_path: Path
) -> None:
    upstream = Upstream(200, 0.05)
    server = RecordingProxy(await serve(upstream), captures=tmp_path, drain=Drain(on=False))
    await server.start()
    try:
        await hang_up(server.origin, lambda b: b.count(b"data: ") >= 3)
        await asyncio.wait_for(upstream.dropped.wait(), 5)
        ex = await ended(server)
    finally:
        await server.stop()
    assert upstream.sent < 20 and ex.ending is Ending.AGENT_GONE and ex.verdict == "cancelled"
    assert ex.drained == 0
    path = ex.capture_path
    assert path is not None
    (attempt,) = load(path).attempts
    assert len(attempt.body) == ex.size and attempt.end is not None
    assert attempt.end["reason"] == "cancelled"
    (left,) = left_events(path)
    assert left["data"]["relayed"] == ex.size


async def test_stopping_the_proxy_never_drains(serve: Any, tmp_path: Path) -> None:
    upstream = Upstream(400, 0.02)
    server = RecordingProxy(await serve(upstream), captures=tmp_path)  # 60 s, 64 MiB
    await server.start()
    await hang_up(server.origin, lambda b: b.count(b"data: ") >= 3)
    for _ in range(200):  # the agent left: the proxy drains
        if server.exchanges and server.exchanges[-1].session is not None:
            break
        await asyncio.sleep(0.01)
    await asyncio.wait_for(server.stop(), 10)
    await asyncio.wait_for(upstream.dropped.wait(), 5)
    ex = server.exchanges[-1]
    assert ex.ended and ex.verdict == "cancelled" and upstream.sent < 400
