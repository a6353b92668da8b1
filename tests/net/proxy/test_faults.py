"""The recording proxy when things go wrong: no upstream, a silent one, an agent that hangs
up, an upstream that resets mid-stream, a capture that cannot be written, 50 agents at once."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anthropic
import httpx
import openai
import orjson
import pytest
from aiohttp import web

from inspector.core.capture.reader import load
from inspector.core.providers import REGISTRY
from inspector.net.proxy import Ending, RecordingProxy
from inspector.net.proxy.relay import Drain

CHAT = {"model": "demo-clean", "stream": True, "messages": [{"role": "user", "content": "hi"}]}
REQUESTS: dict[str, tuple[str, dict[str, Any]]] = {
    "openai-chat": ("/v1/chat/completions", CHAT),
    "openai-responses": ("/v1/responses", {"model": "demo-clean", "stream": True, "input": "hi"}),
    "anthropic": ("/v1/messages", {**CHAT, "max_tokens": 64}),
    "gemini": (
        "/v1beta/models/demo-clean:streamGenerateContent?alt=sse",
        {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]},
    ),
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
async def silent() -> AsyncIterator[str]:
    """An upstream that accepts connections and never says a word."""
    server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}"
    server.close()


def end_record(path: str | None) -> dict[str, Any]:
    assert path is not None
    (attempt,) = load(path).attempts
    assert attempt.end is not None
    return attempt.end


# -- no answer: 502 in the dialect's error shape -----------------------------------------------


@pytest.mark.parametrize("dialect", list(REQUESTS))
async def test_an_unreachable_upstream_is_a_502_in_the_dialects_shape(
    tmp_path: Path, dialect: str
) -> None:
    server = RecordingProxy(f"http://127.0.0.1:{free_port()}", captures=tmp_path)
    await server.start()
    path, body = REQUESTS[dialect]
    try:
        async with httpx.AsyncClient(trust_env=False) as client:
            response = await client.post(server.origin + path, json=body)
    finally:
        await server.stop()
    assert response.status_code == 502
    assert response.headers["content-type"].startswith("application/json")
    message = REGISTRY.get(dialect).error_message(response.json())
    assert "no answer from http://127.0.0.1" in message and "cannot connect" in message
    assert response.json() == REGISTRY.get(dialect).error_body(502, response_message(response))
    ex = server.exchanges[-1]
    assert ex.status == 502 and ex.verdict == "failed" and "cannot connect" in str(ex.note)
    end = end_record(ex.capture_path)
    assert end["reason"] == "error" and "cannot connect" in end["error"]


def response_message(response: httpx.Response) -> str:
    """The message the proxy put in its error body, whatever the shape."""
    text = response.text
    start = text.index("toolcall-inspector proxy:")
    return orjson.loads(b'"' + text[start:].split('"', 1)[0].encode() + b'"')


async def test_the_sdks_read_the_502_as_a_server_error(tmp_path: Path) -> None:
    server = RecordingProxy(f"http://127.0.0.1:{free_port()}", captures=tmp_path)
    await server.start()
    try:
        oai = openai.AsyncOpenAI(base_url=server.agent_url + "/v1", api_key="k", max_retries=0)
        with pytest.raises(openai.InternalServerError, match="no answer from") as caught:
            await oai.chat.completions.create(model="m", messages=[], stream=True)
        assert caught.value.status_code == 502
        claude = anthropic.AsyncAnthropic(base_url=server.agent_url, api_key="k", max_retries=0)
        with pytest.raises(anthropic.InternalServerError, match="no answer from") as err:
            await claude.messages.create(model="m", max_tokens=8, messages=[], stream=True)
        assert err.value.status_code == 502 and err.value.body["type"] == "error"  # type: ignore[index]
    finally:
        await server.stop()


async def test_an_upstream_that_never_answers_is_a_502_after_the_read_timeout(
    silent: str, tmp_path: Path
) -> None:
    server = RecordingProxy(silent, captures=tmp_path, read_timeout=0.3)
    await server.start()
    try:
        async with httpx.AsyncClient(trust_env=False) as client:
            response = await client.post(server.origin + "/v1/chat/completions", json=CHAT)
    finally:
        await server.stop()
    assert response.status_code == 502 and "read timeout" in response.json()["error"]["message"]
    end = end_record(server.exchanges[-1].capture_path)
    assert end["reason"] == "timeout" and "read timeout" in end["error"]


# -- the stream breaks off ---------------------------------------------------------------------


async def test_an_upstream_reset_cuts_the_agent_and_the_capture_keeps_every_byte(
    demo: str, tmp_path: Path
) -> None:
    async with httpx.AsyncClient(trust_env=False) as client:
        direct = bytearray()
        with pytest.raises(httpx.HTTPError) as reset:
            await read_into(client, demo, {**CHAT, "model": "fault-reset"}, direct)
        server = RecordingProxy(demo, captures=tmp_path)
        await server.start()
        try:
            got = bytearray()
            with pytest.raises(httpx.HTTPError) as cut:  # never a clean end
                await read_into(client, server.origin, {**CHAT, "model": "fault-reset"}, got)
        finally:
            await server.stop()
    assert type(cut.value) is type(reset.value) is httpx.ReadError  # a reset, as direct
    assert bytes(got) == bytes(direct) and b"tool_calls" in got
    ex = server.exchanges[-1]
    assert ex.ending is Ending.BROKEN and ex.verdict == "failed"
    capture = load(str(ex.capture_path))
    assert capture.attempts[0].body == bytes(got)
    assert capture.attempts[0].end is not None
    assert "connection broken after" in capture.attempts[0].end["error"]


async def read_into(client: httpx.AsyncClient, base: str, body: Any, into: bytearray) -> None:
    async with client.stream("POST", base + "/v1/chat/completions", json=body) as response:
        async for chunk in response.aiter_raw():
            into += chunk


async def test_a_stall_past_the_read_timeout_cuts_the_agent(demo: str, tmp_path: Path) -> None:
    server = RecordingProxy(demo, captures=tmp_path, read_timeout=0.3)
    await server.start()
    try:
        async with httpx.AsyncClient(trust_env=False) as client:
            got = bytearray()
            with pytest.raises(httpx.ReadError):  # reset: never a clean end
                await read_into(client, server.origin, {**CHAT, "model": "fault-stall"}, got)
    finally:
        await server.stop()
    ex = server.exchanges[-1]
    assert ex.ending is Ending.BROKEN and got and ex.size == len(got)
    end = end_record(ex.capture_path)
    assert end["reason"] == "timeout" and load(str(ex.capture_path)).attempts[0].body == got


class Trickle:
    """An upstream that streams a frame every 50 ms for 10 s and notes when it stops being
    read (its writes fail or its handler is cancelled: the proxy dropped the request)."""

    def __init__(self) -> None:
        self.dropped = asyncio.Event()
        self.sent = 0

    async def handle(self, request: web.Request) -> web.StreamResponse:
        out = web.StreamResponse(headers={"content-type": "text/event-stream"})
        await out.prepare(request)
        try:
            for n in range(200):
                frame = {"choices": [{"index": 0, "delta": {"content": f"{n} "}}]}
                await out.write(b"data: " + orjson.dumps(frame) + b"\n\n")
                self.sent += 1
                await asyncio.sleep(0.05)
        except (ConnectionError, asyncio.CancelledError):
            self.dropped.set()
            raise
        return out


async def test_an_agent_hanging_up_cancels_the_upstream_request_when_not_draining(
    tmp_path: Path,
) -> None:
    trickle = Trickle()
    app = web.Application()
    app.router.add_post("/v1/chat/completions", trickle.handle)
    runner = web.AppRunner(app, handler_cancellation=True)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    upstream = f"http://127.0.0.1:{runner.addresses[0][1]}"
    server = RecordingProxy(upstream, captures=tmp_path, drain=Drain(on=False))
    await server.start()
    try:
        async with httpx.AsyncClient(trust_env=False) as client:
            url = server.origin + "/v1/chat/completions"
            async with client.stream("POST", url, json=CHAT) as response:
                async for _ in response.aiter_raw():
                    if trickle.sent >= 3:
                        break  # the agent hangs up mid-stream
        await asyncio.wait_for(trickle.dropped.wait(), 5)
        for _ in range(100):
            if server.exchanges[-1].ended:
                break
            await asyncio.sleep(0.02)
    finally:
        await server.stop()
        await runner.cleanup()
    ex = server.exchanges[-1]
    assert trickle.sent < 20 and ex.ending is Ending.AGENT_GONE and ex.verdict == "cancelled"
    end = end_record(ex.capture_path)
    assert end["reason"] == "cancelled"
    body = load(str(ex.capture_path)).attempts[0].body
    assert body and len(body) == ex.size  # every byte the agent was sent, then the end


async def test_stopping_the_proxy_ends_each_capture_cancelled(demo: str, tmp_path: Path) -> None:
    server = RecordingProxy(demo, captures=tmp_path)
    await server.start()
    async with httpx.AsyncClient(trust_env=False) as client:
        got = bytearray()
        reading = asyncio.ensure_future(
            read_into(client, server.origin, {**CHAT, "model": "fault-stall"}, got)
        )
        for _ in range(200):
            if len(got) > 200:
                break
            await asyncio.sleep(0.01)
        await server.stop()
        with pytest.raises(httpx.ReadError):  # cut with a reset
            await reading
    ex = server.exchanges[-1]
    assert ex.ended and ex.verdict == "cancelled"
    assert end_record(ex.capture_path)["reason"] == "cancelled"


async def test_a_capture_that_cannot_be_written_never_blocks_the_agent(
    demo: str, tmp_path: Path
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    server = RecordingProxy(demo, captures=blocked / "captures")
    await server.start()
    try:
        async with httpx.AsyncClient(trust_env=False) as client:
            direct = (await client.post(demo + "/v1/chat/completions", json=CHAT)).content
            proxied = await client.post(server.origin + "/v1/chat/completions", json=CHAT)
    finally:
        await server.stop()
    assert proxied.status_code == 200 and proxied.content == direct
    ex = server.exchanges[-1]
    assert not ex.recorded and ex.note is not None and ex.note.startswith("not recorded:")
    assert "not recorded" in ex.line()


async def test_an_upstream_error_status_is_passed_on_and_recorded(
    demo: str, tmp_path: Path
) -> None:
    server = RecordingProxy(demo, captures=tmp_path)
    await server.start()
    try:
        async with httpx.AsyncClient(trust_env=False) as client:
            body = {**CHAT, "model": "fault-429"}
            direct = await client.post(demo + "/v1/chat/completions", json=body)
            proxied = await client.post(server.origin + "/v1/chat/completions", json=body)
    finally:
        await server.stop()
    assert (proxied.status_code, proxied.content) == (429, direct.content)
    assert proxied.headers["retry-after"] == direct.headers["retry-after"]
    ex = server.exchanges[-1]
    assert ex.verdict == "failed" and "HTTP 429" in str(ex.note)
    assert load(str(ex.capture_path)).attempts[0].body == direct.content


# -- many agents at once -----------------------------------------------------------------------


async def test_fifty_concurrent_streams_do_not_mix(demo: str, tmp_path: Path) -> None:
    """50 streaming requests at once, each its own conversation (its own ids): every agent
    gets exactly its direct answer, and every capture holds its own request and bytes."""
    open_now, peak = set(), [0]

    def started(ex: Any) -> None:
        open_now.add(ex.number)
        peak[0] = max(peak[0], len(open_now))

    server = RecordingProxy(demo, captures=tmp_path, on_start=started,
                            on_end=lambda ex: open_now.discard(ex.number))  # fmt: skip
    await server.start()
    paced = {"x-demo-chunk-delay": "0.002"}
    bodies = [
        {**CHAT, "model": ("demo-parallel", "demo-glm-empty-string")[i % 2],
         "messages": [{"role": "user", "content": f"question {i}"}]}
        for i in range(50)
    ]  # fmt: skip
    limits = httpx.Limits(max_connections=120)
    try:
        async with httpx.AsyncClient(trust_env=False, limits=limits, timeout=30) as client:

            async def ask(base: str, body: Any) -> bytes:
                url = base + "/v1/chat/completions"
                return (await client.post(url, json=body, headers=paced)).content

            proxied = await asyncio.gather(*(ask(server.origin, b) for b in bodies))
            direct = await asyncio.gather(*(ask(demo, b) for b in bodies))
    finally:
        await server.stop()
    assert proxied == direct and len(set(proxied)) == 50
    assert len(server.exchanges) == 50 and peak[0] >= 25  # they did run at the same time
    for ex in server.exchanges:
        capture = load(str(ex.capture_path))
        question = capture.request_body["messages"][0]["content"]
        i = int(question.split()[-1])
        assert capture.attempts[0].body == direct[i], question
        assert ex.verdict == "accepted" and ex.calls in (2, 3)
