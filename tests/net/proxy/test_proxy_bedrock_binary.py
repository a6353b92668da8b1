"""Bedrock's binary event-stream bodies through the real recording proxy on loopback: forwarded
to the agent byte for byte, recorded byte for byte (base64 where they are not UTF-8), read back
as Bedrock, and carried through HAR out and in (base64 body encoding) unchanged."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from botocore.eventstream import EventStreamBuffer

from inspector.core.analysis.session import Analysis
from inspector.core.capture.harexport import dumps, to_har
from inspector.core.capture.reader import load
from inspector.core.providers import BEDROCK_CONVERSE, REGISTRY
from inspector.core.replay.harsessions import read_sessions
from inspector.net.proxy import RecordingProxy
from net.proxy.ending import ended

BODY: Any = {
    "messages": [{"role": "user", "content": [{"text": "What's the weather in Paris?"}]}],
    "toolConfig": {"tools": [{"toolSpec": {"name": "get_weather", "inputSchema": {"json": {
        "type": "object", "properties": {"city": {"type": "string"}}}}}}]},
}  # fmt: skip
FAST = {"x-demo-chunk-delay": "0"}


async def fetch(base: str, model: str) -> tuple[int, str, bytes]:
    async with httpx.AsyncClient(trust_env=False) as client:
        r = await client.post(f"{base}/model/{model}/converse-stream", json=BODY, headers=FAST)
        return r.status_code, r.headers.get("content-type", ""), r.content


@pytest.mark.parametrize("model", ["demo-parallel", "fault-invalid-utf8"])
async def test_frames_pass_the_proxy_byte_for_byte_and_are_recorded_exactly(
    demo: str, proxy: RecordingProxy, model: str
) -> None:
    direct = await fetch(demo, model)
    status, ctype, through = await fetch(proxy.origin, model)
    assert (status, ctype) == (200, "application/vnd.amazon.eventstream")
    assert through == direct[2]  # the demo answers an identical request with identical bytes
    buffer = EventStreamBuffer()  # whole frames with good CRCs, as botocore reads them
    buffer.add_data(through)
    assert [m.headers[":message-type"] for m in buffer] != []
    ex = await ended(proxy)
    assert (ex.dialect, ex.model) == (BEDROCK_CONVERSE, model)  # the model is in the path
    capture = load(str(ex.capture_path))
    (attempt,) = capture.attempts
    assert b"".join(data for _, data in attempt.chunks) == through
    raw = Path(str(ex.capture_path)).read_bytes()
    assert b'"b64"' in raw  # frames are not UTF-8: kept as base64, every byte
    analysis = Analysis.from_capture(capture, providers=REGISTRY)
    assert analysis.dialect == BEDROCK_CONVERSE
    if model == "demo-parallel":
        assert [v.call.name for v in analysis.final.verdicts] == ["get_weather"] * 3
        assert all(v.valid for v in analysis.final.verdicts)
    else:
        assert [q.code for q in analysis.final.quirks] == ["invalid_utf8"]


async def test_a_bedrock_capture_goes_out_as_har_and_back_unchanged(
    proxy: RecordingProxy,
) -> None:
    await fetch(proxy.origin, "demo-clean")
    capture = load(str((await ended(proxy)).capture_path))
    (attempt,) = capture.attempts
    body = b"".join(data for _, data in attempt.chunks)
    har = orjson.loads(dumps(to_har([capture])))
    content = har["log"]["entries"][0]["response"]["content"]
    assert content["encoding"] == "base64" and base64.b64decode(content["text"]) == body
    (session,) = read_sessions(dumps(to_har([capture])), "s.har").sessions
    assert session.dialect == BEDROCK_CONVERSE
    back = session.capture
    assert b"".join(data for _, data in back.attempts[0].chunks) == body
    one = Analysis.from_capture(capture, providers=REGISTRY).final
    two = Analysis.from_capture(back, providers=REGISTRY).final
    assert (
        [(v.call.id, v.call.arguments) for v in two.verdicts]
        == [(v.call.id, v.call.arguments) for v in one.verdicts]
        != []
    )


def test_a_foreign_har_entry_with_a_base64_bedrock_body_is_read_as_bedrock() -> None:
    from bedrock_fixtures import recorded

    rec = recorded()[2]
    entry = {
        "startedDateTime": "2026-12-07T12:00:00.000Z", "time": 10,
        "request": {"method": "POST", "url": "https://bedrock-runtime.us-east-1.amazonaws.com"
                    "/model/us.anthropic.claude-3-5-haiku-20241022-v1%3A0/converse-stream",
                    "httpVersion": "HTTP/1.1", "headers": [], "queryString": [], "cookies": [],
                    "headersSize": -1, "bodySize": -1,
                    "postData": {"mimeType": "application/json", "text": orjson.dumps(BODY)
                                 .decode()}},
        "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                     "headers": [], "cookies": [], "redirectURL": "", "headersSize": -1,
                     "bodySize": -1,
                     "content": {"size": len(rec.framed),
                                 "mimeType": "application/vnd.amazon.eventstream",
                                 "text": base64.b64encode(rec.framed).decode(),
                                 "encoding": "base64"}},
        "cache": {}, "timings": {"send": 0, "wait": 5, "receive": 5},
    }  # fmt: skip
    har = {"log": {"version": "1.2", "creator": {"name": "a browser", "version": "1"},
                   "entries": [entry]}}  # fmt: skip
    (session,) = read_sessions(orjson.dumps(har), "b.har").sessions
    assert (session.dialect, session.problem) == (BEDROCK_CONVERSE, None)
    analysis = Analysis.from_capture(session.capture, providers=REGISTRY)
    assert [(v.call.id, v.call.arguments) for v in analysis.final.verdicts] == [
        (c["id"], c["arguments"]) for c in rec.calls
    ]
