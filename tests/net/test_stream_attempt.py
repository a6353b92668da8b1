"""stream_attempt against httpx.MockTransport: recording, errors, timeouts, cancellation."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from inspector.core.capture.reader import load
from inspector.core.capture.writer import CaptureWriter
from inspector.core.requests.scenarios import RequestSpec
from inspector.net.client import AttemptOutcome, stream_attempt
from inspector.net.errors import (
    BudgetExhausted,
    ConnectError,
    ConnectTimeout,
    LiveError,
    NotSSEError,
    ProviderHTTPError,
    ReadTimeout,
    StreamBroken,
)

SECRET = "sk-live-TOPSECRET-abcdef0123456789"
URL = "http://provider.test/v1/chat/completions"
SPEC = RequestSpec(
    "POST",
    URL,
    {"content-type": "application/json", "x-trace": "t1"},
    {"model": "m", "stream": True, "messages": []},
    "authorization",
)
SSE = {"content-type": "text/event-stream"}
BODY = [
    b'data: {"choices":[{"index":0,"delta":{"role":"assistant"}}]}\n\n',
    b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1",',
    b'"function":{"name":"f","arguments":"{\\"a\\": \\"\xc3',  # splits a UTF-8 character
    b'\xa9\\"}"}}]}}]}\n\n',
    b"\xff not utf-8 at all\n\n",
    b"data: [DONE]\n\n",
]


def _stream(chunks: Iterable[bytes], *, stall_after: float | None = None,
            raise_after: Exception | None = None) -> AsyncIterator[bytes]:  # fmt: skip
    async def gen() -> AsyncIterator[bytes]:
        for c in chunks:
            yield c
            await asyncio.sleep(0)
        if raise_after is not None:
            raise raise_after
        if stall_after is not None:
            await asyncio.sleep(stall_after)

    return gen()


def _client(handler: Callable[[httpx.Request], Any]) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


class Sink:
    def __init__(self) -> None:
        self.got: list[tuple[float, bytes]] = []

    def __call__(self, data: bytes, t: float) -> None:
        self.got.append((t, data))


async def _run(tmp_path: Path, handler: Callable[[httpx.Request], Any], **kw: Any
               ) -> tuple[AttemptOutcome | LiveError, Sink, Path]:  # fmt: skip
    path = tmp_path / "c.jsonl"
    sink = Sink()
    async with _client(handler) as client:
        with CaptureWriter(path) as writer:
            try:
                result: AttemptOutcome | LiveError = await stream_attempt(
                    client, SPEC, SECRET, attempt=1, writer=writer, sink=sink, **kw
                )
            except LiveError as exc:
                result = exc
    return result, sink, path


async def test_chunks_recorded_in_order_timestamped_and_fed(tmp_path: Path) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, headers=SSE, content=_stream(BODY))

    ticks = itertools.count(1000.0, 0.25)
    out, sink, path = await _run(tmp_path, handler, clock=lambda: next(ticks))
    assert isinstance(out, AttemptOutcome)
    assert (out.status, out.bytes, out.ended_by, out.error) == (
        200,
        len(b"".join(BODY)),
        "eof",
        None,
    )
    cap = load(path)
    (att,) = cap.attempts
    assert [d for _, d in att.chunks] == BODY  # boundaries kept, invalid UTF-8 included
    assert att.body == b"".join(BODY)
    assert att.chunks == sink.got  # fed exactly what was recorded, with the same times
    times = [t for t, _ in att.chunks]
    assert times == sorted(times) and times[0] > 0 and len(set(times)) == len(times)
    assert att.response is not None and att.response["t"] < times[0]
    assert att.end is not None and att.end["t"] > times[-1]
    assert att.end == {
        "type": "end",
        "attempt": 1,
        "t": att.end["t"],
        "reason": "eof",
        "error": None,
    }
    assert orjson.loads(seen[0].content) == SPEC.body
    assert seen[0].headers["accept-encoding"] == "identity"


async def test_the_key_is_sent_but_never_written(tmp_path: Path) -> None:
    got: dict[str, str] = {}

    def handler(request: httpx.Request) -> httpx.Response:
        got.update(request.headers)
        return httpx.Response(200, headers={**SSE, "set-cookie": "s=1"}, content=_stream(BODY))

    out, _, path = await _run(tmp_path, handler)
    assert got["authorization"] == f"Bearer {SECRET}" and got["x-trace"] == "t1"
    raw = path.read_bytes()
    assert SECRET.encode() not in raw and b"TOPSECRET" not in raw
    req = load(path).attempts[0].request
    assert req is not None and req["headers"]["authorization"] == "REDACTED"
    assert isinstance(out, AttemptOutcome) and out.headers["set-cookie"] == "REDACTED"


@pytest.mark.parametrize(("status", "body", "message"), [
    (401, b'{"error":{"message":"invalid api key","type":"auth"}}', "invalid api key"),
    (429, b'{"error":{"message":"rate limited: slow down"}}', "rate limited: slow down"),
    (500, b"upstream\nexploded", "upstream exploded"),
])  # fmt: skip
async def test_http_errors_keep_the_body(tmp_path: Path, status: int, body: bytes,
                                         message: str) -> None:  # fmt: skip
    wait = {"retry-after": "7"} if status == 429 else {}

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, headers={"content-type": "application/json", **wait},
                              content=_stream([body[:10], body[10:]]))  # fmt: skip

    err, sink, path = await _run(tmp_path, handler)
    assert isinstance(err, ProviderHTTPError)
    assert err.status == status and err.body == body and err.detail == message
    suffix = " (retry-after: 7)" if wait else ""
    assert str(err) == f"HTTP {status} from {URL}: {message}{suffix}" and "\n" not in str(err)
    att = load(path).attempts[0]
    assert att.body == body and att.status == status
    assert att.end is not None and att.end["reason"] == "error" and att.end["error"] == str(err)
    assert b"".join(d for _, d in sink.got) == body  # the raw pane sees it too
    assert err.outcome.status == status and err.outcome.ended_by == "error"


async def test_not_sse(tmp_path: Path) -> None:
    body = b'{"id":"chatcmpl-1","choices":[{"message":{"content":"hi"}}]}'

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "application/json"}, content=body)

    err, sink, path = await _run(tmp_path, handler)
    assert isinstance(err, NotSSEError)
    assert err.content_type == "application/json" and err.head == body
    assert "expected text/event-stream, got application/json" in str(err)
    assert load(path).attempts[0].body == body and sink.got[0][1] == body


async def test_read_timeout(tmp_path: Path) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers=SSE, content=_stream(BODY[:2], stall_after=30))

    err, _, path = await _run(tmp_path, handler, read_timeout=0.2)
    assert isinstance(err, ReadTimeout)  # the 30 s stall would end the stream without one
    assert str(err).startswith("no data for 0.2 s (read timeout)")
    att = load(path).attempts[0]
    assert [d for _, d in att.chunks] == BODY[:2]
    assert att.end is not None and att.end["reason"] == "timeout"


async def test_budget_deadline(tmp_path: Path) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers=SSE, content=_stream(BODY[:1], stall_after=30))

    loop = asyncio.get_running_loop()
    err, _, path = await _run(tmp_path, handler, deadline=loop.time() + 0.3, clock=loop.time)
    assert isinstance(err, BudgetExhausted) and "attempt budget" in str(err)
    att = load(path).attempts[0]
    assert att.body == BODY[0] and att.end is not None and att.end["reason"] == "timeout"


@pytest.mark.parametrize(("exc", "cls", "text"), [
    (httpx.ConnectError("[Errno 111] Connection refused"), ConnectError, "Connection refused"),
    (httpx.ConnectTimeout("timed out"), ConnectTimeout, "within 10 s (connect timeout)"),
    (httpx.ReadTimeout("timed out"), ReadTimeout, "(read timeout)"),
    (httpx.RemoteProtocolError("Server disconnected"), StreamBroken, "after 0 bytes"),
])  # fmt: skip
async def test_transport_errors_map_to_the_tree(
    tmp_path: Path, exc: Exception, cls: type[LiveError], text: str
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise exc

    err, _, path = await _run(tmp_path, handler)
    assert type(err) is cls and text in str(err)
    att = load(path).attempts[0]
    assert att.request is not None and att.response is None and att.end is not None
    assert att.end["error"] == str(err)


async def test_connection_reset_mid_stream(tmp_path: Path) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        reset = httpx.ReadError("[Errno 104] Connection reset by peer")
        return httpx.Response(200, headers=SSE, content=_stream(BODY[:3], raise_after=reset))

    err, _, path = await _run(tmp_path, handler)
    received = len(b"".join(BODY[:3]))
    assert isinstance(err, StreamBroken) and err.received == received
    assert (
        str(err) == f"connection broken after {received} bytes: [Errno 104] Connection "
        "reset by peer"
    )
    att = load(path).attempts[0]
    assert att.body == b"".join(BODY[:3]) and att.end is not None
    assert att.end["reason"] == "error"


async def test_cancellation_writes_an_end_record(tmp_path: Path) -> None:
    first = asyncio.Event()

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers=SSE, content=_stream(BODY[:2], stall_after=30))

    path = tmp_path / "c.jsonl"

    def sink(data: bytes, t: float) -> None:
        first.set()

    async with _client(handler) as client:
        with CaptureWriter(path) as writer:
            task = asyncio.create_task(stream_attempt(client, SPEC, None, attempt=3,
                                                      writer=writer, sink=sink))  # fmt: skip
            await first.wait()
            await asyncio.sleep(0.05)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
    att = load(path).attempts[0]
    assert att.number == 3 and [d for _, d in att.chunks] == BODY[:2]
    assert att.end is not None and (att.end["reason"], att.end["error"]) == (
        "cancelled",
        "cancelled",
    )


async def test_each_chunk_is_on_disk_before_the_sink_sees_it(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    checked: list[bool] = []

    def sink(data: bytes, t: float) -> None:  # what a crash right now would leave behind
        checked.append(load(path).attempts[0].chunks[-1] == (t, data))

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers=SSE, content=_stream(BODY))

    async with _client(handler) as client:
        with CaptureWriter(path) as writer:
            await stream_attempt(client, SPEC, None, attempt=1, writer=writer, sink=sink)
    assert checked == [True] * len(BODY)


async def test_an_error_body_is_read_in_the_shape_of_the_provider_the_request_was_for(
    tmp_path: Path,
) -> None:
    """The provider owns its error body: an Anthropic 401 reads as Anthropic writes it (type
    and message); a request built for no provider falls back to the common shapes."""
    body = b'{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}'

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(401, headers={"content-type": "application/json"}, content=body)

    for dialect, detail in [
        ("anthropic", "authentication_error: invalid x-api-key"),
        (None, "invalid x-api-key"),
    ]:
        spec = replace(SPEC, dialect=dialect)
        async with _client(handler) as client:
            with pytest.raises(ProviderHTTPError) as caught:
                await stream_attempt(client, spec, SECRET, attempt=1, writer=None, sink=Sink())
        assert caught.value.detail == detail


def test_a_built_request_names_its_provider() -> None:
    from inspector.core.requests.scenarios import build_request, find_profile, load_scenarios

    scenario = load_scenarios()[0]
    for name in ("demo", "demo-anthropic", "demo-gemini", "demo-responses"):
        profile = find_profile(name).resolved("http://127.0.0.1:9")
        assert build_request(profile, scenario).dialect == profile.dialect
