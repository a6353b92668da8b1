"""HAR 1.2 import: the shapes real tools write (tests/har/shapes.py says where each comes
from) open as the same calls as the raw stream; what HAR loses is said, never hidden.

Every real recorded stream is wrapped in each tool's shape and must give, once imported, the
very calls, verdicts and quirks that the raw body gives: the HAR layer adds and loses nothing
the report can see, except timing, which it names.
"""

from __future__ import annotations

import base64
import json
import zlib
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import all_real_fixtures, real_fixture
from har import shapes
from har.shapes import TOOLS

from inspector.core.analysis.session import Analysis
from inspector.core.base.settings import Settings
from inspector.core.capture import harexport
from inspector.core.capture.format import CaptureError
from inspector.core.capture.har import looks_like_har, read_har
from inspector.core.capture.harcapture import NO_TIMING
from inspector.core.capture.reader import load
from inspector.core.capture.writer import CaptureWriter
from inspector.core.providers import REGISTRY
from inspector.core.replay.harsessions import HarSessions, read_sessions
from inspector.core.replay.replayer import Replayer
from inspector.core.reports import report
from inspector.core.verdicts.tools import ToolRegistry

REAL = all_real_fixtures()


def dialect_of(path: Path) -> str:
    meta = json.loads(path.with_suffix(".meta.json").read_text())
    return str(meta["dialect"])


def calls_report(capture: Any, tools: ToolRegistry | None = None) -> dict[str, Any]:
    """What the report says of the calls, quirks and finish (not the source, warnings or
    capture-level facts, which differ between a HAR entry and a raw body by design)."""
    analysis = Analysis.from_capture(capture, Settings(), tools, providers=REGISTRY)
    final = report.attempt_json(analysis.final)
    keys = ("dialect", "events", "bytes", "finish_reason", "text", "errors", "tool_calls")
    return {k: final[k] for k in (*keys, "quirks")}


def sessions_of(har: dict[str, Any] | bytes, name: str = "x.har") -> HarSessions:
    data = har if isinstance(har, bytes) else orjson.dumps(har)
    return read_sessions(data, name)


SHAPES = {
    "chrome": lambda body, w: shapes.chrome(body, w),
    "chrome-sanitized": lambda body, w: shapes.chrome(body, w, sanitized=True),
    "firefox": lambda body, w: shapes.firefox(body, w),
    "mitmproxy": lambda body, w: shapes.mitmproxy(body, w),
    "mitmproxy-11": lambda body, w: shapes.mitmproxy(body, w, newer=True),
    "charles": lambda body, w: shapes.charles(body, w),
    "proxyman": lambda body, w: shapes.proxyman(body, w),
}


@pytest.mark.parametrize("fixture", REAL, ids=lambda p: p.stem)
def test_every_real_stream_in_every_tools_shape_gives_the_raw_streams_calls(fixture: Path) -> None:
    body = fixture.read_bytes()
    dialect = dialect_of(fixture)
    request = shapes.wire(dialect)  # the raw body judged against the tools the HAR's request
    raw = calls_report(
        load(fixture), ToolRegistry.from_definitions(request.body, REGISTRY)
    )  # holds
    for shape, build in SHAPES.items():
        found = sessions_of(build(body, shapes.wire(dialect)))
        assert len(found.sessions) == 1, shape
        session = found.sessions[0]
        assert (session.dialect, session.problem, session.streamed) == (dialect, None, True), shape
        capture = session.capture
        assert capture.attempts[0].body == body, shape
        assert calls_report(capture) == raw, shape
        assert not capture.timed and NO_TIMING.split(":")[0] in capture.warnings[-1]
        assert shapes.KEY not in repr(capture.attempts[0].request), shape
    assert raw["tool_calls"], "every recorded stream holds a call"


def test_chromes_preflight_and_page_resources_are_hidden_and_counted() -> None:
    body = (REAL[0]).read_bytes()
    found = sessions_of(shapes.chrome(body, shapes.wire("openai-chat")))
    assert [s.entry for s in found.sessions] == [2]
    assert found.hidden == 2 and found.summary == "1 LLM session among 3 entries (2 others hidden)"
    with pytest.raises(CaptureError, match=r"entry 1 \(OPTIONS /v1/chat/completions\) is no"):
        found.pick(1)


def test_the_request_carries_the_tools_the_calls_are_judged_against() -> None:
    body = (REAL[-1]).read_bytes()
    session = sessions_of(shapes.firefox(body, shapes.wire(dialect_of(REAL[-1])))).sessions[0]
    assert session.capture.tools is not None and session.model == "some-model"
    request = session.capture.attempts[0].request
    assert request is not None and request["headers"]["authorization"] == "REDACTED"


@pytest.mark.parametrize(
    ("build", "said"),
    [
        (lambda w: shapes.chrome(None, w), "Chrome DevTools saved no response.content.text"),
        (lambda w: shapes.firefox(None, w), "'Response bodies are not included.'"),
        (lambda w: shapes.mitmproxy(None, w), "content.text is null): it keeps none for a"),
    ],
    ids=["chrome", "firefox", "mitmproxy-streamed"],
)
def test_a_body_the_exporter_left_out_says_which_exporter_and_why(build: Any, said: str) -> None:
    session = sessions_of(build(shapes.wire("openai-chat"))).sessions[0]
    assert session.missing and session.problem is not None and said in session.problem
    assert "\n" not in session.problem
    assert not session.capture.attempts[0].chunks  # nothing made up


def test_a_non_streaming_reply_is_listed_with_why_it_cannot_be_followed() -> None:
    reply = {"choices": [{"message": {"tool_calls": []}, "finish_reason": "tool_calls"}]}
    har = shapes.proxyman(orjson.dumps(reply), shapes.wire("openai-chat"))
    har["log"]["entries"][0]["response"]["content"]["mimeType"] = "application/json"
    session = sessions_of(har).sessions[0]
    assert not session.streamed and not session.missing
    assert session.problem is not None and "non-streaming response (application/json" in (
        session.problem
    )


def test_a_failed_request_is_shown_as_one_not_as_a_problem() -> None:
    error = {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}
    har = shapes.proxyman(orjson.dumps(error), shapes.wire("openai-chat"))
    har["log"]["entries"][0]["response"]["status"] = 401
    session = sessions_of(har).sessions[0]
    assert session.problem is None and session.status == 401
    assert session.capture.attempts[0].status == 401


def test_entries_that_are_no_llm_request_are_hidden() -> None:
    body = REAL[0].read_bytes()
    har = shapes.proxyman(body, shapes.wire("openai-chat"))
    post = har["log"]["entries"][0]
    models = json.loads(json.dumps(post))
    models["request"].update(method="GET", url="https://api.openai.com/v1/models")
    models["request"].pop("postData")
    embeddings = json.loads(json.dumps(post))
    embeddings["request"]["url"] = "https://api.openai.com/v1/embeddings"
    embeddings["request"]["postData"]["text"] = '{"model": "e", "input": "hi"}'
    embeddings["response"]["content"] = {"size": 2, "mimeType": "application/json", "text": "{}"}
    har["log"]["entries"] = [models, embeddings, post]
    found = sessions_of(har)
    assert [s.entry for s in found.sessions] == [3] and found.hidden == 2


def test_a_charles_har_with_escaped_slashes_and_null_redirect_reads() -> None:
    data = shapes.charles(REAL[0].read_bytes(), shapes.wire("openai-chat"))
    assert b"https:\\/\\/api.openai.com" in data
    session = sessions_of(data).sessions[0]
    assert session.path == "/v1/chat/completions" and session.capture.attempts[0].body


def test_a_zhar_and_a_bom_are_read() -> None:
    har = shapes.mitmproxy(REAL[0].read_bytes(), shapes.wire("openai-chat"))
    assert sessions_of(shapes.zhar(har), "dump.zhar").sessions[0].capture.attempts[0].body
    assert sessions_of(b"\xef\xbb\xbf" + orjson.dumps(har)).sessions
    assert looks_like_har(b'\xef\xbb\xbf  {\n "log": {') and looks_like_har(b"[]", "a.har")
    assert not looks_like_har(b'{"format": "toolcall-inspector-capture"}', "a.jsonl")


def test_a_zhar_that_inflates_beyond_the_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("inspector.core.capture.har.MAX_INFLATED", 1000)
    bomb = zlib.compress(b" " * 100_000)
    with pytest.raises(CaptureError, match="inflates to more than 1000 bytes"):
        read_har(bomb, "bomb.zhar")


def test_a_body_written_base64_keeps_bytes_that_are_not_utf8() -> None:
    body = b'data: {"choices": []}\n\ndata: \xff\xfe\n\n'
    har = shapes.proxyman(b"", shapes.wire("openai-chat"))
    content = har["log"]["entries"][0]["response"]["content"]
    content.update(text=base64.b64encode(body).decode(), encoding="base64")
    assert sessions_of(har).sessions[0].capture.attempts[0].body == body


CANARY = shapes.KEY


def test_the_key_is_redacted_wherever_a_request_shows_it() -> None:
    w = shapes.wire("openai-chat")
    har = shapes.proxyman(REAL[0].read_bytes(), w)
    request = har["log"]["entries"][0]["request"]
    request["url"] = f"https://user:pw@api.example/v1/chat/completions?key={CANARY}&x=1"
    request["headers"] += [{"name": "X-Trace", "value": f"run=1; Bearer {CANARY}"}]
    body = {**w.body, "user": CANARY, "metadata": {"note": f"key {CANARY}"}}
    request["postData"]["text"] = json.dumps(body)
    capture = sessions_of(har).sessions[0].capture
    written = orjson.dumps([a.request for a in capture.attempts]) + orjson.dumps(capture.header)
    assert CANARY.encode() not in written
    assert b"REDACTED@api.example" in written and b"key=REDACTED" in written


MALFORMED = [
    (b"", "empty file"),
    (b'{"log": {"entries": [', "not valid JSON (line 1, column"),
    (b"[1, 2]", "no 'log' object"),
    (b'{"log": []}', "no 'log' object"),
    (b'{"log": {"entries": {}}}', "'log.entries' is no list"),
    (b"\xff\xfe{}", "not valid JSON"),
    (b"\x78\x9c garbage", "not zlib data"),
]


@pytest.mark.parametrize(("data", "said"), MALFORMED)
def test_a_malformed_har_is_one_line(data: bytes, said: str) -> None:
    name = "dump.zhar" if data.startswith(b"\x78") else "bad.har"
    with pytest.raises(CaptureError) as err:
        read_har(data, name)
    assert said in str(err.value) and "\n" not in str(err.value)


def test_unreadable_entries_are_skipped_and_named() -> None:
    har = shapes.proxyman(REAL[0].read_bytes(), shapes.wire("openai-chat"))
    good = har["log"]["entries"][0]
    har["log"]["entries"] = [
        1,
        {"request": {"method": "POST"}},
        {"request": {"method": "GET", "url": "https://x/"}, "response": {"status": "two"}},
        good,
    ]
    found = sessions_of(har)
    assert [s.entry for s in found.sessions] == [4] and found.hidden == 3
    assert found.har.warnings == [
        "HAR entry 1: is no object; skipped",
        "HAR entry 2: has no request URL; skipped",
        "HAR entry 3: has a response status 'two' that is no number; skipped",
    ]
    assert found.sessions[0].capture.warnings[:3] == found.har.warnings


def test_no_llm_session_says_what_the_file_holds() -> None:
    found = sessions_of({"log": {"version": "1.2", "creator": {}, "entries": [1]}})
    assert not found.sessions
    assert found.none_reason().startswith("no LLM request among its 1 entries (1 unreadable")


def test_an_untimed_har_session_replays_one_event_per_step() -> None:
    body = REAL[0].read_bytes()
    capture = sessions_of(shapes.chrome(body, shapes.wire("openai-chat"))).sessions[0].capture
    replayer = Replayer(capture, Settings())
    assert len(replayer.plan) > 1 and b"".join(s.data for s in replayer.plan) == body


WRONG = [None, True, -1, "x", [], {"a": 1}]


def leaves(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path into ``node`` (objects and lists), its own included."""
    found = [path]
    if isinstance(node, dict):
        for k, v in node.items():
            found += leaves(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node[:3]):
            found += leaves(v, (*path, i))
    return found


def replaced(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    copy = json.loads(json.dumps(doc))
    node = copy
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    return copy


def small_capture(path: Path, body: bytes) -> Any:
    """A capture of ours with every record kind: a retry, chunks, an event and an end."""
    with CaptureWriter(path, meta={"dialect": "openai-chat"}) as w:
        w.request(1, "POST", "https://api.example/v1/chat/completions", {}, {"tools": TOOLS})
        w.response(1, 200, {"content-type": "text/event-stream"}, 0.01)
        w.chunk(1, 0.02, body[:100])
        w.event(1, 0.03, "tool_result", {"call": "c1"})
        w.attempt(2, "stream_invalid_tool_call", "retry_streaming")
        w.chunk(2, 0.05, body[100:])
        w.end(2, 0.06, "eof")
    return load(path)


@pytest.mark.parametrize("kind", ["firefox", "ours"])
def test_a_field_of_any_wrong_type_anywhere_is_read_or_one_error(kind: str, tmp_path: Path) -> None:
    """Hostile HARs: each field of a real entry (ours: with _chunks and _inspector) replaced by
    each JSON kind; reading and judging raise nothing but a one-line CaptureError."""
    body = real_fixture("mistral-no-index-whole-call").read_bytes()
    if kind == "ours":
        har = harexport.to_har([small_capture(tmp_path / "c.jsonl", body)])
    else:
        har = shapes.firefox(body, shapes.wire("openai-chat"))
    har = json.loads(orjson.dumps(har))
    paths = [p for p in leaves(har["log"]["entries"][0]) if p]
    assert len(paths) > 40
    errors = 0
    for path in paths:
        for value in WRONG:
            doc = replaced(har, ("log", "entries", 0, *path), value)
            try:
                found = sessions_of(doc)
            except CaptureError as exc:
                errors += 1
                assert "\n" not in str(exc)
                continue
            for s in found.sessions:  # judged as the views judge it
                analysis = Analysis.from_capture(s.capture, Settings(), providers=REGISTRY)
                assert all(v.verdicts is not None for v in analysis.attempts)
    assert errors < len(paths) * len(WRONG) / 2  # most damage is survived, not refused
