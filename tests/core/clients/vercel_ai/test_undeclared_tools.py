"""The AI SDK checks each call against the tools the request declared: a call to an undeclared
tool (a name split across chunks is its first piece, and the second piece opens a call of
its own) is handed over invalid, its blank arguments ``""`` where a declared tool's are
``{}``. The expected outcomes are what the real ``ai`` 7.0.173 over
``@ai-sdk/openai-compatible`` 3.0.92 handed over for these very bodies (run through
``tests/clients/real/vercel_ai.py`` with ``get_weather`` declared)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from clients.compare import outcome_of
from clients.streams import Stream

from inspector.core.clients.judge import run_replica
from inspector.core.clients.vercel_ai.replica import VercelAi


def _chunk(tc: dict[str, Any] | None = None, finish: str | None = None) -> str:
    delta = {"tool_calls": [tc]} if tc else {}
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return "data: " + json.dumps({"id": "x", "model": "m", "choices": [choice]}) + "\n\n"


def _opens(name: str, args: str = "") -> dict[str, Any]:
    return {"index": 0, "id": "call_1", "type": "function",
            "function": {"name": name, "arguments": args}}  # fmt: skip


END = _chunk(finish="tool_calls") + "data: [DONE]\n\n"
SPLIT = _chunk(_opens("get_wea"))
REAL = {
    "split-name-blank": (
        SPLIT + _chunk({"index": 0, "function": {"name": "ther", "arguments": ""}}) + END,
        [("call_1", "get_wea", ""), ("0000000000000000", "ther", "")],
    ),
    "split-name-args": (
        SPLIT
        + _chunk({"index": 0, "function": {"name": "ther", "arguments": '{"city": 1}'}})
        + END,
        [("call_1", "get_wea", ""), ("0000000000000000", "ther", '{"city":1}')],
    ),
    "undeclared-blank": (_chunk(_opens("nope")) + END, [("call_1", "nope", "")]),
    "declared-blank": (_chunk(_opens("get_weather")) + END, [("call_1", "get_weather", "{}")]),
}


@pytest.mark.parametrize("case", sorted(REAL))
def test_calls_to_undeclared_tools_are_handed_over_as_the_sdk_does(
    case: str, tmp_path: Path
) -> None:
    body, want = REAL[case]
    path = tmp_path / f"{case}.sse"
    path.write_text(body)
    stream = Stream(f"real/{case}", "openai-chat", path)
    exchange = dataclasses.replace(stream.exchange(), tools=frozenset({"get_weather"}))
    got = outcome_of(run_replica(VercelAi(), exchange, stream.expected(), False))
    assert got["error"] is None
    assert [(c["id"], c["name"], c["arguments"]) for c in got["calls"]] == want


def test_without_the_requests_tools_every_name_counts_as_declared(tmp_path: Path) -> None:
    path = tmp_path / "raw.sse"
    path.write_text(REAL["undeclared-blank"][0])
    stream = Stream("real/raw", "openai-chat", path)
    assert stream.exchange().tools is None  # a raw body: no request, no tools known
    got = outcome_of(run_replica(VercelAi(), stream.exchange(), stream.expected(), False))
    assert got["calls"][0]["arguments"] == "{}"
