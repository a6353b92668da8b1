"""The demo provider: a real HTTP server on loopback speaking seven providers' streaming APIs.

Invariants:
- asyncio + aiohttp.web only (no Qt): :meth:`DemoProvider.start` runs on whatever asyncio loop
  is running (a plain ``asyncio.run`` loop, pytest-asyncio's, or the GUI's qasync loop).
- Every request is appended to :attr:`DemoProvider.requests` before it is answered.
- A streamed response writes each frame with its own ``write`` and waits ``chunk_delay``
  (or the request's ``x-demo-chunk-delay``) between frames; nothing is buffered beyond that.
- The only state kept across requests is, per conversation key, how often it was seen (which
  ``demo-truncated-then-valid`` needs to tell a retry from a first attempt) and when it was
  first seen (the ``created`` timestamp): an identical request gets byte-identical frames.
- :meth:`DemoProvider.stop` is idempotent and prompt: in-flight streams (a stall included) are
  told to end at their next wait and their connections are closed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import orjson
from aiohttp import web

from inspector.net.listen import listen, reset

from . import bedrock
from .conversation import read_request
from .faults import FAULT_MESSAGES, HTML, RETRY_AFTER, error_body, inject
from .planner import plan, render
from .scenarios import SCENARIOS
from .wire import Frame, Pause, Reset, Split

STALL_DEFAULT = 30.0
"""Seconds ``fault-stall`` holds the stream when the request sets no ``x-demo-stall``."""
MIN_GAP = 0.05
"""The least pause before a reset and between the two writes of a split frame."""

ENDPOINTS = (
    ("POST", "/v1/chat/completions", "OpenAI Chat Completions (stream: true)"),
    ("POST", "/v1/responses", "OpenAI Responses (stream: true)"),
    ("POST", "/v1/messages", "Anthropic Messages (stream: true)"),
    ("POST", "/v1beta/models/{model}:streamGenerateContent?alt=sse", "Gemini"),
    ("POST", "/v2/chat", "Cohere v2 chat (stream: true)"),
    ("POST", "/v1beta/interactions", "Gemini Interactions (stream: true)"),
    ("POST", "/v1/completions", "OpenAI legacy completions (stream: true; text only)"),
    ("POST", "/model/{model}/converse-stream", "Amazon Bedrock ConverseStream (binary frames)"),
    ("POST", "/model/{model}/invoke-with-response-stream", "Bedrock InvokeModel: Anthropic chunks"),
    ("GET", "/v1/models", "every scenario, listed as a model"),
)
"""What the server answers (each OpenAI and Anthropic path also works without its ``/v1``
prefix)."""

BEDROCK = "bedrock-converse"
"""The one dialect whose body is not server-sent events (:mod:`.bedrock`)."""


class _Stopped(Exception):
    """The provider is stopping: end this stream now."""


class DemoProvider:
    """The embedded demo provider (see the module docstring)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, chunk_delay: float = 0.03) -> None:
        self.host = host
        self.port = port
        self.chunk_delay = chunk_delay
        self.url = ""
        """``http://HOST:PORT`` once started (the real bound port when ``port`` was 0)."""
        self.requests: list[dict[str, Any]] = []
        """Every request seen: method, path, dialect, model, body (for tests and logs)."""
        self.on_request: Callable[[dict[str, Any]], None] | None = None
        """Called with each request record as it arrives (the CLI prints them)."""
        self._runner: web.AppRunner | None = None
        self._stopping = asyncio.Event()
        self._seen: dict[str, tuple[int, int]] = {}  # conversation key -> (requests, created)

    # -- lifecycle ------------------------------------------------------------------------

    async def start(self) -> str:
        """Listen and return the base URL; calling it again returns the same URL."""
        if self._runner is not None:
            return self.url
        self._stopping = asyncio.Event()
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.add_routes(self._routes())
        self._runner, self.port, self.url = await listen(app, self.host, self.port, 2.0)
        return self.url

    async def stop(self) -> None:
        """Close the listener and every connection; safe to call twice or before start."""
        runner, self._runner = self._runner, None
        if runner is None:
            return
        self._stopping.set()
        await runner.cleanup()

    def _routes(self) -> list[web.RouteDef]:
        routes = [web.get("/", self._index)]
        for prefix in ("/v1", ""):
            routes += [
                web.post(f"{prefix}/chat/completions", self._dialect("openai-chat")),
                web.post(f"{prefix}/responses", self._dialect("openai-responses")),
                web.post(f"{prefix}/messages", self._dialect("anthropic")),
                web.post(f"{prefix}/completions", self._dialect("openai-completions")),
                web.get(f"{prefix}/models", self._models),
                web.get(f"{prefix}/models/{{target}}", self._model),
                web.post(f"{prefix}/models/{{target}}", self._gemini),
            ]
        routes.append(web.post("/v1beta/models/{target}", self._gemini))
        routes.append(web.post("/v2/chat", self._dialect("cohere-v2")))
        routes.append(web.post("/v1beta/interactions", self._dialect("gemini-interactions")))
        routes.append(web.post("/model/{target}/converse-stream", self._bedrock))
        routes.append(web.post("/model/{target}/invoke-with-response-stream", self._invoke))
        return routes

    # -- small endpoints ------------------------------------------------------------------

    async def _index(self, request: web.Request) -> web.Response:
        endpoints = [f"{method} {path}" for method, path, _ in ENDPOINTS]
        return _json(
            200,
            {
                "name": "toolcall-inspector demo provider",
                "endpoints": endpoints,
                "models": list(SCENARIOS),
            },
        )

    async def _models(self, request: web.Request) -> web.Response:
        self._record(request, None, None, None)
        return _json(200, {"object": "list", "data": [s.to_model() for s in SCENARIOS.values()]})

    async def _model(self, request: web.Request) -> web.Response:
        name = request.match_info["target"]
        if name in SCENARIOS:
            return _json(200, SCENARIOS[name].to_model())
        return _json(404, error_body("openai-chat", 404, _unknown(name), "model"))

    # -- streaming endpoints --------------------------------------------------------------

    def _dialect(self, dialect: str) -> Callable[[web.Request], Any]:
        async def handler(request: web.Request) -> web.StreamResponse:
            return await self._serve(request, dialect, None)

        return handler

    async def _gemini(self, request: web.Request) -> web.StreamResponse:
        model, _, method = request.match_info["target"].partition(":")
        if method not in ("streamGenerateContent", "generateContent"):
            return _json(404, error_body("gemini", 404, f"unknown method {method!r}"))
        return await self._serve(request, "gemini", model)

    async def _bedrock(self, request: web.Request) -> web.StreamResponse:
        return await self._serve(request, BEDROCK, request.match_info["target"])

    async def _invoke(self, request: web.Request) -> web.StreamResponse:
        """InvokeModelWithResponseStream: an Anthropic Messages request (no ``model``, no
        ``stream``: the path says both), its events in Bedrock ``chunk`` frames."""
        return await self._serve(request, "anthropic", request.match_info["target"], invoke=True)

    async def _serve(
        self, request: web.Request, dialect: str, model: str | None, invoke: bool = False
    ) -> web.StreamResponse:
        try:
            body = await request.json(loads=orjson.loads)
        except ValueError:
            body = None
        ask = read_request(dialect, body, model) if isinstance(body, dict) else None
        if ask is not None and invoke:
            ask.stream = True  # the path says invoke-with-response-stream
        answer_as = BEDROCK if invoke else dialect  # whose error bodies
        self._record(request, dialect, ask.model if ask is not None else model, body)
        if ask is None:
            return _failed(answer_as, 400, "the request body is not a JSON object")
        scenario = SCENARIOS.get(ask.model)
        if scenario is None:
            return _failed(answer_as, 404, _unknown(ask.model), "model")
        if scenario.fault == "status":
            headers = {"retry-after": str(RETRY_AFTER)} if scenario.status == 429 else {}
            return _failed(
                answer_as, scenario.status, FAULT_MESSAGES[scenario.status], None, headers
            )
        gemini_stream = request.match_info.get("target", "").endswith(":streamGenerateContent")
        if dialect == "gemini" and not (gemini_stream and request.query.get("alt") == "sse"):
            return _json(
                400,
                error_body(
                    dialect,
                    400,
                    "the demo provider only streams; use :streamGenerateContent?alt=sse",
                ),
            )
        if dialect != "gemini" and not ask.stream:
            return _json(
                400,
                error_body(
                    dialect, 400, "the demo provider only streams; set stream: true", "stream"
                ),
            )
        if scenario.fault == "wrong-content-type":
            return web.Response(status=200, body=HTML, content_type="text/html")
        attempt, created = self._seen.get(ask.key, (0, int(time.time())))
        self._seen[ask.key] = (attempt + 1, created)
        delay = _seconds(request.headers.get("x-demo-chunk-delay"), self.chunk_delay)
        stall = _seconds(request.headers.get("x-demo-stall"), STALL_DEFAULT)
        turn = plan(scenario, ask, attempt, created)
        marker = turn.calls[0].id.encode() if turn.calls and turn.calls[0].id else None
        frames = inject(
            scenario.fault, render(turn), stall=stall, gap=max(delay, MIN_GAP), marker=marker
        )
        if dialect == BEDROCK:
            frames = bedrock.reframe(frames)  # bad bytes inside a whole frame
        if invoke:
            frames, dialect = bedrock.invoke_chunks(frames), BEDROCK  # Bedrock's framing
        return await self._stream(request, dialect, frames, delay)

    async def _stream(
        self, request: web.Request, dialect: str, frames: list[Frame], delay: float
    ) -> web.StreamResponse:
        rid = "req_" + format(len(self.requests), "08d")
        ctype = "text/event-stream" + ("" if dialect == "gemini" else "; charset=utf-8")
        if dialect == BEDROCK:
            ctype = bedrock.CONTENT_TYPE
        resp = web.StreamResponse(
            headers={
                "content-type": ctype,
                "cache-control": "no-cache",
                "x-request-id": rid,
                "request-id": rid,
            }
        )
        await resp.prepare(request)
        try:
            for n, frame in enumerate(frames):
                if n and delay > 0:
                    await self._sleep(delay)
                if isinstance(frame, bytes):
                    await resp.write(frame)
                elif isinstance(frame, Pause):
                    await self._sleep(frame.seconds)
                elif isinstance(frame, Split):
                    for i, part in enumerate(frame.parts):
                        if i:
                            await self._sleep(frame.gap)
                        await resp.write(part)
                elif isinstance(frame, Reset):
                    reset(request)
                    return resp
            await resp.write_eof()
        except _Stopped:
            if request.transport is not None:
                request.transport.abort()
        except ConnectionError:
            pass  # the client went away; nothing left to tell it
        return resp

    async def _sleep(self, seconds: float) -> None:
        """Wait ``seconds``, or raise :class:`_Stopped` as soon as the provider stops."""
        if self._stopping.is_set():
            raise _Stopped
        if seconds <= 0:
            return
        try:
            await asyncio.wait_for(self._stopping.wait(), seconds)
        except TimeoutError:
            return
        raise _Stopped

    def _record(
        self, request: web.Request, dialect: str | None, model: str | None, body: Any
    ) -> dict[str, Any]:
        record = {
            "method": request.method,
            "path": request.path,
            "dialect": dialect,
            "model": model,
            "body": body,
        }
        self.requests.append(record)
        if self.on_request is not None:
            self.on_request(record)
        return record


def _failed(
    dialect: str,
    status: int,
    message: str,
    param: str | None = None,
    headers: dict[str, str] | None = None,
) -> web.Response:
    """The error answer ``dialect``'s provider gives (Bedrock: its type in a header)."""
    if dialect == BEDROCK:
        body, named = bedrock.error(status, message)
        return _json(status, body, {**(headers or {}), **named})
    return _json(status, error_body(dialect, status, message, param), headers)


def _json(status: int, obj: Any, headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(
        status=status, body=orjson.dumps(obj), content_type="application/json", headers=headers
    )


def _unknown(model: str) -> str:
    return (
        f"The model {model!r} does not exist on the demo provider. Available models: "
        + ", ".join(SCENARIOS)
    )


def _seconds(value: str | None, default: float) -> float:
    """A non-negative number of seconds from a header, or ``default``."""
    try:
        seconds = float(value) if value is not None else default
    except ValueError:
        return default
    return seconds if 0 <= seconds < 3600 else default
