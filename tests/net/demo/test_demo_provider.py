"""The embedded demo provider, over real loopback HTTP, judged by the inspector's own core.

Every test starts a real :class:`DemoProvider` on an ephemeral port and talks to it with
``httpx.AsyncClient`` through the network stack (no mocks, no transport stubs). Streams are
analysed with ``inspector.core`` exactly as a live capture would be. Requests ask for
``x-demo-chunk-delay: 0`` to stay fast, except the one test about timing.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import time
from typing import Any

import httpx
import orjson
import pytest
from conftest import REPO, one_fast_per

from inspector.core.analysis.session import Analysis
from inspector.core.base.model import OMITTED, EventKind
from inspector.core.base.settings import Settings
from inspector.core.calls.stream import StreamState
from inspector.core.calls.textcalls import from_text
from inspector.core.providers import REGISTRY, analyze_bytes
from inspector.core.quirks.codes import ORDER
from inspector.core.quirks.detect import detect
from inspector.core.verdicts.tools import ToolRegistry
from inspector.net.demo import SCENARIOS, DemoProvider
from inspector.net.demo.arguments import generate
from inspector.net.demo.conversation import MORE_DIALECTS
from inspector.net.demo.planner import RENDERERS
from inspector.net.demo.scenarios import NOT_SHOWN
from inspector.net.demo.server import STALL_DEFAULT

BEDROCK = "bedrock-converse"
DIALECTS = ("openai-chat", "openai-responses", "anthropic", "gemini", BEDROCK)
FAST = {"x-demo-chunk-delay": "0"}
TOOLS: list[tuple[str, str, dict[str, Any]]] = [
    (
        "read_file",
        "Read a text file",
        {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "path": {"type": "string"},
                "max_lines": {"type": "integer", "minimum": 1},
            },
            "required": ["path"],
        },
    ),
    (
        "search",
        "Search the web",
        {
            "type": "object",
            "properties": {"query": {"type": "string"}, "safe": {"type": "boolean"}},
            "required": ["query"],
        },
    ),
    (
        "run_command",
        "Run a shell command",
        {
            "type": "object",
            "properties": {"command": {"type": "string"}, "cwd": {"type": "string"}},
            "required": ["command"],
        },
    ),
]
FINISH_CALLS = {
    "openai-chat": "tool_calls",
    "openai-responses": "completed",
    "anthropic": "tool_use",
    "gemini": "STOP",
    BEDROCK: "tool_use",
}
FINISH_TEXT = {
    "openai-chat": "stop",
    "openai-responses": "completed",
    "anthropic": "end_turn",
    "gemini": "STOP",
    BEDROCK: "end_turn",
}


# -- helpers ---------------------------------------------------------------------------------


def tool_defs(dialect: str, tools: list[tuple[str, str, dict[str, Any]]]) -> list[Any]:
    """``tools`` in ``dialect``'s request shape."""
    if dialect == "openai-chat":
        return [
            {"type": "function", "function": {"name": n, "description": d, "parameters": s}}
            for n, d, s in tools
        ]
    if dialect == "openai-responses":
        return [
            {"type": "function", "name": n, "description": d, "parameters": s} for n, d, s in tools
        ]
    if dialect == "anthropic":
        return [{"name": n, "description": d, "input_schema": s} for n, d, s in tools]
    if dialect == BEDROCK:
        return [
            {"toolSpec": {"name": n, "description": d, "inputSchema": {"json": s}}}
            for n, d, s in tools
        ]
    return [
        {
            "functionDeclarations": [
                {"name": n, "description": d, "parameters": s} for n, d, s in tools
            ]
        }
    ]


def user(dialect: str, text: str = "Read the README, please.") -> dict[str, Any]:
    if dialect == "gemini":
        return {"role": "user", "parts": [{"text": text}]}
    if dialect == BEDROCK:
        return {"role": "user", "content": [{"text": text}]}
    return {"role": "user", "content": text}


def request(
    dialect: str,
    model: str,
    convo: list[Any] | None = None,
    tools: list[tuple[str, str, dict[str, Any]]] | None = TOOLS,
    **extra: Any,
) -> tuple[str, dict[str, Any]]:
    """(path, body) of a streaming request in ``dialect``."""
    convo = convo if convo is not None else [user(dialect)]
    body: dict[str, Any] = {}
    if dialect == "gemini":
        path = f"/v1beta/models/{model}:streamGenerateContent?alt=sse"
        body["contents"] = convo
    elif dialect == BEDROCK:
        path = f"/model/{model}/converse-stream"
        body["messages"] = convo
        if tools:
            body["toolConfig"] = {"tools": tool_defs(dialect, tools)}
        body.update(extra)
        return path, body
    else:
        path = {
            "openai-chat": "/v1/chat/completions",
            "openai-responses": "/v1/responses",
            "anthropic": "/v1/messages",
        }[dialect]
        body = {
            "model": model,
            "stream": True,
            "input" if dialect == "openai-responses" else "messages": convo,
        }
        if dialect == "anthropic":
            body["max_tokens"] = 1024
    if tools:
        body["tools"] = tool_defs(dialect, tools)
    body.update(extra)
    return path, body


def client(url: str = "", **kw: Any) -> httpx.AsyncClient:
    """A client for plain HTTP on loopback (verify=False: no CA bundle to load, ~50 ms saved)."""
    return httpx.AsyncClient(base_url=url, verify=False, **kw)


async def post(p: DemoProvider, path: str, body: Any, **headers: str) -> httpx.Response:
    async with client(p.url, timeout=10) as c:
        return await c.post(path, json=body, headers={**FAST, **headers})


async def fetch(p: DemoProvider, dialect: str, model: str, **kw: Any) -> bytes:
    """Request a stream and return its body; the response must be a 200 event stream."""
    path, body = request(dialect, model, **kw)
    r = await post(p, path, body)
    assert r.status_code == 200, r.text
    ctype = "application/vnd.amazon.eventstream" if dialect == BEDROCK else "text/event-stream"
    assert r.headers["content-type"].startswith(ctype)
    return r.content


async def stream(p: DemoProvider, dialect: str, model: str, **kw: Any) -> StreamState:
    """Request a stream and analyse its body."""
    return analyze_bytes(await fetch(p, dialect, model, **kw))


def codes(state: StreamState) -> set[str]:
    return {q.code for q in detect(state)}


def follow_up(dialect: str, state: StreamState, result: str) -> list[Any]:
    """The conversation after one round: the calls ``state`` made, each answered ``result``."""
    calls = state.acc.assembled() if state.acc else []
    first = user(dialect)
    if dialect == "openai-chat":
        tcs = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in calls
        ]
        return [
            first,
            {"role": "assistant", "content": None, "tool_calls": tcs},
            *({"role": "tool", "tool_call_id": c.id, "content": result} for c in calls),
        ]
    if dialect == "openai-responses":
        items: list[Any] = [first]
        items += [
            {"type": "function_call", "call_id": c.id, "name": c.name, "arguments": c.arguments}
            for c in calls
        ]
        items += [
            {"type": "function_call_output", "call_id": c.id, "output": result} for c in calls
        ]
        return items
    if dialect == "anthropic":
        uses = [
            {"type": "tool_use", "id": c.id, "name": c.name, "input": orjson.loads(c.arguments)}
            for c in calls
        ]
        results = [{"type": "tool_result", "tool_use_id": c.id, "content": result} for c in calls]
        return [first, {"role": "assistant", "content": uses}, {"role": "user", "content": results}]
    if dialect == BEDROCK:
        uses = [
            {"toolUse": {"toolUseId": c.id, "name": c.name, "input": orjson.loads(c.arguments)}}
            for c in calls
        ]
        answers = [
            {"toolResult": {"toolUseId": c.id, "content": [{"text": result}]}} for c in calls
        ]
        return [first, {"role": "assistant", "content": uses}, {"role": "user", "content": answers}]
    fcs = [{"functionCall": {"name": c.name, "args": orjson.loads(c.arguments)}} for c in calls]
    frs = [{"functionResponse": {"name": c.name, "response": {"result": result}}} for c in calls]
    return [first, {"role": "model", "parts": fcs}, {"role": "user", "parts": frs}]


# -- lifecycle -------------------------------------------------------------------------------


async def test_start_binds_an_ephemeral_port_and_stop_is_idempotent() -> None:
    p = DemoProvider(port=0, chunk_delay=0)
    await p.stop()  # before start: a no-op
    url = await p.start()
    assert url == p.url and url.startswith("http://127.0.0.1:")
    port = int(url.rsplit(":", 1)[1])
    assert port > 0 and port == p.port
    assert await p.start() == url  # a second start changes nothing
    async with client() as c:
        r = await c.get(url + "/")
        assert r.status_code == 200 and "POST /v1/chat/completions" in r.json()["endpoints"]
    await p.stop()
    await p.stop()
    async with client() as c:
        with pytest.raises(httpx.ConnectError):
            await c.get(url + "/v1/models")


async def test_every_request_is_recorded(demo_provider: DemoProvider) -> None:
    path, body = request("openai-chat", "demo-clean")
    await post(demo_provider, path, body)
    await post(
        demo_provider,
        "/v1beta/models/demo-clean:streamGenerateContent?alt=sse",
        {"contents": [user("gemini")]},
    )
    async with client(demo_provider.url) as c:
        await c.get("/v1/models")
    chat, gem, models = demo_provider.requests
    assert (chat["method"], chat["path"], chat["model"], chat["dialect"]) == (
        "POST",
        "/v1/chat/completions",
        "demo-clean",
        "openai-chat",
    )
    assert chat["body"] == body
    assert (gem["model"], gem["dialect"]) == ("demo-clean", "gemini")
    assert (models["method"], models["path"]) == ("GET", "/v1/models")


# -- conforming streams ----------------------------------------------------------------------


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_clean_stream_is_conforming_and_valid(
    demo_provider: DemoProvider, dialect: str
) -> None:
    analysis = Analysis(
        Settings(validation="strict"),
        ToolRegistry.from_definitions(tool_defs(dialect, TOOLS), REGISTRY),
        providers=REGISTRY,
    )
    analysis.feed(await fetch(demo_provider, dialect, "demo-clean"))
    analysis.end()
    state = analysis.final.state
    assert state.dialect_name == dialect
    assert codes(state) == set() and analysis.final.quirks == []
    (verdict,) = analysis.final.verdicts
    assert verdict.valid, verdict.problems
    call = verdict.call
    assert call.name == "read_file" and orjson.loads(call.arguments)["path"] == "README.md"
    assert state.finish_reason == FINISH_CALLS[dialect]
    prefix = {"openai-chat": "call_", "openai-responses": "call_", "anthropic": "toolu_01",
              BEDROCK: "tooluse_"}  # fmt: skip
    if dialect == "gemini":
        assert call.id is OMITTED and verdict.repaired_id  # Gemini sends no id
    else:
        assert call.id.startswith(prefix[dialect]) and len(call.id) > 20
    if dialect not in ("gemini", BEDROCK):  # neither has an end marker
        assert state.done_seq is not None and state.done_seq == len(state.events) - 1
    if dialect == "openai-responses":
        assert call.fragments[0].extra["item_id"].startswith("fc_")
        assert state.usage["total_tokens"] > 0


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_parallel_calls_use_up_to_three_tools(
    demo_provider: DemoProvider, dialect: str
) -> None:
    state = await stream(demo_provider, dialect, "demo-parallel")
    calls = state.acc.assembled() if state.acc else []
    assert [c.name for c in calls] == ["read_file", "search", "run_command"]
    state = await stream(demo_provider, dialect, "demo-parallel", tools=TOOLS[:1])
    args = [orjson.loads(c.arguments)["path"] for c in state.calls]
    assert args == ["README.md", "pyproject.toml", "docs/index.md"]  # one tool, three variants
    assert len({c.id for c in state.calls}) == (1 if dialect == "gemini" else 3)


async def test_no_tools_means_the_builtin_get_weather(demo_provider: DemoProvider) -> None:
    state = await stream(demo_provider, "openai-chat", "demo-clean", tools=None)
    (call,) = state.calls
    assert call.name == "get_weather" and orjson.loads(call.arguments)["location"] == "Paris"


async def test_forced_tool_choice_is_honoured(demo_provider: DemoProvider) -> None:
    choice = {"type": "function", "function": {"name": "search"}}
    state = await stream(demo_provider, "openai-chat", "demo-clean", tool_choice=choice)
    assert [c.name for c in state.calls] == ["search"]
    state = await stream(
        demo_provider,
        "anthropic",
        "demo-clean",
        tool_choice={"type": "tool", "name": "run_command"},
    )
    assert [c.name for c in state.calls] == ["run_command"]
    state = await stream(demo_provider, "openai-chat", "demo-clean", tool_choice="none")
    assert state.calls == [] and state.finish_reason == "stop" and state.full_text


async def test_identical_requests_get_identical_bytes(demo_provider: DemoProvider) -> None:
    path, body = request("anthropic", "demo-parallel")
    first, second = await post(demo_provider, path, body), await post(demo_provider, path, body)
    assert first.content == second.content


async def test_include_usage_adds_the_usage_only_chunk(demo_provider: DemoProvider) -> None:
    with_usage = await stream(
        demo_provider, "openai-chat", "demo-clean", stream_options={"include_usage": True}
    )
    assert codes(with_usage) == {"usage_only_chunk"} and with_usage.usage["total_tokens"] > 0
    without = await stream(demo_provider, "openai-chat", "demo-clean")
    assert without.usage is None


async def test_framing_follows_each_provider(demo_provider: DemoProvider) -> None:
    path, body = request("gemini", "demo-clean")
    gem = (await post(demo_provider, path, body)).content
    assert gem.count(b"\r\n\r\n") == gem.count(b"data: ") > 1 and b"\n\n" not in gem
    path, body = request("anthropic", "demo-clean")
    state = analyze_bytes((await post(demo_provider, path, body)).content)
    kinds = [e.event for e in state.events]
    assert kinds[:4] == ["message_start", "content_block_start", "ping", "content_block_delta"]
    assert kinds[-2:] == ["message_delta", "message_stop"]
    assert all(orjson.loads(e.data)["type"] == e.event for e in state.events)
    path, body = request("openai-responses", "demo-clean")
    state = analyze_bytes((await post(demo_provider, path, body)).content)
    seqs = [orjson.loads(e.data)["sequence_number"] for e in state.events]
    assert seqs == list(range(len(seqs)))
    assert [e.event for e in state.events][:3] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
    ]
    assert state.events[-1].event == "response.completed"


# -- every quirk, table-driven ---------------------------------------------------------------

QUIRK_CASES = [
    (name, dialect)
    for name, sc in SCENARIOS.items()
    if sc.fault in (None, "invalid-utf8", "split")
    for dialect in DIALECTS
]


# make test: every scenario whose quirks show in a dialect, and one that plays conforming
# there; the conforming others (a scenario of another dialect's quirks) behind -m slow
@pytest.mark.parametrize(
    ("name", "dialect"),
    one_fast_per(QUIRK_CASES, lambda c: (c, "shows") if SCENARIOS[c[0]].quirks.get(c[1]) else c[1]),
)
async def test_scenario_shows_exactly_its_quirks(
    demo_provider: DemoProvider, name: str, dialect: str
) -> None:
    state = await stream(demo_provider, dialect, name)
    assert state.dialect_name == dialect
    expected = set(SCENARIOS[name].quirks.get(dialect, ()))
    assert codes(state) == expected


# Anthropic's conforming tool_use block already says "input": {}: with no arguments there is
# nothing left to send "whole" in content_block_start.
NEEDS_ARGUMENTS = {("demo-args-object", "anthropic")}


@pytest.mark.parametrize(
    ("name", "dialect"),
    one_fast_per(  # one scenario per dialect in make test, every one in make test-slow
        [
            (name, dialect)
            for name, dialect in QUIRK_CASES
            if dialect in SCENARIOS[name].quirks and (name, dialect) not in NEEDS_ARGUMENTS
        ],
        lambda c: c[1],
    ),
)
async def test_quirks_survive_a_zero_parameter_tool(
    demo_provider: DemoProvider, name: str, dialect: str
) -> None:
    """Arguments ``{}`` are as short as they get; every quirk must still show (a cut frame
    may then also lose every fragment, so other codes may join)."""
    ping = [("ping", "Is the service up?", {"type": "object", "properties": {}})]
    state = await stream(demo_provider, dialect, name, tools=ping)
    assert codes(state) >= set(SCENARIOS[name].quirks[dialect])
    agent = {c.name for c in state.calls if c.kind == "function"}  # (hosted/custom items:
    assert agent <= {"ping", OMITTED}  # their own names)  OMITTED: the stray orphan


def test_table_codes_are_real_and_every_code_is_shown_somewhere() -> None:
    shown = {c for sc in SCENARIOS.values() for cs in sc.quirks.values() for c in cs}
    assert shown <= set(ORDER)
    assert shown | set(NOT_SHOWN) == set(ORDER)
    for name, sc in SCENARIOS.items():
        assert name.startswith(("demo-", "fault-")) and sc.description
        for dialect, module in RENDERERS.items():
            if name in module.VARIANTS:
                assert dialect in sc.quirks, (name, dialect)


def test_docs_table_lists_every_scenario_with_its_codes() -> None:
    doc = (REPO / "docs" / "demo-provider.md").read_text(encoding="utf-8")
    section = doc.split("\n## Scenarios\n", 1)[1].split("\n#", 1)[0]
    rows = {
        line.split("|")[1].strip(" `"): line
        for line in section.splitlines()
        if line.startswith(("| `demo-", "| `fault-"))
    }
    assert list(rows) == list(SCENARIOS)
    for name, sc in SCENARIOS.items():
        cell = rows[name].split("|")[4]
        assert {c.strip("` ") for c in re.findall(r"`[a-z_0-9]+`", cell)} == set(sc.codes), name


async def test_empty_name_shows_a_name_change_under_the_literal_policy(
    demo_provider: DemoProvider,
) -> None:
    raw = await fetch(demo_provider, "openai-chat", "demo-glm-empty-name")
    literal = analyze_bytes(raw, empty_id="literal")
    assert codes(literal) == {"empty_string_continuation_name", "name_changed_mid_call"}
    assert NOT_SHOWN["name_changed_mid_call"].startswith("demo-glm-empty-name")


async def test_glm_stream_breaks_the_literal_accumulator(demo_provider: DemoProvider) -> None:
    raw = await fetch(demo_provider, "openai-chat", "demo-glm-empty-string")
    absent = analyze_bytes(raw)
    assert [
        orjson.loads(c.arguments)["path" if c.name == "read_file" else "query"]
        for c in absent.calls
    ] == ["README.md", "weather in Paris"]
    literal = analyze_bytes(raw, empty_id="literal")  # the empty-id accumulator bug: ""-ids dropped
    assert [c.arguments for c in literal.calls] == ["{", "{"]  # the bug report's raw_len=1


async def test_quirky_calls_break_where_the_notes_say(demo_provider: DemoProvider) -> None:
    cumulative = await stream(demo_provider, "openai-chat", "demo-cumulative-args")
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(cumulative.calls[0].arguments)
    orphan = await stream(demo_provider, "openai-chat", "demo-orphan-entry")
    assert orphan.acc is not None and [c.name for c in orphan.acc.assembled()] == ["read_file"]
    index0 = await stream(demo_provider, "openai-chat", "demo-parallel-index-0")
    assert [c.index for c in index0.calls] == [0, 0, 0] and len(index0.calls) == 3
    text = await stream(demo_provider, "openai-chat", "demo-text-mode")
    assert text.full_text.startswith("<tool_call>")  # no call on the wire, one in the text:
    assert [(c.name, from_text(c)) for c in text.calls] == [("read_file", True)]
    zero = await stream(demo_provider, "anthropic", "demo-zero-arg")
    assert [c.arguments for c in zero.calls] == [""]


@pytest.mark.parametrize("dialect", ["openai-chat", "openai-responses", "anthropic"])
async def test_truncated_call_is_cut_mid_arguments(
    demo_provider: DemoProvider, dialect: str
) -> None:
    state = await stream(demo_provider, dialect, "demo-truncated")
    (call,) = state.calls
    assert call.truncated and call.arguments.startswith("{")
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(call.arguments)


@pytest.mark.parametrize("dialect", ["openai-chat", "openai-responses", "anthropic"])
async def test_truncated_then_valid_on_the_identical_retry(
    demo_provider: DemoProvider, dialect: str
) -> None:
    path, body = request(dialect, "demo-truncated-then-valid")
    first = analyze_bytes((await post(demo_provider, path, body)).content)
    second = analyze_bytes((await post(demo_provider, path, body)).content)
    assert first.calls[0].truncated and codes(first) == {"finish_reason_mismatch"}
    assert not second.calls[0].truncated and codes(second) == set()
    assert orjson.loads(second.calls[0].arguments) == {"path": "README.md", "max_lines": 1}
    other = request(dialect, "demo-truncated-then-valid", [user(dialect, "Another question")])
    third = analyze_bytes((await post(demo_provider, *other)).content)
    assert third.calls[0].truncated  # a new conversation is cut off again


@pytest.mark.parametrize("model", ["demo-truncated-then-valid", "demo-glm-retry"])
async def test_running_the_same_thing_again_shows_the_retry_again(
    demo_provider: DemoProvider, model: str
) -> None:
    # A second Run in the window sends the very same request: it must be cut off again, as
    # the README promises, not served the retry's valid answer.
    path, body = request("openai-chat", model)
    cut = [
        any(
            c.truncated
            for c in analyze_bytes((await post(demo_provider, path, body)).content).calls
        )
        for _ in range(4)
    ]
    assert cut == [True, False, True, False]


# -- multi-round -----------------------------------------------------------------------------


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_tool_results_get_a_final_text_answer(
    demo_provider: DemoProvider, dialect: str
) -> None:
    first = await stream(demo_provider, dialect, "demo-parallel")
    convo = follow_up(dialect, first, "README says hello")
    final = await stream(demo_provider, dialect, "demo-parallel", convo=convo)
    assert final.calls == [] and final.finish_reason == FINISH_TEXT[dialect]
    assert "README says hello" in final.full_text and "read_file" in final.full_text
    assert codes(final) == set()


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_never_stops_calls_again_after_results(
    demo_provider: DemoProvider, dialect: str
) -> None:
    first = await stream(demo_provider, dialect, "demo-never-stops")
    again = await stream(
        demo_provider, dialect, "demo-never-stops", convo=follow_up(dialect, first, "more, please")
    )
    assert again.finish_reason == FINISH_CALLS[dialect] and "more, please" not in again.full_text
    paths = [orjson.loads(s.calls[0].arguments)["path"] for s in (first, again)]
    assert paths == ["README.md", "pyproject.toml"]  # each round asks for something new


# -- errors ----------------------------------------------------------------------------------


def error_message(dialect: str, body: dict[str, Any]) -> str:
    """The message of a provider-shaped error body (asserting the shape)."""
    if dialect == "anthropic":
        assert body["type"] == "error" and set(body["error"]) == {"type", "message"}
        return str(body["error"]["message"])
    if dialect == "gemini":
        assert set(body["error"]) == {"code", "message", "status"}
        return str(body["error"]["message"])
    if dialect == BEDROCK:  # its type goes in the x-amzn-errortype header
        assert set(body) == {"message"}
        return str(body["message"])
    assert set(body["error"]) == {"message", "type", "param", "code"}
    return str(body["error"]["message"])


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_unknown_model_is_a_404_listing_the_scenarios(
    demo_provider: DemoProvider, dialect: str
) -> None:
    path, body = request(dialect, "gpt-nonexistent")
    r = await post(demo_provider, path, body)
    assert r.status_code == 404 and r.headers["content-type"].startswith("application/json")
    message = error_message(dialect, r.json())
    assert "gpt-nonexistent" in message and all(name in message for name in SCENARIOS)


@pytest.mark.parametrize("dialect", ["openai-chat", "openai-responses", "anthropic"])
async def test_non_streaming_requests_are_refused(
    demo_provider: DemoProvider, dialect: str
) -> None:
    path, body = request(dialect, "demo-clean")
    for stream_flag in (False, None):
        if stream_flag is None:
            body.pop("stream")
        else:
            body["stream"] = stream_flag
        r = await post(demo_provider, path, body)
        assert r.status_code == 400
        assert "the demo provider only streams; set stream: true" in error_message(
            dialect, r.json()
        )


async def test_gemini_without_sse_is_refused(demo_provider: DemoProvider) -> None:
    for path in (
        "/v1beta/models/demo-clean:generateContent",
        "/v1beta/models/demo-clean:streamGenerateContent",
    ):
        r = await post(demo_provider, path, {"contents": [user("gemini")]})
        assert r.status_code == 400 and "only streams" in error_message("gemini", r.json())


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("status", [401, 429, 500])
async def test_status_faults(demo_provider: DemoProvider, dialect: str, status: int) -> None:
    path, body = request(dialect, f"fault-{status}")
    r = await post(demo_provider, path, body)
    assert r.status_code == status and r.headers["content-type"].startswith("application/json")
    assert f"fault-{status}" in error_message(dialect, r.json())
    assert (r.headers.get("retry-after") == "1") == (status == 429)


async def test_wrong_content_type_is_a_200_web_page(demo_provider: DemoProvider) -> None:
    path, body = request("openai-chat", "fault-wrong-content-type")
    r = await post(demo_provider, path, body)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert r.content.startswith(b"<!DOCTYPE html>") and b"data:" not in r.content


# -- transport faults ------------------------------------------------------------------------


def _chain(exc: BaseException | None) -> list[type[BaseException]]:
    out = []
    while exc is not None:
        out.append(type(exc))
        exc = exc.__cause__ or exc.__context__
    return out


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_reset_after_the_first_events(
    demo_provider: DemoProvider, dialect: str, record_property: Any
) -> None:
    path, body = request(dialect, "fault-reset")
    received = bytearray()
    async with client(demo_provider.url) as c:
        with pytest.raises(httpx.ReadError) as caught:  # a RST, not a clean FIN
            async with c.stream("POST", path, json=body, headers=FAST) as r:
                assert r.status_code == 200
                async for data in r.aiter_raw():
                    received += data
    record_property("bytes_before_reset", len(received))
    assert ConnectionResetError in _chain(caught.value)
    state = analyze_bytes(bytes(received))
    assert state.dialect_name == dialect
    assert sum(e.kind == EventKind.EVENT for e in state.events) >= 2
    assert state.finish == [] and state.done_seq is None  # cut before the end
    assert codes(state) == set(SCENARIOS["fault-reset"].quirks[dialect])
    if dialect != "gemini":  # Gemini's calls arrive whole: its cut falls before the call
        assert state.calls and state.calls[0].truncated
    if dialect == BEDROCK:  # only whole frames came: the last one's CRC closes the body
        assert not [e for e in state.events if e.kind == EventKind.ERROR]
        assert state.events[-1].end == len(received)
    else:
        assert bytes(received).endswith((b"\n\n", b"\r\n\r\n"))  # only whole events came


async def test_stall_times_out_a_short_read_timeout(demo_provider: DemoProvider) -> None:
    path, body = request("openai-chat", "fault-stall")
    received = bytearray()
    async with client(demo_provider.url, timeout=httpx.Timeout(5, read=0.3)) as c:
        with pytest.raises(httpx.ReadTimeout):
            async with c.stream(
                "POST", path, json=body, headers={**FAST, "x-demo-stall": "3"}
            ) as r:
                async for data in r.aiter_raw():
                    received += data
    # the stall lasts 3 s, after which the stream would finish: the timeout cut it first
    assert analyze_bytes(bytes(received)).events  # the first events came before the stall


def record_waits(provider: DemoProvider) -> list[tuple[float, str]]:
    """Record each wait of ``provider``'s streams: (seconds asked, how it ended: "elapsed" or
    the exception's class name), so tests see a stall without timing it."""
    waits: list[tuple[float, str]] = []
    wait = provider._sleep

    async def recording(seconds: float) -> None:
        try:
            await wait(seconds)
        except BaseException as exc:
            waits.append((seconds, type(exc).__name__))
            raise
        waits.append((seconds, "elapsed"))

    provider._sleep = recording  # type: ignore[method-assign]
    return waits


async def test_a_short_stall_then_the_stream_finishes(demo_provider: DemoProvider) -> None:
    path, body = request("anthropic", "fault-stall")
    waits = record_waits(demo_provider)
    r = await post(demo_provider, path, body, **{"x-demo-stall": "0.3"})
    assert (0.3, "elapsed") in waits  # the stream stalled, then went on
    state = analyze_bytes(r.content)
    assert codes(state) == set() and state.finish_reason == "tool_use"
    assert orjson.loads(state.calls[0].arguments)["path"] == "README.md"


async def test_stop_ends_a_stalled_stream_promptly(demo_provider: DemoProvider) -> None:
    path, body = request("openai-chat", "fault-stall")
    arrived = asyncio.Event()

    async def read() -> None:
        async with (
            client(demo_provider.url) as c,
            c.stream("POST", path, json=body, headers=FAST) as r,
        ):
            async for _ in r.aiter_raw():
                arrived.set()

    waits = record_waits(demo_provider)
    reader = asyncio.create_task(read())
    await asyncio.wait_for(arrived.wait(), 5)
    await demo_provider.stop()
    with pytest.raises(httpx.HTTPError):
        await asyncio.wait_for(reader, 5)
    # the stall was ended by stop's own signal, not cancelled by the server's shutdown timeout
    assert (STALL_DEFAULT, "_Stopped") in waits


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_invalid_utf8_byte_is_reported_by_the_decoder(
    demo_provider: DemoProvider, dialect: str
) -> None:
    path, body = request(dialect, "fault-invalid-utf8")
    raw = (await post(demo_provider, path, body)).content
    assert raw.count(b"\xff") == 1 or dialect == BEDROCK  # a frame's CRCs may hold 0xff bytes
    state = analyze_bytes(raw)
    (err,) = [e for e in state.events if e.kind == EventKind.ERROR]
    assert raw[err.start] == 0xFF and "0xff" in err.data
    assert raw.find(b"\xff\xff\xff") < 0  # one byte where the 3 of the character were
    assert codes(state) == {"invalid_utf8"}


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_split_multibyte_arrives_in_two_reads(
    demo_provider: DemoProvider, dialect: str
) -> None:
    path, body = request(dialect, "fault-split-multibyte")
    reads: list[bytes] = []
    async with client(demo_provider.url) as c, c.stream("POST", path, json=body, headers=FAST) as r:
        async for data in r.aiter_raw():
            reads.append(data)
    sun = "☀".encode()
    whole = b"".join(reads)
    assert sun in whole
    ends = [sum(map(len, reads[: i + 1])) for i in range(len(reads))]
    at = whole.index(sun)
    assert at + 1 in ends  # a read ended one byte into the character
    state = StreamState(REGISTRY.dialect("auto"))
    for data in reads:  # fed as it arrived, like the live client
        state.feed(data)
    state.end()
    assert "☀" in state.full_text and codes(state) == set()


async def test_chunk_delay_spreads_the_stream_over_time() -> None:
    p = DemoProvider(chunk_delay=0.02)
    await p.start()
    try:
        path, body = request("openai-chat", "demo-clean")
        reads: list[float] = []
        async with (
            client(p.url) as c,
            c.stream("POST", path, json=body) as r,
        ):  # no header: the server's delay
            async for _ in r.aiter_raw():
                reads.append(time.monotonic())
        assert len(reads) > 1
    finally:
        await p.stop()


# -- models and paths ------------------------------------------------------------------------


async def test_models_lists_every_scenario(demo_provider: DemoProvider) -> None:
    async with client(demo_provider.url) as c:
        listing = (await c.get("/v1/models")).json()
        assert (await c.get("/models")).json() == listing
        one = (await c.get("/v1/models/demo-glm-empty-string")).json()
        assert (await c.get("/v1/models/nope")).status_code == 404
    assert listing["object"] == "list"
    assert [m["id"] for m in listing["data"]] == list(SCENARIOS)
    for m in listing["data"]:
        assert m["object"] == "model" and m["owned_by"] == "toolcall-inspector"
        assert m["description"] and m["dialects"]
        assert set(m["dialects"]) <= {*DIALECTS, *MORE_DIALECTS}
        assert set(m["quirks"]) <= set(ORDER)
    assert one["dialects"] == ["openai-chat"]
    assert one["quirks"] == ["empty_string_continuation_id", "empty_string_continuation_name"]


@pytest.mark.parametrize(
    ("dialect", "path"),
    [
        ("openai-chat", "/chat/completions"),
        ("openai-responses", "/responses"),
        ("anthropic", "/messages"),
        ("gemini", "/models/demo-clean:streamGenerateContent?alt=sse"),
    ],
)
async def test_paths_without_the_v1_prefix(
    demo_provider: DemoProvider, dialect: str, path: str
) -> None:
    _, body = request(dialect, "demo-clean")
    r = await post(demo_provider, path, body)
    assert r.status_code == 200 and analyze_bytes(r.content).dialect_name == dialect


# -- arguments from schemas ------------------------------------------------------------------


def test_arguments_follow_the_schema_and_property_names() -> None:
    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "file_path": {"type": "string"},
            "pattern": {"type": "string"},
            "query": {"type": "string"},
            "cmd": {"type": "string"},
            "units": {"type": "string", "enum": ["metric", "imperial"]},
            "count": {"type": "integer", "minimum": 5},
            "verbose": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2},
            "nested": {"$ref": "#/$defs/Point"},
            "optional": {"type": "string"},
        },
        "required": [
            "city",
            "file_path",
            "pattern",
            "query",
            "cmd",
            "units",
            "count",
            "verbose",
            "tags",
            "nested",
        ],
        "$defs": {
            "Point": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}
        },
    }
    args = generate(schema)
    assert args == {
        "city": "Paris",
        "file_path": "README.md",
        "pattern": "*.md",
        "query": "weather in Paris",
        "cmd": "ls -la",
        "units": "metric",
        "count": 5,
        "verbose": True,
        "tags": ["example", "example 2"],
        "nested": {"x": 1},
    }
    assert generate(schema, 1)["city"] == "Tokyo"
    gemini = {
        "type": "OBJECT",
        "properties": {"location": {"type": "STRING"}},
        "required": ["location"],
    }
    assert generate(gemini) == {"location": "Paris"}
    assert generate({}) == {} and generate(None) == {}
    loose = {"type": "object", "properties": {k: {"type": "string"} for k in "abcde"}}
    assert len(generate(loose)) == 3  # optional properties stop at three


# -- the command line ------------------------------------------------------------------------


def _cli(*args: str) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.Popen(
        [sys.executable, "-m", "inspector", "demo-server", *args],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_cli_serves_until_ctrl_c() -> None:
    proc = _cli("--port", "0", "--chunk-delay", "0")
    try:
        assert proc.stdout is not None and proc.stderr is not None
        banner = [proc.stdout.readline()]
        assert "listening on http://127.0.0.1:" in banner[0], proc.stderr.read()
        while "Ctrl+C" not in banner[-1]:
            banner.append(proc.stdout.readline())
        text = "".join(banner)
        for path in (
            "/v1/chat/completions",
            "/v1/responses",
            "/v1/messages",
            ":streamGenerateContent?alt=sse",
            "/v1/models",
        ):
            assert path in text
        url = banner[0].rsplit(" ", 1)[1].strip()
        assert f'base_url="{url}/v1"' in text  # how to point the OpenAI SDK at it
        ids = [m["id"] for m in httpx.get(url + "/v1/models").json()["data"]]
        assert ids == list(SCENARIOS)
        r = httpx.post(
            url + "/v1/chat/completions",
            json={"model": "demo-clean", "stream": True, "messages": []},
        )
        assert r.status_code == 200 and b"[DONE]" in r.content
        proc.send_signal(signal.SIGINT)
        rest, err = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert "GET /v1/models" in rest and "POST /v1/chat/completions model=demo-clean" in rest
    assert rest.rstrip().endswith("stopped") and err == ""


async def test_cli_port_in_use_is_one_line_and_exit_2(demo_provider: DemoProvider) -> None:
    proc = _cli("--port", str(demo_provider.port))
    out, err = await asyncio.to_thread(proc.communicate, timeout=30)
    assert proc.returncode == 2 and out == ""
    assert err.count("\n") == 1 and "cannot listen" in err


def test_runs_on_a_qasync_loop() -> None:
    """The GUI runs the provider in-process on its qasync loop: prove that works."""
    script = (
        "import asyncio, httpx, qasync\n"
        "from PySide6.QtWidgets import QApplication\n"
        "from inspector.net.demo import DemoProvider\n"
        "app = QApplication([])\n"
        "async def main():\n"
        "    p = DemoProvider(chunk_delay=0.005)\n"
        "    url = await p.start()\n"
        "    async with httpx.AsyncClient() as c:\n"
        "        r = await c.post(url + '/v1/chat/completions', json={'model': 'demo-clean',"
        " 'stream': True, 'messages': []})\n"
        "    await p.stop()\n"
        "    print(r.status_code, r.content.count(b'data: '))\n"
        "loop = qasync.QEventLoop(app)\n"
        "with loop:\n"
        "    loop.run_until_complete(main())\n"
    )
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    status, events = done.stdout.split()
    assert status == "200" and int(events) > 5, done.stderr
