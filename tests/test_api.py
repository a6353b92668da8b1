"""The public Python API (``inspector.api``, documented in docs/api.md) holds its names and
does what the documentation says, on real captures, a real HAR and a real loopback server."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import httpx
import orjson
import pytest
from conftest import TESTS, real_fixture

import inspector.api as api
from inspector.core.base.errors import InspectorError
from inspector.core.capture.harexport import to_har

CORPUS = TESTS / "clients" / "corpus" / "openai-chat"
RETRY = TESTS.parent / "resources" / "samples" / "retry-truncated-then-valid.jsonl"

PUBLIC = {
    "Call",
    "Capture",
    "CaptureServer",
    "ClientsVerdict",
    "Result",
    "analyze",
    "load",
    "load_body",
    "serve",
    "serve_async",
}


def test_the_public_names_are_the_documented_ones() -> None:
    assert set(api.__all__) == PUBLIC
    doc = (TESTS.parent / "docs" / "api.md").read_text()
    for name in PUBLIC:
        assert f"`{name}" in doc, f"docs/api.md does not document {name}"


def test_analyze_a_capture_reads_its_calls_quirks_and_clients() -> None:
    result = api.analyze(CORPUS / "demo-glm-empty-string.jsonl")
    assert result.dialect == "openai-chat"
    assert result.calls and all(call.valid for call in result.calls)
    assert "empty_string_continuation_id" in result.quirk_codes
    assert result.clients.words["openai-python"] == "agrees"
    assert result.clients.words["by-id"] == "cut arguments"  # looks "" up as an id
    assert result.clients.words["anthropic-sdk"] == "n/a"
    assert result.exit_code == 0


def test_settings_change_the_judgement_never_the_capture() -> None:
    capture = api.load(CORPUS / "demo-glm-empty-string.jsonl")
    absent = api.analyze(capture, empty_id="absent")
    literal = api.analyze(capture, empty_id="literal")
    assert [c.arguments for c in absent.calls] != [c.arguments for c in literal.calls]
    assert absent.capture is literal.capture


def test_a_raw_body_and_a_har_session_load_like_a_capture(tmp_path: Path) -> None:
    body = real_fixture("gpt-4o-two-tools-usage-chunk").read_bytes()
    raw = api.load_body(body)
    assert raw.kind == "raw-sse"
    har = tmp_path / "s.har"
    har.write_bytes(orjson.dumps(to_har([api.load(CORPUS / "demo-parallel.jsonl")])))
    from_har = api.analyze(har, entry=1)
    assert [c.name for c in from_har.calls] == [
        c.name for c in api.analyze(CORPUS / "demo-parallel.jsonl").calls
    ]
    assert len(api.analyze(raw).calls) == 2


def test_bad_input_is_one_inspector_error(tmp_path: Path) -> None:
    with pytest.raises(InspectorError, match=r"missing\.jsonl"):
        api.load(tmp_path / "missing.jsonl")
    with pytest.raises(InspectorError, match="HAR"):
        api.load(CORPUS / "demo-clean.jsonl", entry=2)


def test_serve_answers_the_attempts_in_order_byte_for_byte_and_leaves_no_thread() -> None:
    capture = api.load(RETRY)
    before = threading.active_count()
    with api.serve(capture) as server:
        assert server.url.startswith("http://127.0.0.1:")
        bodies = []
        for _ in range(3):  # two attempts, then the first again
            try:
                bodies.append(httpx.post(server.url + "/v1/chat/completions", json={}).content)
            except httpx.HTTPError:
                bodies.append(None)
    assert [s.attempt for s in server.served] == [1, 2, 1]
    assert bodies[1] == capture.attempts[1].body
    assert not server.running and threading.active_count() == before


async def test_serve_async_runs_on_the_callers_loop() -> None:
    capture = api.load(CORPUS / "demo-parallel.jsonl")
    async with api.serve_async(capture) as server:
        async with httpx.AsyncClient() as client:
            answer = await client.post(server.url + "/v1/chat/completions", json={})
        assert answer.status_code == 200
        assert answer.content == capture.attempts[0].body
        assert "content-length" not in answer.headers or answer.headers["content-length"] == str(
            len(answer.content)
        )
    assert not server.running
    await asyncio.sleep(0)
