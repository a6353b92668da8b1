"""Issue 25's canary sweep: credentials planted in every place a session can meet them, then
every file written and every line printed grepped for them.

A real loopback upstream (aiohttp) that leaks: it echoes the caller's key in its error text
with a full stop after it (OpenAI's wording), in a response header, in the streamed text and
in a tool call's arguments split across two chunks, and echoes the tenant header and the
body's ``api_key``. Through it: the recording proxy with the real openai SDK as the agent,
``record``, ``matrix`` (two targets whose names collide as file names) and ``export --har``.
The agent itself gets every byte as sent (what is forwarded is never masked).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
from aiohttp import web

from inspector.cli import main
from inspector.core.capture.reader import load
from inspector.net.proxy import RecordingProxy

KEY = "sk-proj-CANARYa1b2c3d4e5f6g7h8i9j0"
TENANT = "sk-live-CANARYtenant0123456789"
BODYKEY = "CANARYbody-9f8e7d6c5b4a"
CANARIES = (KEY, TENANT, BODYKEY, KEY[9:], TENANT[8:])
TOOLS: Any = [{"type": "function", "function": {"name": "echo", "parameters": {
    "type": "object", "properties": {"k": {"type": "string"}}}}}]  # fmt: skip


def _chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    doc = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
           "choices": [choice]}  # fmt: skip
    return b"data: " + json.dumps(doc).encode() + b"\n\n"


async def _leak(request: web.Request) -> web.StreamResponse:
    body = await request.json()
    key = request.headers.get("Authorization", "").removeprefix("Bearer ")
    tenant, echoed = request.headers.get("X-Tenant", ""), str(body.get("api_key", ""))
    if body.get("model") == "fail":
        message = f"Incorrect API key provided: {key}. Tenant {tenant}. Body {echoed}."
        error = {"error": {"message": message, "type": "invalid_request_error"}}
        return web.json_response(error, status=401, headers={"x-debug-echo": f"caller={key}."})
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream",
                                           "x-debug-echo": f"caller={key}."})  # fmt: skip
    await response.prepare(request)
    call = {"index": 0, "id": "call_1", "type": "function",
            "function": {"name": "echo", "arguments": '{"k": "' + key[:10]}}  # fmt: skip
    pieces = [
        _chunk({"role": "assistant", "content": f"key {key}.\ntenant {tenant} body {echoed}\n"}),
        _chunk({"tool_calls": [call]}),
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": key[10:] + '."}'}}]}),
        _chunk({}, "tool_calls"),
        b"data: [DONE]\n\n",
    ]
    for piece in pieces:
        await response.write(piece)
        await asyncio.sleep(0.01)
    await response.write_eof()
    return response


@pytest.fixture
def leaky() -> Iterator[str]:
    """The leaking upstream on its own loop and thread (``record`` and ``matrix`` run theirs)."""
    loop = asyncio.new_event_loop()
    app = web.Application()
    app.router.add_post("/v1/chat/completions", _leak)
    runner = web.AppRunner(app)
    loop.run_until_complete(runner.setup())
    site = web.TCPSite(runner, "127.0.0.1", 0)
    loop.run_until_complete(site.start())
    port = runner.addresses[0][1]
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}/v1"
    asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(10)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(10)
    loop.close()


async def _through_the_proxy(upstream: str, captures: Path) -> tuple[list[str], str]:
    """The real openai SDK through the proxy: a stream, then a refused request. The proxy's
    printed lines, and what the agent received."""
    proxy = RecordingProxy(upstream, captures=captures)
    await proxy.start()
    try:
        client = openai.AsyncOpenAI(base_url=proxy.agent_url, api_key=KEY, max_retries=0,
                                    default_headers={"X-Tenant": TENANT})  # fmt: skip
        got = []
        stream = await client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}], tools=TOOLS, stream=True,
            extra_body={"api_key": BODYKEY},
        )  # fmt: skip
        async for chunk in stream:
            delta = chunk.choices[0].delta if chunk.choices else None
            if delta is not None and delta.content:
                got.append(delta.content)
            for call in (delta.tool_calls or []) if delta is not None else []:
                got.append(call.function.arguments or "" if call.function else "")
        with pytest.raises(openai.AuthenticationError) as refused:
            await client.chat.completions.create(
                model="fail", messages=[{"role": "user", "content": "hi"}], stream=True,
                extra_body={"api_key": BODYKEY},
            )  # fmt: skip
        got.append(str(refused.value))
        await client.close()
        for _ in range(250):
            if len(proxy.exchanges) == 2 and all(ex.ended for ex in proxy.exchanges):
                break
            await asyncio.sleep(0.02)
        return [ex.line() for ex in proxy.exchanges], "".join(got)
    finally:
        await proxy.stop()


def test_no_canary_reaches_any_file_or_line(
    leaky: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    out = tmp_path / "out"
    monkeypatch.setenv("TCI_CANARY_KEY", KEY)
    printed: list[str] = []

    lines, agent_saw = asyncio.run(_through_the_proxy(leaky, out / "proxy"))
    printed += lines
    assert KEY in agent_saw and f'"k": "{KEY}."' in agent_saw  # forwarded as sent
    assert TENANT in agent_saw and BODYKEY in agent_saw
    assert len(lines) == 2 and "401" in lines[1]

    profile = {"name": "leaky", "dialect": "openai-chat", "base_url": leaky, "model": "m",
               "key_env": "TCI_CANARY_KEY", "headers": {"X-Tenant": TENANT},
               "options": {"api_key": BODYKEY}}  # fmt: skip
    profiles = inputs / "profiles.json"
    profiles.write_text(json.dumps([profile]))
    (out / "record").mkdir()
    for model, name in (("m", "ok.jsonl"), ("fail", "fail.jsonl")):
        where = str(out / "record" / name)
        code = main(["record", "--profile", "leaky", "--profiles", str(profiles), "--model",
                     model, "--scenario", "weather", "--out", where])  # fmt: skip
        got = capsys.readouterr()
        printed += [got.out, got.err]
        assert code in (0, 1, 2)
    assert "HTTP 401" in printed[-1]

    target = {"profile": "openai", "base_url": leaky, "key_env": "TCI_CANARY_KEY"}
    spec = {"targets": [{**target, "name": "leaky/a", "model": "m"},
                        {**target, "name": "leaky-a", "model": "fail"}],
            "scenarios": ["weather"]}  # fmt: skip
    (inputs / "spec.json").write_text(json.dumps(spec))
    assert main(["matrix", str(inputs / "spec.json"), "--out", str(out / "matrix")]) == 0
    got = capsys.readouterr()
    printed += [got.out, got.err]
    names = sorted(p.name for p in (out / "matrix" / "captures").iterdir())
    assert len(names) == 2 and len(set(names)) == 2  # "leaky/a" and "leaky-a" apart

    captures = sorted(p for p in out.rglob("*.jsonl"))
    assert len(captures) == 6
    for capture in captures:
        har = out / "har" / (capture.stem + ".har")
        har.parent.mkdir(exist_ok=True)
        assert main(["export", str(capture), "--har", str(har)]) == 0
        got = capsys.readouterr()
        printed += [got.out, got.err]

    streamed = load(sorted((out / "proxy").glob("*.jsonl"))[0])
    (attempt,) = streamed.attempts
    assert len(attempt.masked) >= 2 and b"*" * len(KEY) in attempt.body
    assert attempt.response is not None and attempt.response["headers"]["x-debug-echo"] == (
        "REDACTED"
    )

    written = sorted(p for p in out.rglob("*") if p.is_file())
    assert len(written) >= 6 + 6 + 3
    for path in written:
        data = path.read_bytes()
        for canary in CANARIES:
            assert canary.encode() not in data, f"{canary!r} in {path}"
    for text in printed:
        for canary in CANARIES:
            assert canary not in text, f"{canary!r} printed: {text[:300]!r}"
