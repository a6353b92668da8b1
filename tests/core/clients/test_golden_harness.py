"""The golden harness itself (tests/clients): the replay server, the streams, the corpus, verify.

A toy runner (raw httpx, registered under no replica) stands in for a real library, so the
harness is tested whatever replicas exist.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import httpx
import pytest
from clients import verify
from clients.compare import mismatch
from clients.real import Outcome, Runner, call, outcome
from clients.record import pinned_clock
from clients.serve import Reply, replay, replay_server, reply_of
from clients.streams import (
    CONFORMING,
    CORPUS,
    DIALECTS,
    INVOKE,
    Stream,
    all_streams,
    by_id,
    demo_id,
    demo_plan,
    demo_streams,
    scenario_of,
)  # fmt: skip
from conftest import all_real_fixtures

from inspector.net.demo import SCENARIOS, DemoProvider

STREAMS = by_id(all_streams(all_real_fixtures()))
RECORD = "run make verify-clients ARGS=--record"


async def fetch(base_url: str, method: str = "POST", path: str = "/v1/chat/completions") -> Any:
    """(status, headers, body bytes, the exception that ended the body or None)."""
    body, error = b"", None
    async with httpx.AsyncClient() as client:
        try:
            async with client.stream(method, base_url + path, json={"model": "m"}) as response:
                status, headers = response.status_code, response.headers
                async for data in response.aiter_raw():
                    body += data
        except httpx.TransportError as exc:
            error = exc
    return status, headers, body, error


# -- serve --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "stream_id",
    [
        "demo/openai-chat/demo-clean",
        "demo/openai-chat/fault-split-multibyte",
        "demo/openai-chat/fault-invalid-utf8",
        "demo/gemini/fault-401",
        "demo/anthropic/fault-wrong-content-type",
        "real/gemini-3-function-call",
    ],
)
async def test_serve_replays_the_recorded_bytes_whatever_the_request(stream_id: str) -> None:
    stream = STREAMS[stream_id]
    recorded = stream.source.response or {"status": 200, "headers": {}}
    async with replay(stream) as (url, server):
        status, headers, body, error = await fetch(url, "PUT", "/any/path?x=1")
        again = await fetch(url)
    assert (status, body, error) == (recorded["status"], stream.source.body, None)
    assert again[2] == body
    assert headers["content-type"] == stream.exchange().content_type
    assert [r[:2] for r in server.requests] == [
        ("PUT", "/any/path?x=1"), ("POST", "/v1/chat/completions")
    ]  # fmt: skip


async def test_serve_ends_a_cut_body_with_a_reset_after_every_recorded_byte() -> None:
    stream = STREAMS["demo/openai-chat/fault-reset"]
    assert reply_of(stream).reset
    async with replay_server(stream) as url:
        status, _, body, error = await fetch(url)
    assert status == 200 and body == stream.source.body and body
    assert isinstance(error, httpx.ReadError)
    chain = []
    while error is not None:
        chain.append(type(error))
        error = error.__cause__ or error.__context__
    assert ConnectionResetError in chain, chain  # a TCP reset, not a clean close


async def test_serve_without_a_response_resets_before_any_header() -> None:
    async with replay_server(Reply(None, reset=True)) as url, httpx.AsyncClient() as client:
        with pytest.raises(httpx.TransportError):
            await client.post(url + "/v1/messages", json={})


def test_a_reply_keeps_the_response_headers_but_the_old_connection_s() -> None:
    reply = reply_of(STREAMS["demo/openai-chat/fault-429"])
    names = {k for k, _ in reply.headers}
    assert {"content-type", "retry-after"} <= names
    assert not names & {"date", "server", "content-length", "transfer-encoding"}
    assert reply.content_length == len(STREAMS["demo/openai-chat/fault-429"].source.body)
    assert not reply.reset
    streamed = reply_of(STREAMS["demo/openai-chat/demo-clean"])
    assert streamed.content_length is None and len(streamed.chunks) > 1


# -- streams and the corpus ------------------------------------------------------------------


def test_streams_cover_every_scenario_conforming_and_fault_in_every_dialect() -> None:
    demo = [s for s in STREAMS.values() if s.kind == "demo"]
    assert {scenario_of(s.name) for s in demo} == set(SCENARIOS)
    every = [CONFORMING, *(n for n, s in SCENARIOS.items() if s.fault)]
    for dialect in DIALECTS:
        missing = [n for n in every if demo_id(dialect, n) not in STREAMS]
        assert not missing, f"{dialect} lacks {missing}"
    for s in demo:
        meta = s.capture.meta
        assert (meta["dialect"], meta["model"]) == (s.dialect, s.name), s.id
        invoke = "/invoke-with-response-stream" in meta["url"]
        assert invoke == s.name.endswith(INVOKE), s.id  # an .invoke capture is InvokeModel's
        assert s.analysis.dialect == s.dialect and len(s.capture.attempts) == 1, s.id
    real = {s.name: s for s in STREAMS.values() if s.kind == "real"}
    assert set(real) == {p.stem for p in all_real_fixtures()}
    assert list(STREAMS) == sorted(STREAMS)


def test_tools_are_the_requests_or_one_permissive_tool_per_call_name() -> None:
    tools = STREAMS["demo/gemini/demo-parallel"].tools()
    assert [t.name for t in tools] == ["get_weather", "get_time", "get_exchange_rate"]
    assert tools[0].parameters["properties"]["city"]["type"] in ("string", "STRING")
    assert tools[0].openai()["function"]["name"] == "get_weather"
    assert [t.name for t in STREAMS["demo/openai-chat/demo-zero-arg"].tools()] == [
        "list_open_issues"
    ]
    real = STREAMS["real/gpt-4o-two-tools-usage-chunk"].tools()
    assert [(t.name, t.parameters) for t in real] == [
        ("GetWeatherArgs", {"type": "object"}), ("get_stock_price", {"type": "object"})
    ]  # fmt: skip


def corpus_problems(corpus: Path) -> list[str]:
    """What is missing from or stale in ``corpus`` against the demo's scenarios."""
    have = {s.id for s in demo_streams(corpus)}
    want = {demo_id(d, n) for d, n in demo_plan()}
    return [f"{i}: no capture: {RECORD}" for i in sorted(want - have)] + [
        f"{i}: no such scenario x dialect: {RECORD}" for i in sorted(have - want)
    ]


def test_the_corpus_holds_every_scenario_of_the_demo() -> None:
    assert corpus_problems(CORPUS) == []


def test_a_scenario_without_a_capture_fails_with_what_to_run(tmp_path: Path) -> None:
    shutil.copytree(CORPUS, tmp_path / "corpus")
    (tmp_path / "corpus" / "gemini" / "fault-500.jsonl").unlink()
    assert corpus_problems(tmp_path / "corpus") == [f"demo/gemini/fault-500: no capture: {RECORD}"]


async def test_the_corpus_is_what_the_demo_plays_now() -> None:
    """Each capture's request, sent again to the demo provider, gets the recorded body."""
    provider = DemoProvider("127.0.0.1", port=0, chunk_delay=0)
    stale = []
    with pinned_clock():
        base = await provider.start()
        try:
            async with httpx.AsyncClient() as client:
                for stream in demo_streams(CORPUS):
                    if await _replayed(client, base, stream) != stream.source.body:
                        stale.append(stream.id)
        finally:
            await provider.stop()
    assert not stale, f"the demo provider now plays these differently: {RECORD}: {stale}"


async def _replayed(client: httpx.AsyncClient, base: str, stream: Stream) -> bytes:
    request = stream.source.request
    assert request is not None
    path = httpx.URL(request["url"]).raw_path.decode()
    body = b""
    try:
        async with client.stream(request["method"], base + path, headers=request["headers"],
                                 json=request["body"]) as response:  # fmt: skip
            async for data in response.aiter_raw():
                body += data
    except httpx.ReadError:
        pass  # fault-reset: the bytes before the reset are what counts
    return body


# -- verify ----------------------------------------------------------------------------------


async def toy(base_url: str, stream: Stream) -> Outcome:
    """A raw httpx client: one call per data line mentioning a tool; raises on a status."""
    async with httpx.AsyncClient() as client:
        response = await client.post(base_url + "/v1/chat/completions", json={})
        response.raise_for_status()
    found = [t.name for t in stream.tools() if t.name.encode() in response.content]
    return outcome(call(None, name, "{}") for name in found)


TOY = Runner("toy", "httpx", frozenset({"openai-chat"}), toy, concurrency=4)


async def test_verify_runs_a_runner_over_the_streams_of_its_dialects() -> None:
    streams = [STREAMS[i] for i in ("demo/openai-chat/demo-clean", "demo/gemini/demo-clean",
                                    "demo/openai-chat/fault-401")]  # fmt: skip
    got = await verify.sweep(TOY, streams)
    assert list(got) == ["demo/openai-chat/demo-clean", "demo/openai-chat/fault-401"]
    assert got["demo/openai-chat/demo-clean"]["calls"] == [  # the parallel request's two calls
        call(None, "get_weather", "{}"),
        call(None, "get_time", "{}"),
    ]
    error = got["demo/openai-chat/fault-401"]["error"]
    assert error["type"] == "HTTPStatusError" and error["varies"] is True
    assert "http://<server>/v1/chat/completions" in error["message"]
    doc = verify.golden(TOY, got)
    assert list(doc) == ["replica", "library", "version", "streams"]
    assert verify.dumps(doc).endswith("}\n") and json.loads(verify.dumps(doc)) == doc
    assert verify.dumps(verify.golden(TOY, await verify.sweep(TOY, streams))) == verify.dumps(doc)


async def test_verify_records_a_stalled_or_raising_client_as_its_error() -> None:
    async def stalls(base_url: str, stream: Stream) -> Outcome:
        await asyncio.sleep(60)
        return outcome()

    async def raises(base_url: str, stream: Stream) -> Outcome:
        raise json.JSONDecodeError("Expecting value", ": OPENROUTER", 0)

    stream = STREAMS["demo/openai-chat/demo-keepalives"]
    stalled = await verify.run_once(Runner("s", "httpx", frozenset(), stalls), stream, 0.2)
    assert stalled["error"]["type"] == "HarnessTimeout"
    got = await verify.run_stream(Runner("r", "httpx", frozenset(), raises), stream)
    assert got == {"calls": [], "error": {"type": "JSONDecodeError",
                   "message": "Expecting value: line 1 column 1 (char 0)"}}  # fmt: skip


async def test_verify_refuses_a_runner_that_returns_no_outcome() -> None:
    async def broken(base_url: str, stream: Stream) -> Outcome:
        return {"calls": [{"id": "a", "name": "b", "arguments": {}}], "error": None}

    with pytest.raises(verify.RunnerBroken, match="arguments"):
        await verify.run_once(
            Runner("b", "x", frozenset(), broken), STREAMS["real/gemini-3-function-call"]
        )


def test_verify_names_an_unknown_replica_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert verify.main(["--replica", "no-such-client"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("verify: no runner for replica 'no-such-client'") and err.count("\n") == 1


def test_a_golden_mismatch_names_the_stream_and_both_sides() -> None:
    golden = {"calls": [call("a", "f", "{}")], "error": None}
    assert mismatch("demo/x/y", golden, {"calls": [call("a", "f", "{}")], "error": None}) is None
    merged = {"calls": [call("aa", "ff", "{}{}")], "error": None}
    assert mismatch("demo/x/y", golden, merged, "openai-python") == (
        "demo/x/y: the openai-python differs from the golden\n"
        '  golden: {"calls": [{"id": "a", "name": "f", "arguments": "{}"}], "error": null}\n'
        '  openai-python: {"calls": [{"id": "aa", "name": "ff", "arguments": "{}{}"}], '
        '"error": null}'
    )
    error = {"calls": [], "error": {"type": "TypeError", "message": "m"}}
    other = {"calls": [], "error": {"type": "TypeError", "message": "n"}}
    assert mismatch("s", error, other) is not None
    assert mismatch("s", {"calls": [], "error": {**error["error"], "varies": True}}, other) is None
    assert mismatch("s", error, {"calls": [], "error": {"type": "KeyError", "message": "m"}})
