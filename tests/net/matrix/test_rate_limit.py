"""A 429 with retry-after, from a real loopback server: waited out, recorded, the session run
again into a capture of its own; a wait too long, or a third 429, ends the run as an error."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
from aiohttp import web

from inspector.core.matrix.spec import MatrixSpec
from inspector.net.matrix.runner import MatrixRunner

CALL = [
    {"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
        {"index": 0, "id": "call_1", "type": "function",
         "function": {"name": "get_weather", "arguments": ""}}]}}]},
    {"choices": [{"index": 0, "delta": {"tool_calls": [
        {"index": 0, "function": {"arguments": "{\"city\": \"Paris\"}"}}]}}]},
    {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
]  # fmt: skip
HEAD = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m"}
BODY = "".join(f"data: {json.dumps({**HEAD, **c})}\n\n" for c in CALL) + "data: [DONE]\n\n"

Serve = Callable[[list[str]], Awaitable[str]]


@pytest.fixture
async def server() -> AsyncIterator[Serve]:
    """A server answering 429 with each retry-after of a list, then the call."""
    runners: list[web.AppRunner] = []

    async def start(waits: list[str]) -> str:
        left = list(waits)

        async def handle(request: web.Request) -> web.Response:
            if left:
                return web.json_response(
                    {"error": {"message": "slow down"}}, status=429,
                    headers={"retry-after": left.pop(0)},
                )  # fmt: skip
            return web.Response(body=BODY.encode(), content_type="text/event-stream")

        app = web.Application()
        app.router.add_post("/v1/chat/completions", handle)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        runners.append(runner)
        port = runner.addresses[0][1]
        return f"http://127.0.0.1:{port}/v1"

    yield start
    for runner in runners:
        await runner.cleanup()


def _spec(url: str) -> MatrixSpec:
    target = {"profile": "loop", "dialect": "openai-chat", "base_url": url, "model": "m"}
    return MatrixSpec.from_json({"targets": [target], "scenarios": ["weather"]})


async def test_a_429_retry_after_is_waited_out_and_recorded(server: Serve, tmp_path: Path) -> None:
    url = await server(["0.2"])
    result = await MatrixRunner(_spec(url), tmp_path).run()
    run = result.cell("loop/m", "weather").runs[0]
    assert run.word == "pass" and run.calls == 1, run.clients
    assert [(r.retry_after, r.waited) for r in run.rate_limits] == [("0.2", 0.2)]
    assert run.capture is not None and run.capture.endswith("-429-1.jsonl")
    assert len(list((tmp_path / "captures").glob("*.jsonl"))) == 2  # the 429 kept too


async def test_a_third_429_or_a_long_wait_is_an_error(server: Serve, tmp_path: Path) -> None:
    url = await server(["0.05", "0.05", "0.05"])
    run = (await MatrixRunner(_spec(url), tmp_path / "a").run()).cell("loop/m", "weather").runs[0]
    assert run.word == "error" and run.error is not None and "HTTP 429" in run.error.message
    assert len(run.rate_limits) == 2
    url = await server(["3600"])
    run = (await MatrixRunner(_spec(url), tmp_path / "b").run()).cell("loop/m", "weather").runs[0]
    assert (
        run.word == "error" and run.rate_limits == () and "retry-after: 3600" in run.error.message
    )
