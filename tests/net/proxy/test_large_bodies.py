"""Issue 30: a request body larger than ``INLINE_BODY`` is forwarded before it is read, then
read and redacted in a worker: the upstream gets it byte for byte, the capture holds it
redacted exactly as a small one is, and a body that is no JSON object is only forwarded.
(The threshold is lowered here so that a test body of a few hundred KB takes that path.)"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import sys
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from aiohttp import web

from inspector.core.capture.apart import JsonFile
from inspector.core.capture.reader import load
from inspector.core.capture.redaction import RedactedBody, redact_body
from inspector.core.capture.writer import CaptureWriter
from inspector.net import bodyworker
from inspector.net.proxy import RecordingProxy, routes, server

KEY = "sk-proj-BIGBODYa1b2c3d4e5f6g7h8i9j0"
STREAM = (
    b'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":'
    b'[{"index":0,"delta":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}\n\n'
    b"data: [DONE]\n\n"
)


class Upstream:
    """Notes each request's body (sha256), length header and arrival; answers a stream."""

    def __init__(self) -> None:
        self.got: list[tuple[str, str | None, str | None]] = []
        self.url = ""

    async def handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        encoding = request.headers.get("Content-Encoding")
        self.got.append((hashlib.sha256(body).hexdigest(), encoding,
                         request.headers.get("Content-Length")))  # fmt: skip
        out = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await out.prepare(request)
        await out.write(STREAM)
        await out.write_eof()
        return out


@pytest.fixture
async def upstream() -> AsyncIterator[Upstream]:
    up = Upstream()
    app = web.Application(client_max_size=64 << 20)
    app.router.add_route("*", "/{tail:.*}", up.handle)
    runner = web.AppRunner(app, access_log=None, auto_decompress=False)  # bodies as sent
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    up.url = f"http://127.0.0.1:{runner.addresses[0][1]}/v1"
    yield up
    await runner.cleanup()


@pytest.fixture(autouse=True)
def small_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server, "INLINE_BODY", 64 * 1024)


def _body() -> dict[str, Any]:
    prose = 'a long conversation, "quoted", café 東京 \\ ' * 50
    messages = [{"role": "user", "content": f"{i} {prose}"} for i in range(200)]
    messages.append({"role": "user", "content": f"my key is {KEY}."})
    tool = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}
    return {"model": "gpt-big", "stream": True, "messages": messages, "tools": [tool],
            "api_key": "body-credential-0123456789"}  # fmt: skip


async def _send(proxy: RecordingProxy, content: bytes, **headers: str) -> httpx.Response:
    async with httpx.AsyncClient(trust_env=False, timeout=60) as client:
        return await client.post(proxy.agent_url + "/chat/completions", content=content,
                                 headers={"Authorization": f"Bearer {KEY}", **headers})  # fmt: skip


async def _proxied(proxy: RecordingProxy, content: bytes, **headers: str) -> httpx.Response:
    """Start ``proxy``, send ``content`` through it, and stop it once its exchange ended."""
    await proxy.start()
    try:
        return await _send(proxy, content, **headers)
    finally:
        await _stopped(proxy)


async def _stopped(proxy: RecordingProxy) -> None:
    """Stop the proxy once every exchange ended (its capture closed)."""
    for _ in range(400):
        if proxy.exchanges and all(ex.ended for ex in proxy.exchanges):
            break
        await asyncio.sleep(0.05)
    await proxy.stop()


async def test_a_large_body_is_forwarded_as_sent_and_recorded_redacted(
    upstream: Upstream, tmp_path: Path
) -> None:
    body = _body()
    raw = orjson.dumps(body)
    assert len(raw) > server.INLINE_BODY
    proxy = RecordingProxy(upstream.url, captures=tmp_path)
    response = await _proxied(proxy, raw)
    assert response.status_code == 200 and response.content == STREAM
    assert upstream.got == [(hashlib.sha256(raw).hexdigest(), None, str(len(raw)))]
    (ex,) = proxy.exchanges
    assert ex.recorded and ex.model == "gpt-big" and ex.verdict is not None
    assert "body-credential-0123456789" in ex.secrets  # found in the body, off the loop
    (path,) = tmp_path.glob("*.jsonl")
    data = path.read_bytes()
    for secret in (KEY, "body-credential-0123456789"):
        assert secret.encode() not in data
    request = load(path).attempts[0].request
    assert request is not None
    assert request["body"] == redact_body(
        body, (KEY, f"Bearer {KEY}", "body-credential-0123456789")
    )
    assert request["body"]["messages"][-1]["content"] == "REDACTED"
    assert request["body"]["messages"][0] == body["messages"][0]


async def test_a_large_compressed_body_is_forwarded_encoded_and_recorded_decoded(
    upstream: Upstream, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = _body()
    packed = gzip.compress(orjson.dumps(body))
    monkeypatch.setattr(server, "INLINE_BODY", 1024)  # it compresses well
    assert len(packed) > server.INLINE_BODY
    proxy = RecordingProxy(upstream.url, captures=tmp_path)
    response = await _proxied(proxy, packed, **{"Content-Encoding": "gzip"})
    assert response.status_code == 200
    assert upstream.got[0][:2] == (hashlib.sha256(packed).hexdigest(), "gzip")
    (path,) = tmp_path.glob("*.jsonl")
    request = load(path).attempts[0].request
    assert request is not None and request["body"]["model"] == "gpt-big"
    assert len(request["body"]["messages"]) == len(body["messages"])
    assert KEY.encode() not in path.read_bytes()


async def test_a_large_body_that_is_no_json_object_is_only_forwarded(
    upstream: Upstream, tmp_path: Path
) -> None:
    raw = b'{"model": "m", "messages": [' + b'"x", ' * 40_000 + b"oops"  # cut short
    proxy = RecordingProxy(upstream.url, captures=tmp_path)
    started: list[str | None] = []
    proxy.on_start = lambda ex: started.append(ex.dialect)
    response = await _proxied(proxy, raw)
    assert response.status_code == 200
    assert upstream.got[0][0] == hashlib.sha256(raw).hexdigest()
    (ex,) = proxy.exchanges
    assert not ex.recorded and ex.dialect is None and started == [None]
    assert list(tmp_path.glob("*.jsonl")) == []


async def test_a_large_body_is_read_and_written_off_the_loop_thread(
    upstream: Upstream, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: dict[str, int] = {}
    loads, write = routes.pieces.loads, CaptureWriter._copied

    def spy_loads(*args: Any, **kwargs: Any) -> Any:
        threads["parsed"] = threading.get_ident()
        return loads(*args, **kwargs)

    def spy_write(self: CaptureWriter, *args: Any) -> None:
        threads["written"] = threading.get_ident()
        write(self, *args)

    monkeypatch.setattr(routes.pieces, "loads", spy_loads)
    monkeypatch.setattr(CaptureWriter, "_copied", spy_write)
    proxy = RecordingProxy(upstream.url, captures=tmp_path)
    response = await _proxied(proxy, orjson.dumps(_body()))
    assert response.status_code == 200
    loop_thread = threading.get_ident()
    assert set(threads) == {"parsed", "written"}
    assert loop_thread not in threads.values()


async def test_a_large_body_is_read_in_the_body_workers_process(
    upstream: Upstream, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The proxy's own process never reads the body (its interpreter stays the loop's): the
    in-process reading is made to fail, and the capture is whole and redacted all the same."""

    def not_here(self: routes.Route, plain: bytes) -> routes.Route:
        raise AssertionError("read in the proxy's process")

    monkeypatch.setattr(routes.Route, "read", not_here)
    body = _body()
    proxy = RecordingProxy(upstream.url, captures=tmp_path)
    response = await _proxied(proxy, orjson.dumps(body))
    assert response.status_code == 200
    (ex,) = proxy.exchanges
    assert ex.recorded and ex.model == "gpt-big" and "body-credential-0123456789" in ex.secrets
    assert ex.session is not None and ex.session.analysis.user_tools is not None  # its tools
    recorded = ex.session.spec.body  # the redacted JSON's unnamed file: closed, gone
    assert isinstance(recorded, RedactedBody) and isinstance(recorded.json, JsonFile)
    assert recorded.json.file.closed
    (path,) = tmp_path.iterdir()  # nothing else left in the captures folder
    request = load(path).attempts[0].request
    assert request is not None
    assert request["body"] == redact_body(body, ex.secrets)
    assert KEY.encode() not in path.read_bytes()


@pytest.mark.parametrize(
    "worker",
    [
        ["/nonexistent/python"],
        [sys.executable, "-c", "import sys; sys.stdin.buffer.read(); sys.exit(3)"],
        [sys.executable, "-c", "import sys; sys.stdin.buffer.read(); "
         "print('{\"object\": true, \"bytes\": 99, \"secrets\": [], \"request\": {}, "
         "\"recorded\": {}}'); print('cut')"],
    ],
    ids=["cannot-start", "fails", "cut-short"],
)  # fmt: skip
async def test_a_body_the_worker_cannot_read_is_read_here_and_recorded_all_the_same(
    upstream: Upstream, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, worker: list[str]
) -> None:
    monkeypatch.setattr(bodyworker, "worker_command", lambda: worker)
    body = _body()
    proxy = RecordingProxy(upstream.url, captures=tmp_path)
    response = await _proxied(proxy, orjson.dumps(body))
    assert response.status_code == 200
    (ex,) = proxy.exchanges
    assert ex.recorded and "body-credential-0123456789" in ex.secrets
    (path,) = tmp_path.glob("*.jsonl")
    request = load(path).attempts[0].request
    assert request is not None and request["body"] == redact_body(body, ex.secrets)
    assert KEY.encode() not in path.read_bytes()
