"""The recording proxy with real parts: the official SDKs as the agent, the demo provider as
the upstream, :class:`RecordingProxy` between them.

For each scenario the agent talks to the demo provider directly, then through the proxy: what
the SDK assembles and the raw bytes it read must be the same both ways, and the proxy's
capture, read back, must give the SDK's calls. A canary key set in the SDK is found in no file
the proxy wrote. (Faults: ``test_faults.py``; every scenario: ``test_every_scenario.py``.)
"""

from __future__ import annotations

import gzip
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import anthropic
import httpx
import openai
import orjson
import pytest
from aiohttp import web
from sdktee import Tee, http_lib

from inspector.core.analysis.session import Analysis
from inspector.core.base.settings import Settings
from inspector.core.capture.reader import load
from inspector.core.providers import REGISTRY, sniff_url
from inspector.net.demo import DemoProvider
from inspector.net.proxy import RecordingProxy, Upstream
from inspector.net.proxy.exchange import human_size
from inspector.net.proxy.routes import Route, end_to_end, secrets_of
from net.proxy.ending import ended

CANARY = "sk-canary-7f3a9c1e5b2d4086"
"""The key every agent here sends: it must show in no file the proxy writes."""
SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["c", "f"]}},
    "required": ["city"],
}
CHAT_TOOLS: Any = [
    {"type": "function", "function": {"name": "get_weather", "parameters": SCHEMA}},
]
RESPONSES_TOOLS: Any = [{"type": "function", "name": "get_weather", "parameters": SCHEMA}]
ANTHROPIC_TOOLS: Any = [{"name": "get_weather", "input_schema": SCHEMA}]
QUESTION = "What's the weather in Paris?"


# -- the agent's side: what it read, byte for byte --------------------------------------------


Run = Callable[[Any], Awaitable[Any]]


async def direct_and_proxied(make: Callable[[str, Tee], Any], lib: ModuleType, demo: str,
                             proxy: RecordingProxy, run: Run) -> tuple[Any, Any]:  # fmt: skip
    """``run`` the agent against the demo provider (twice: the first request makes a
    retry-sensitive scenario play its steady answer), then through the proxy: the results
    and raw bodies of the last two. Asserts the bodies are byte-identical."""
    direct_tee, proxied_tee = Tee(lib), Tee(lib)
    try:
        direct = make(demo, direct_tee)
        await run(direct)
        want = await run(direct)
        got = await run(make(proxy.origin, proxied_tee))
    finally:
        await direct_tee.client.aclose()
        await proxied_tee.client.aclose()
    assert proxied_tee.last_body() == direct_tee.last_body() and direct_tee.last_body()
    return want, got


async def recorded_calls(proxy: RecordingProxy) -> list[tuple[str, str, str]]:
    """The last exchange's calls, read back from its capture (as ``analyze`` would)."""
    ex = await ended(proxy)
    assert ex.capture_path is not None
    capture = load(ex.capture_path)
    settings = Settings(dialect=capture.meta["dialect"])
    analysis = Analysis.from_capture(capture, settings, providers=REGISTRY)
    live = ex.analysis
    assert live is not None
    calls = [(str(v.call.id), str(v.name), v.arguments) for v in analysis.final.verdicts]
    assert calls == [(str(v.call.id), str(v.name), v.arguments) for v in live.final.verdicts]
    return calls


def assert_no_canary(root: Path) -> None:
    files = [p for p in root.rglob("*") if p.is_file()]
    assert files
    for path in files:
        assert CANARY.encode() not in path.read_bytes(), path


# -- OpenAI (the official SDK as the agent) ----------------------------------------------------


def openai_agent(base: str, tee: Tee) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=base + "/v1", api_key=CANARY, max_retries=0,
                              http_client=tee.client)  # fmt: skip


@pytest.mark.parametrize("model", ["demo-clean", "demo-parallel", "demo-glm-empty-string"])
async def test_openai_chat_through_the_proxy(
    demo: str, proxy: RecordingProxy, tmp_path: Path, model: str
) -> None:
    async def run(agent: openai.AsyncOpenAI) -> list[tuple[str, str, str]]:
        async with agent.chat.completions.stream(
            model=model, messages=[{"role": "user", "content": QUESTION}], tools=CHAT_TOOLS
        ) as stream:
            final = await stream.get_final_completion()
        calls = final.choices[0].message.tool_calls or []
        return [(c.id, c.function.name, c.function.arguments) for c in calls]

    want, got = await direct_and_proxied(openai_agent, http_lib(openai), demo, proxy, run)
    assert got == want and got
    assert await recorded_calls(proxy) == got
    ex = await ended(proxy)
    assert (ex.method, ex.path, ex.model, ex.status, ex.dialect) == (
        "POST", "/v1/chat/completions", model, 200, "openai-chat",
    )  # fmt: skip
    assert ex.verdict == "accepted" and ex.calls == len(got)
    assert_no_canary(tmp_path)


@pytest.mark.parametrize("model", ["demo-clean", "demo-parallel"])
async def test_openai_responses_through_the_proxy(
    demo: str, proxy: RecordingProxy, tmp_path: Path, model: str
) -> None:
    async def run(agent: openai.AsyncOpenAI) -> list[tuple[str, str, str]]:
        async with agent.responses.stream(
            model=model, input=QUESTION, tools=RESPONSES_TOOLS
        ) as stream:
            final = await stream.get_final_response()
        items = [o for o in final.output if o.type == "function_call"]
        return [(o.call_id, o.name, o.arguments) for o in items]

    want, got = await direct_and_proxied(openai_agent, http_lib(openai), demo, proxy, run)
    assert got == want and got
    assert await recorded_calls(proxy) == got
    assert proxy.exchanges[-1].dialect == "openai-responses"
    assert_no_canary(tmp_path)


async def test_models_and_other_requests_are_forwarded_and_listed(
    demo: str, proxy: RecordingProxy, tmp_path: Path
) -> None:
    tee = Tee(http_lib(openai))
    try:
        models = await openai_agent(proxy.origin, tee).models.list()
    finally:
        await tee.client.aclose()
    assert [m.id for m in models.data][:2] == ["demo-clean", "demo-parallel"]
    async with httpx.AsyncClient(trust_env=False) as client:
        direct = await client.get(f"{demo}/v1/models")
    assert tee.last_body() == direct.content
    ex = await ended(proxy)
    assert (ex.method, ex.path, ex.status, ex.size) == (
        "GET",
        "/v1/models",
        200,
        len(tee.last_body()),
    )
    assert not ex.recorded and ex.verdict is None
    assert ex.line().endswith(f"GET  /v1/models  -  200  {human_size(len(tee.last_body()))}")
    assert not (tmp_path / "captures").exists() or not list((tmp_path / "captures").iterdir())


# -- Anthropic ---------------------------------------------------------------------------------


def anthropic_agent(base: str, tee: Tee) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(base_url=base, api_key=CANARY, max_retries=0,
                                    http_client=tee.client)  # fmt: skip


@pytest.mark.parametrize("model", ["demo-clean", "demo-parallel", "demo-interleaved"])
async def test_anthropic_through_the_proxy(
    demo: str, proxy: RecordingProxy, tmp_path: Path, model: str
) -> None:
    async def run(agent: anthropic.AsyncAnthropic) -> list[tuple[str, str, str]]:
        async with agent.messages.stream(
            model=model, max_tokens=1024, tools=ANTHROPIC_TOOLS,
            messages=[{"role": "user", "content": QUESTION}],
        ) as stream:  # fmt: skip
            final = await stream.get_final_message()
        uses = [b for b in final.content if b.type == "tool_use"]
        return [(b.id, b.name, orjson.dumps(b.input).decode()) for b in uses]

    want, got = await direct_and_proxied(anthropic_agent, http_lib(anthropic), demo, proxy, run)
    assert got == want and got
    calls = await recorded_calls(proxy)
    assert [(i, n, orjson.loads(a or "{}")) for i, n, a in calls] == [
        (i, n, orjson.loads(a)) for i, n, a in got
    ]
    ex = await ended(proxy)
    assert ex.dialect == "anthropic" and ex.path == "/v1/messages"
    assert_no_canary(tmp_path)


# -- Gemini (any HTTP client: the key in ?key=) ------------------------------------------------


@pytest.mark.parametrize("model", ["demo-clean", "demo-parallel"])
async def test_gemini_through_the_proxy_with_the_key_in_the_url(
    demo: str, proxy: RecordingProxy, tmp_path: Path, model: str
) -> None:
    declaration = {"name": "get_weather", "parameters": SCHEMA}
    body = {
        "contents": [{"role": "user", "parts": [{"text": QUESTION}]}],
        "tools": [{"functionDeclarations": [declaration]}],
    }
    path = f"/v1beta/models/{model}:streamGenerateContent?alt=sse&key={CANARY}"

    async def run(base: str) -> bytes:
        async with httpx.AsyncClient(trust_env=False) as client:
            return (await client.post(base + path, json=body)).content

    await run(demo)
    direct, proxied = await run(demo), await run(proxy.origin)
    assert proxied == direct and b"functionCall" in direct
    ex = await ended(proxy)
    assert ex.dialect == "gemini" and ex.model == model and ex.verdict == "accepted"
    assert ex.path == f"/v1beta/models/{model}:streamGenerateContent?alt=sse&key=REDACTED"
    assert await recorded_calls(proxy)
    assert_no_canary(tmp_path)


# -- encoded bodies, routes, secrets -----------------------------------------------------------


async def test_a_compressed_stream_is_relayed_as_sent_and_judged_decoded(tmp_path: Path) -> None:
    """An upstream that gzips its event stream: the agent gets the compressed bytes exactly,
    the capture holds the stream decoded, and the calls are judged."""
    async with httpx.AsyncClient(trust_env=False) as client:
        provider = DemoProvider("127.0.0.1", 0, chunk_delay=0)
        plain = await client.post(
            await provider.start() + "/v1/chat/completions",
            json={"model": "demo-parallel", "stream": True, "messages": [{"role": "user",
                  "content": QUESTION}], "tools": CHAT_TOOLS},
        )  # fmt: skip
        await provider.stop()
    packed = gzip.compress(plain.content)

    async def gzipped(request: web.Request) -> web.StreamResponse:
        out = web.StreamResponse(headers={"content-type": "text/event-stream",
                                          "content-encoding": "gzip"})  # fmt: skip
        await out.prepare(request)
        for i in range(0, len(packed), 100):
            await out.write(packed[i : i + 100])
        await out.write_eof()
        return out

    app = web.Application()
    app.router.add_post("/v1/chat/completions", gzipped)
    upstream = web.AppRunner(app)
    await upstream.setup()
    site = web.TCPSite(upstream, "127.0.0.1", 0)
    await site.start()
    port = upstream.addresses[0][1]
    server = RecordingProxy(f"http://127.0.0.1:{port}/v1", captures=tmp_path)
    try:
        await server.start()
        raw = bytearray()
        async with httpx.AsyncClient(trust_env=False) as client:
            req = {"model": "demo-parallel", "stream": True, "tools": CHAT_TOOLS}
            async with client.stream("POST", server.agent_url + "/chat/completions", json=req,
                                     headers={"accept-encoding": "gzip"}) as response:  # fmt: skip
                async for chunk in response.aiter_raw():
                    raw += chunk
        assert bytes(raw) == packed
        ex = await ended(server)
        assert ex.calls == 3 and ex.verdict == "accepted" and ex.size == len(packed)
        capture = load(str(ex.capture_path))
        assert capture.attempts[0].body == plain.content
    finally:
        await server.stop()
        await upstream.cleanup()


def test_upstream_paths_map_under_the_base() -> None:
    up = Upstream.parse("https://api.example.com/v1/")
    assert up.url_for("/v1/chat/completions") == "https://api.example.com/v1/chat/completions"
    assert up.url_for("/chat/completions?x=1") == "https://api.example.com/v1/chat/completions?x=1"
    assert up.url_for("/v1beta/models") == "https://api.example.com/v1/v1beta/models"
    assert up.agent_url("http://127.0.0.1:9") == "http://127.0.0.1:9/v1"
    root = Upstream.parse("http://127.0.0.1:8765")
    assert root.url_for("/v1/messages") == "http://127.0.0.1:8765/v1/messages"
    assert root.agent_url("http://127.0.0.1:9") == "http://127.0.0.1:9" and root.local
    for bad in ("ftp://x", "no-scheme", "http://", "http://h/v1?key=1", "http://h:99999"):
        with pytest.raises(ValueError):
            Upstream.parse(bad)


def test_hop_by_hop_headers_and_host_are_not_forwarded() -> None:
    headers = [("Host", "proxy"), ("Connection", "keep-alive, X-Private"), ("X-Private", "1"),
               ("Keep-Alive", "5"), ("Transfer-Encoding", "chunked"), ("Authorization", "B k"),
               ("X-Stainless-Lang", "python"), ("Expect", "100-continue"),
               ("TE", "trailers")]  # fmt: skip
    route = Route.of(Upstream.parse("http://u"), "POST", "/x", headers, b"{}")
    assert route.headers == [("Authorization", "B k"), ("X-Stainless-Lang", "python")]
    assert end_to_end([("Content-Encoding", "gzip"), ("Upgrade", "h2c")]) == [
        ("Content-Encoding", "gzip")
    ]


def test_secrets_are_found_by_name_and_by_scheme() -> None:
    headers = [("Authorization", f"Bearer {CANARY}"), ("x-api-key", "k2"),
               ("x-goog-api-key", "k3"), ("api-key", "k4"), ("X-Title", "mine")]  # fmt: skip
    found = secrets_of(headers, "http://u:pw@h/x?key=k5&alt=sse")
    assert set(found) == {f"Bearer {CANARY}", CANARY, "k2", "k3", "k4", "k5", "u", "pw"}
    body = orjson.dumps({"model": "m", "metadata": {"user_key": CANARY}, "stream": True})
    route = Route.of(Upstream.parse("http://h"), "POST", "/v1/chat/completions", headers, body)
    assert route.dialect == "openai-chat" and route.model == "m" and route.key == CANARY
    spec = route.spec()
    assert CANARY not in orjson.dumps([spec.url, dict(spec.headers), spec.body]).decode()


def test_llm_endpoints_by_path_and_the_error_shape_each_answers_with() -> None:
    assert sniff_url("http://h/v1beta/models/g:generateContent") == "gemini"
    up = Upstream.parse("http://h")
    for path, dialect in [("/v1/chat/completions", "openai-chat"), ("/v1/responses",
                          "openai-responses"), ("/v1/messages", "anthropic"),
                          ("/v1beta/models/g:streamGenerateContent?alt=sse", "gemini"),
                          ("/v1/embeddings", None)]:  # fmt: skip
        route = Route.of(up, "POST", path, [], b'{"model": "m", "input": "x"}')
        assert route.dialect == dialect, path
        body = route.error_body(502, "no answer from the upstream")
        if dialect is not None:
            assert REGISTRY.get(dialect).error_message(body).endswith("no answer from the upstream")
    assert Route.of(up, "GET", "/v1/chat/completions", [], b"").dialect is None
    assert Route.of(up, "POST", "/v1/messages", [], b"not json").dialect is None
