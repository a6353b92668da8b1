"""Real AWS readers against the demo provider's Bedrock endpoints on loopback: botocore reads
its ConverseStream frames, and the anthropic SDK's ``AnthropicBedrock`` (InvokeModelWithResponse
Stream, SigV4-signed by botocore) reads its Anthropic chunks; both agree with the engine, which
reads the very bytes they read."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anthropic
import httpx
import orjson
import pytest
from botocore.eventstream import EventStreamBuffer
from sdktee import Tee, http_lib

from inspector.core.analysis.session import Analysis
from inspector.core.capture.reader import load_bytes
from inspector.core.providers import BEDROCK_CONVERSE, REGISTRY

FAST = {"x-demo-chunk-delay": "0"}
QUESTION = "What's the weather in Paris?"
TOOLS: Any = [
    {
        "name": "get_weather",
        "description": "Weather for a city",
        "input_schema": {
            "type": "object",
            "properties": {"location": {"type": "string"}},
            "required": ["location"],
        },
    }
]


@pytest.fixture
async def tee() -> AsyncIterator[Tee]:
    tee = Tee(http_lib(anthropic))
    yield tee
    await tee.client.aclose()


def read(body: bytes) -> Analysis:
    analysis = Analysis.from_capture(load_bytes(body), providers=REGISTRY)
    assert analysis.dialect == BEDROCK_CONVERSE
    return analysis


@pytest.mark.parametrize("model", ["demo-clean", "demo-parallel"])
async def test_anthropic_bedrock_reads_the_chunks_as_the_engine_does(
    demo: str, tee: Tee, model: str
) -> None:
    client = anthropic.AsyncAnthropicBedrock(
        aws_access_key="AKIDEXAMPLE", aws_secret_key="demo-secret", aws_region="us-east-1",
        base_url=demo, max_retries=0, default_headers=FAST, http_client=tee.client,
    )  # fmt: skip
    async with client.messages.stream(
        model=model, max_tokens=1024, tools=TOOLS,
        messages=[{"role": "user", "content": QUESTION}],
    ) as stream:  # fmt: skip
        final = await stream.get_final_message()
    (body,) = tee.bodies
    assert bytes(body[:4]) != b"even" and bytes(body[:1]) == b"\x00"  # binary frames
    analysis = read(bytes(body))
    uses = [b for b in final.content if b.type == "tool_use"]
    assert len(uses) == (1 if model == "demo-clean" else 3)
    assert [(b.id, b.name, b.input) for b in uses] == [
        (v.call.id, v.call.name, orjson.loads(v.call.arguments)) for v in analysis.final.verdicts
    ]
    state = analysis.final.state
    assert final.stop_reason == state.finish_reason == "tool_use"
    assert [ev.event for ev in state.events] == ["chunk"] * len(state.events)
    assert analysis.final.quirks == [] and all(v.valid for v in analysis.final.verdicts)


@pytest.mark.parametrize("model", ["demo-parallel", "demo-error-after-200"])
async def test_botocore_reads_the_converse_frames_as_the_engine_does(demo: str, model: str) -> None:
    request = {"messages": [{"role": "user", "content": [{"text": QUESTION}]}],
               "toolConfig": {"tools": [{"toolSpec": {"name": "get_weather", "inputSchema": {
                   "json": TOOLS[0]["input_schema"]}}}]}}  # fmt: skip
    async with httpx.AsyncClient(trust_env=False) as client:
        r = await client.post(f"{demo}/model/{model}/converse-stream", json=request, headers=FAST)
    buffer = EventStreamBuffer()
    buffer.add_data(r.content)
    messages = list(buffer)  # raises on any CRC or length it does not accept
    uses: dict[int, list[str]] = {}
    for m in messages:
        payload, kind = orjson.loads(m.payload), m.headers.get(":event-type")
        if kind == "contentBlockStart":
            uses[payload["contentBlockIndex"]] = [payload["start"]["toolUse"]["toolUseId"], ""]
        elif kind == "contentBlockDelta" and "toolUse" in payload["delta"]:
            uses[payload["contentBlockIndex"]][1] += payload["delta"]["toolUse"]["input"]
    analysis = read(r.content)
    assert [tuple(u) for u in uses.values()] == [
        (v.call.id, v.call.arguments) for v in analysis.final.verdicts
    ]
    if model == "demo-error-after-200":
        last = messages[-1]
        assert last.headers[":message-type"] == "exception"
        assert last.headers[":exception-type"] == "modelStreamErrorException"
        (err,) = analysis.final.state.errors
        assert err.value.startswith("modelStreamErrorException: The model stream failed")
