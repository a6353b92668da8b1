"""The demo provider's Cohere v2 (``POST /v2/chat``), Gemini Interactions (``POST
/v1beta/interactions``) and legacy completions (``POST /v1/completions``) endpoints: read back
by the inspector, each scenario that has a rendering of its own held to the table code for code,
recorded through the proxy (bytes as received), written out as HAR and read back in, and the
Cohere and Interactions tool loops recorded and replayed.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from inspector.cli import main
from inspector.core.analysis.session import Analysis
from inspector.core.base.settings import Settings
from inspector.core.capture.reader import load
from inspector.core.providers import (
    COHERE_V2,
    GEMINI_INTERACTIONS,
    OPENAI_COMPLETIONS,
    REGISTRY,
    analyze_bytes,
)
from inspector.net.demo import SCENARIOS
from inspector.net.proxy import RecordingProxy

TOOLS: Any = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"location": {"type": "string"}},
    "required": ["location"]}}}]  # fmt: skip


INTERACTIONS_TOOLS = [{"type": "function", "name": "get_weather", "parameters": TOOLS[0][
    "function"]["parameters"]}]  # fmt: skip


def _chat(model: str) -> dict[str, Any]:
    messages = [{"role": "user", "content": "What's the weather in Paris?"}]
    return {"model": model, "stream": True, "messages": messages, "tools": TOOLS}


@pytest.mark.parametrize(
    ("model", "finish", "calls", "cut"),
    [
        ("demo-clean", "TOOL_CALL", 1, False),
        ("demo-parallel", "TOOL_CALL", 3, False),
        ("demo-truncated", "MAX_TOKENS", 1, True),
        ("demo-error-after-200", "ERROR", 1, True),
    ],
)
async def test_the_cohere_endpoint_streams_what_the_scenario_says(
    demo: str, model: str, finish: str, calls: int, cut: bool
) -> None:
    async with httpx.AsyncClient() as client:
        reply = await client.post(f"{demo}/v2/chat", json=_chat(model))
    assert reply.status_code == 200
    assert reply.headers["content-type"].startswith("text/event-stream")
    state = analyze_bytes(reply.content)
    assert state.dialect_name == COHERE_V2 and not state.dialect.fallback
    assert state.finish_reason == finish and len(state.calls) == calls
    assert all(c.name == "get_weather" and c.id.startswith("get_weather_") for c in state.calls)
    parsed = [c.arguments.startswith("{") and c.arguments.endswith("}") for c in state.calls]
    assert parsed == [not cut] * calls
    assert bool(state.errors) is (finish == "ERROR")


async def test_a_cohere_status_fault_answers_in_cohere_s_error_shape(demo: str) -> None:
    async with httpx.AsyncClient() as client:
        reply = await client.post(f"{demo}/v2/chat", json=_chat("fault-401"))
    assert reply.status_code == 401 and set(reply.json()) == {"id", "message"}


async def test_the_completions_endpoint_streams_text_only(demo: str) -> None:
    body = {"model": "demo-clean", "stream": True, "prompt": "Weather?",
            "stream_options": {"include_usage": True}}  # fmt: skip
    async with httpx.AsyncClient() as client:
        reply = await client.post(f"{demo}/v1/completions", json=body)
    state = analyze_bytes(reply.content)
    assert state.dialect_name == OPENAI_COMPLETIONS and state.calls == []
    assert "no tools" in state.full_text and state.finish_reason == "stop"
    assert state.done_seq is not None and state.usage


async def test_the_proxy_records_each_byte_for_byte_and_each_har_reads_back(
    demo: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    asks = {
        COHERE_V2: ("/v2/chat", _chat("demo-parallel"), 3),
        GEMINI_INTERACTIONS: ("/v1beta/interactions", {
            "model": "demo-parallel", "stream": True, "input": "Weather?",
            "tools": INTERACTIONS_TOOLS}, 3),
        OPENAI_COMPLETIONS: ("/v1/completions",
                             {"model": "demo-clean", "stream": True, "prompt": "x"}, 0),
    }  # fmt: skip
    proxy = RecordingProxy(demo, captures=tmp_path / "captures")
    await proxy.start()
    direct: dict[str, bytes] = {}
    via: dict[str, bytes] = {}
    try:
        async with httpx.AsyncClient() as client:
            for dialect, (path, body, _) in asks.items():
                direct[dialect] = (await client.post(f"{demo}{path}", json=body)).content
                via[dialect] = (await client.post(f"{proxy.origin}{path}", json=body)).content
        async with asyncio.timeout(60):  # a bound for a hang, not a speed
            while not (len(proxy.exchanges) == 3 and all(ex.ended for ex in proxy.exchanges)):
                await asyncio.sleep(0.02)
    finally:
        await proxy.stop()
    captures = {load(str(p)).meta["dialect"]: p for p in (tmp_path / "captures").glob("*.jsonl")}
    assert set(captures) == set(asks)
    for dialect, (_, _, calls) in asks.items():
        assert via[dialect] == direct[dialect]  # forwarded byte for byte
        assert load(str(captures[dialect])).attempts[0].body == via[dialect]  # and recorded so
        har = tmp_path / f"{dialect}.har"
        assert main(["export", str(captures[dialect]), "--har", str(har)]) == 0
        capsys.readouterr()
        assert main(["analyze", "--json", str(har)]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert doc["dialect"] == dialect and len(doc["tool_calls"]) == calls


def test_a_cohere_tool_loop_records_and_replays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "loop.jsonl"
    code = main(["record", "--profile", "demo-cohere", "--scenario", "weather", "--loop",
                 "--out", str(out)])  # fmt: skip
    assert code == 0
    capsys.readouterr()
    assert main(["analyze", "--json", str(out)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["dialect"] == COHERE_V2 and len(doc["rounds"]) == 2
    assert doc["finish_reason"] == "COMPLETE" and "get_weather returned" in doc["text"]


COHERE_CASES = [name for name, sc in SCENARIOS.items() if COHERE_V2 in sc.quirks]


@pytest.mark.parametrize("name", COHERE_CASES)
async def test_each_cohere_scenario_shows_exactly_its_quirks(demo: str, name: str) -> None:
    async with httpx.AsyncClient() as client:
        reply = await client.post(f"{demo}/v2/chat", json=_chat(name))
    analysis = Analysis(Settings(dialect=COHERE_V2), providers=REGISTRY)
    analysis.feed(reply.content)
    analysis.end()
    assert {q.code for q in analysis.final.quirks} == set(SCENARIOS[name].quirks[COHERE_V2])
    assert COHERE_V2 in SCENARIOS[name].to_model()["dialects"]


def test_the_table_has_cohere_cases() -> None:
    assert {"demo-truncated", "demo-error-after-200", "demo-zero-arg"} <= set(COHERE_CASES)


INTERACTIONS_CASES = [n for n, sc in SCENARIOS.items() if GEMINI_INTERACTIONS in sc.quirks]


@pytest.mark.parametrize("name", ["demo-clean", *INTERACTIONS_CASES])
async def test_each_interactions_scenario_shows_exactly_its_quirks(demo: str, name: str) -> None:
    body = {"model": name, "stream": True, "input": "Weather in Paris?",
            "tools": INTERACTIONS_TOOLS}  # fmt: skip
    async with httpx.AsyncClient() as client:
        reply = await client.post(f"{demo}/v1beta/interactions", json=body)
    state = analyze_bytes(reply.content)  # sniffed from the body alone
    assert state.dialect_name == GEMINI_INTERACTIONS
    (call,) = state.calls
    assert call.name == "get_weather" and call.kind == "function"
    analysis = Analysis(Settings(dialect=GEMINI_INTERACTIONS), providers=REGISTRY)
    analysis.feed(reply.content)
    analysis.end()
    expected = set(SCENARIOS[name].quirks.get(GEMINI_INTERACTIONS, ()))
    assert {q.code for q in analysis.final.quirks} == expected
    assert {"demo-truncated", "demo-error-after-200"} <= set(INTERACTIONS_CASES)


def test_an_interactions_tool_loop_records_and_replays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "loop.jsonl"
    code = main(["record", "--profile", "demo-interactions", "--scenario", "weather", "--loop",
                 "--out", str(out)])  # fmt: skip
    assert code == 0
    capsys.readouterr()
    assert main(["analyze", "--json", str(out)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["dialect"] == GEMINI_INTERACTIONS and len(doc["rounds"]) == 2
    assert doc["finish_reason"] == "completed" and "get_weather returned" in doc["text"]
