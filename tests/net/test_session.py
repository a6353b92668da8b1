"""Live sessions: the retry rule end to end, faults, cancellation, crash safety.

The demo-provider tests run the REAL server (inspector.net.demo) on a loopback port; a few unit
tests use httpx.MockTransport where the demo cannot produce the situation (a key check, a
clock that jumps past the budget).
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from conftest import REPO

from inspector.core.analysis.session import Analysis
from inspector.core.base.model import EventKind
from inspector.core.capture.reader import load
from inspector.core.events.sse import decode_all
from inspector.core.providers import REGISTRY
from inspector.core.requests.scenarios import (
    BUILTIN_PROFILES,
    Profile,
    RequestSpec,
    build_request,
    find_profile,
    find_scenario,
)
from inspector.core.verdicts import attempts
from inspector.net.errors import (
    ConnectError,
    NotSSEError,
    ProviderHTTPError,
    ReadTimeout,
    StreamBroken,
)
from inspector.net.policy import LoopSettings
from inspector.net.session import LiveSession, resolve_key

FAST = {"x-demo-chunk-delay": "0"}
SECRET = "sk-test-NEVER-ON-DISK-42"


# -- unit: settings and keys -------------------------------------------------------------------


def test_loop_settings_follow_the_clients_loop_config() -> None:
    s = LoopSettings()
    assert (s.tool_argument_validation, s.stream_transport, s.retry) == ("structural", None, True)
    assert LoopSettings(False, 5.0).attempt_budget == 5.0  # positional fields unaffected
    with pytest.raises(TypeError):
        LoopSettings(True, 1.0, 1.0, 1.0, "strict")  # type: ignore[call-arg]
    assert LoopSettings(tool_argument_validation="strict").tool_argument_validation == "strict"
    with pytest.raises(ValueError, match="tool_argument_validation"):
        LoopSettings(tool_argument_validation="lenient")
    with pytest.raises(ValueError, match="streams"):
        LoopSettings(stream_transport=False)


def test_resolve_key_env_then_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    import keyring

    asked: list[tuple[str, str]] = []

    def fake_get(service: str, user: str) -> str | None:
        asked.append((service, user))
        return "from-keyring"

    monkeypatch.setattr(keyring, "get_password", fake_get)
    prof = Profile("p", "openai-chat", "http://x/v1", "m", "TCI_TEST_KEY")
    monkeypatch.setenv("TCI_TEST_KEY", " from-env ")
    assert resolve_key(prof) == "from-env" and asked == []
    monkeypatch.delenv("TCI_TEST_KEY")
    assert resolve_key(prof) == "from-keyring" and asked == [("toolcall-inspector", "p")]
    assert resolve_key(replace(prof, key_env=None)) is None and len(asked) == 1

    def broken(service: str, user: str) -> str | None:
        raise keyring.errors.NoKeyringError("no backend")

    monkeypatch.setattr(keyring, "get_password", broken)
    assert resolve_key(prof) is None


def test_the_key_is_refused_where_it_would_be_written(tmp_path: Path) -> None:
    """The key check compares whole header and URL parameter values
    (tests/core/capture/test_redaction.py has the rule); the body is never searched, so a short
    key works (tests/cli/test_record.py)."""
    spec = RequestSpec("POST", "http://x/v1/chat/completions", {}, {}, "authorization")
    refused = [
        replace(spec, headers={"X-Extra": f"Bearer {SECRET}"}),
        replace(spec, headers={"X-Plain": SECRET}),
        replace(spec, url=f"{spec.url}?alt=sse&k={SECRET}"),
    ]
    for bad in refused:
        with pytest.raises(ValueError, match="key must not appear in the request spec"):
            LiveSession(
                bad, dialect="openai-chat", settings=LoopSettings(), capture_path=None, key=SECRET
            )
    ok = replace(spec, headers={"X-Extra": f"{SECRET}-not-it"}, body={"k": "x"})
    session = LiveSession(
        ok, dialect="openai-chat", settings=LoopSettings(), capture_path=None, key="x"
    )
    assert session.meta["url"] == spec.url


# -- unit: MockTransport -----------------------------------------------------------------------

TRUNCATED = (b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1",'
             b'"type":"function","function":{"name":"get_weather","arguments":"{\\"ci"}}]}}]}'
             b'\n\ndata: {"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}\n\n'
             b"data: [DONE]\n\n")  # fmt: skip
VALID = TRUNCATED.replace(b'{\\"ci"', b'{\\"city\\": \\"Paris\\"}"').replace(
    b"length", b"tool_calls"
)


def _mock_session(tmp_path: Path, bodies: list[bytes], settings: LoopSettings,
                  **kw: Any) -> tuple[LiveSession, list[httpx.Request]]:  # fmt: skip
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, headers={"content-type": "text/event-stream"},
                              content=bodies[min(len(seen), len(bodies)) - 1])  # fmt: skip

    spec = build_request(find_profile("openai"), find_scenario("weather"))
    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    session = LiveSession(
        spec,
        dialect="openai-chat",
        settings=settings,
        capture_path=tmp_path / "s.jsonl",
        key=SECRET,
        client=client,
        **kw,
    )
    return session, seen


async def test_retry_flow_and_key_handling_with_a_mock(tmp_path: Path) -> None:
    session, seen = _mock_session(tmp_path, [TRUNCATED, VALID], LoopSettings())
    await session.run()
    assert session.state == "done" and session.error is None
    assert [r.outcome for r in session.records] == ["retried", "accepted"]
    assert [r.headers["authorization"] for r in seen] == [f"Bearer {SECRET}"] * 2
    assert seen[0].content == seen[1].content  # the same request, again
    raw = (tmp_path / "s.jsonl").read_bytes()
    assert SECRET.encode() not in raw
    cap = load(tmp_path / "s.jsonl")
    assert cap.meta["model"] == "gpt-4o-mini" and cap.meta["dialect"] == "openai-chat"
    # the live analysis equals the capture replayed
    replayed = Analysis.from_capture(cap, session.analysis.settings, providers=REGISTRY)
    assert [r.to_json() | {"duration": 0} for r in replayed.records] == [
        r.to_json() | {"duration": 0} for r in session.records
    ]
    assert [v.source.chunks if v.source else None for v in session.analysis.attempts] == [
        a.chunks for a in cap.attempts
    ]


async def test_budget_spent_by_the_clock_means_no_retry(tmp_path: Path) -> None:
    jump = [0.0]
    holder: list[LiveSession] = []

    def on_update() -> None:  # 31 s pass once attempt 1 has ended
        if holder and holder[0].outcomes:
            jump[0] = 31.0

    session, seen = _mock_session(tmp_path, [TRUNCATED, VALID],
                                  LoopSettings(attempt_budget=30.0),
                                  clock=lambda: time.monotonic() + jump[0],
                                  on_update=on_update)  # fmt: skip
    holder.append(session)
    await session.run()
    assert len(seen) == 1 and session.state == "done"
    (rec,) = session.records
    assert (rec.outcome, rec.reason) == ("invalid", "stream_invalid_tool_call")


async def test_an_unreachable_host_fails_cleanly(tmp_path: Path) -> None:
    spec = build_request(
        replace(find_profile("ollama"), base_url="http://127.0.0.1:9/v1"), find_scenario("weather")
    )
    session = LiveSession(
        spec,
        dialect="openai-chat",
        settings=LoopSettings(connect_timeout=2),
        capture_path=tmp_path / "c.jsonl",
        key=None,
    )
    await session.run()
    assert session.state == "failed" and isinstance(session.error, ConnectError)
    assert "cannot connect to http://127.0.0.1:9/v1/chat/completions" in str(session.error)
    (att,) = load(tmp_path / "c.jsonl").attempts
    assert att.end is not None and att.end["reason"] == "error"
    assert [r.outcome for r in session.records] == ["failed"]


# -- the real demo provider ---------------------------------------------------------------------


def _demo_profile(dialect: str, url: str, **headers: str) -> Profile:
    p = next(p for p in BUILTIN_PROFILES if p.is_demo and p.dialect == dialect)
    return replace(p.resolved(url), headers={**FAST, **headers})


async def _session(url: str, model: str, tmp_path: Path, *, dialect: str = "openai-chat",
                   scenario: str = "weather", settings: LoopSettings | None = None,
                   headers: dict[str, str] | None = None,
                   **kw: Any) -> LiveSession:  # fmt: skip
    profile = _demo_profile(dialect, url, **(headers or {}))
    spec = build_request(profile, find_scenario(scenario), model=model)
    return LiveSession(
        spec,
        dialect=dialect,
        settings=settings or LoopSettings(),
        capture_path=tmp_path / f"{model}.jsonl",
        key=None,
        meta={"profile": profile.name, "scenario": scenario},
        **kw,
    )


def _refetch(session: LiveSession) -> bytes:
    """The bytes the server sends for this request, fetched again with plain httpx."""
    spec = session.spec
    with httpx.Client() as c, c.stream(spec.method, spec.url, headers=dict(spec.headers),
                                       content=orjson.dumps(spec.body)) as r:  # fmt: skip
        out = bytearray()
        try:
            for data in r.iter_raw():
                out += data
        except httpx.HTTPError:
            pass
        return bytes(out)


@pytest.mark.parametrize("dialect", ["openai-chat", "openai-responses", "anthropic", "gemini"])
async def test_each_dialect_clean(demo: str, tmp_path: Path, dialect: str) -> None:
    session = await _session(demo, "demo-clean", tmp_path, dialect=dialect)
    await session.run()
    assert session.state == "done", session.error
    assert [r.outcome for r in session.records] == ["accepted"]
    verdicts = session.analysis.final.verdicts
    assert verdicts and all(v.valid for v in verdicts)
    assert verdicts[0].call.name == "get_weather"
    assert session.analysis.dialect == dialect
    cap = load(session.capture_path)  # type: ignore[arg-type]
    assert cap.meta["profile"].startswith("demo") and cap.meta["dialect"] == dialect
    assert cap.attempts[0].end is not None and cap.attempts[0].end["reason"] == "eof"
    assert cap.attempts[0].body == await asyncio.to_thread(_refetch, session)


@pytest.mark.parametrize("dialect", ["openai-chat", "openai-responses", "anthropic"])
async def test_truncated_then_valid_retries_once(demo: str, tmp_path: Path,
                                                 dialect: str) -> None:  # fmt: skip
    session = await _session(demo, "demo-truncated-then-valid", tmp_path, dialect=dialect)
    await session.run()
    first, second = session.records
    assert (first.outcome, first.reason, first.recovery_action) == (
        "retried",
        attempts.INVALID_CALL,
        attempts.RETRY_STREAMING,
    )
    assert second.outcome == "accepted" and all(v.valid for v in session.analysis.final.verdicts)
    cap = load(session.capture_path)  # type: ignore[arg-type]
    assert [a.number for a in cap.attempts] == [1, 2]
    assert (cap.attempts[1].reason, cap.attempts[1].recovery_action) == (
        attempts.INVALID_CALL,
        attempts.RETRY_STREAMING,
    )
    assert cap.attempts[0].request["body"] == cap.attempts[1].request["body"]  # type: ignore


async def test_always_truncated_is_accepted_degraded(demo: str, tmp_path: Path) -> None:
    session = await _session(demo, "demo-truncated", tmp_path)
    await session.run()
    assert [r.outcome for r in session.records] == ["retried", "accepted_degraded"]
    (bad,) = session.records[1].invalid_tool_calls
    assert bad["name"] == "get_weather" and bad["raw_arguments"].startswith("{")
    assert bad["raw_arguments"] == session.analysis.final.verdicts[0].call.arguments


async def test_retry_off_and_budget_zero_mean_one_attempt(demo: str, tmp_path: Path) -> None:
    for settings in (LoopSettings(retry=False), LoopSettings(attempt_budget=0.0)):
        session = await _session(demo, "demo-truncated", tmp_path, settings=settings)
        await session.run()
        (rec,) = session.records
        assert (rec.outcome, rec.reason) == ("invalid", attempts.INVALID_CALL)
        assert rec.invalid_tool_calls and len(load(session.capture_path).attempts) == 1  # type: ignore[arg-type]


@pytest.mark.parametrize(("model", "error", "text"), [
    ("fault-401", ProviderHTTPError, "HTTP 401 from http://127.0.0.1:"),
    ("fault-429", ProviderHTTPError, "HTTP 429 from"),
    ("fault-500", ProviderHTTPError, "HTTP 500 from"),
    ("fault-wrong-content-type", NotSSEError, "expected text/event-stream, got text/html"),
    ("fault-reset", StreamBroken, "connection broken after"),
])  # fmt: skip
async def test_faults_fail_with_one_line_and_every_byte_kept(
    demo: str, tmp_path: Path, model: str, error: type[Exception], text: str
) -> None:
    session = await _session(demo, model, tmp_path)
    await session.run()
    assert session.state == "failed" and isinstance(session.error, error)
    assert text in str(session.error) and "\n" not in str(session.error)
    (att,) = load(session.capture_path).attempts  # type: ignore[arg-type]
    assert att.end is not None and att.end["reason"] == "error"
    assert att.end["error"] == str(session.error)
    sent = await asyncio.to_thread(_refetch, session)
    assert sent and att.body == sent
    (rec,) = session.records
    assert rec.error == str(session.error)
    assert rec.outcome == ("invalid" if model == "fault-reset" else "failed")


async def test_invalid_utf8_is_recorded_exactly(demo: str, tmp_path: Path) -> None:
    session = await _session(demo, "fault-invalid-utf8", tmp_path)
    await session.run()
    att = load(session.capture_path).attempts[0]  # type: ignore[arg-type]
    assert b"\xff" in att.body and att.body == await asyncio.to_thread(_refetch, session)


async def test_read_timeout_on_a_stall(demo: str, tmp_path: Path) -> None:
    session = await _session(
        demo,
        "fault-stall",
        tmp_path,
        headers={"x-demo-stall": "20"},
        settings=LoopSettings(read_timeout=0.5),
    )
    await asyncio.wait_for(session.run(), 10)
    assert session.state == "failed" and isinstance(session.error, ReadTimeout)
    att = load(session.capture_path).attempts[0]  # type: ignore[arg-type]
    assert att.chunks and att.end is not None and att.end["reason"] == "timeout"


async def test_cancel_mid_stream(demo: str, tmp_path: Path) -> None:
    got_bytes = asyncio.Event()
    session = await _session(
        demo,
        "fault-stall",
        tmp_path,
        headers={"x-demo-stall": "30"},
        on_update=lambda: got_bytes.set(),
    )
    before = asyncio.all_tasks()
    runner = asyncio.create_task(session.run())
    await asyncio.wait_for(got_bytes.wait(), 10)
    await asyncio.sleep(0.1)
    assert session.state == "streaming"
    session.cancel()
    await asyncio.wait_for(runner, 5)  # run() returns normally after cancel()
    assert session.state == "cancelled" and session.error is None
    att = load(session.capture_path).attempts[0]  # type: ignore[arg-type]
    assert att.chunks and att.end is not None and att.end["reason"] == "cancelled"
    left = {t for t in asyncio.all_tasks() - before if not t.done()}
    assert not {t for t in left if "live session" in t.get_name()}


async def test_cancelling_the_caller_propagates(demo: str, tmp_path: Path) -> None:
    got_bytes = asyncio.Event()
    session = await _session(
        demo,
        "fault-stall",
        tmp_path,
        headers={"x-demo-stall": "30"},
        on_update=lambda: got_bytes.set(),
    )
    runner = asyncio.create_task(session.run())
    await asyncio.wait_for(got_bytes.wait(), 10)
    runner.cancel()
    with pytest.raises(asyncio.CancelledError):
        await runner
    task = session._once.task
    assert session.state == "cancelled" and task is not None and task.done()
    att = load(session.capture_path).attempts[0]  # type: ignore[arg-type]
    assert att.end is not None and att.end["reason"] == "cancelled"


@pytest.fixture
def child_env() -> Iterator[dict[str, str]]:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    env.pop("TOOLCALL_INSPECTOR_DEBUG", None)
    yield env


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigkill_mid_stream_leaves_a_readable_capture(
    tmp_path: Path, child_env: dict[str, str]
) -> None:
    out = tmp_path / "killed.jsonl"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "inspector",
            "record",
            "--profile",
            "demo",
            "--scenario",
            "weather",
            "--out",
            str(out),
            "--model",
            "fault-stall",
            "--header",
            "x-demo-stall:60",
        ],
        cwd=REPO,
        env=child_env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if out.exists() and b'"type":"chunk"' in out.read_bytes():
                break
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            time.sleep(0.05)
        else:
            pytest.fail("no chunks were recorded")
        time.sleep(0.5)  # the frames before the stall arrive; then the stream stalls
        proc.send_signal(signal.SIGKILL)
        proc.wait(5)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
        if proc.stderr:
            proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL
    cap = load(out)
    (att,) = cap.attempts
    assert att.end is None and att.response is not None and att.status == 200
    assert att.chunks and att.body.startswith(b"data: ") and att.body.endswith(b"\n\n")
    assert out.read_bytes().count(b'"type":"chunk"') == len(att.chunks) and not cap.warnings
    events = decode_all(att.body)
    assert events and all(e.kind != EventKind.ERROR for e in events)
    assert cap.meta["profile"] == "demo" and cap.meta["model"] == "fault-stall"
