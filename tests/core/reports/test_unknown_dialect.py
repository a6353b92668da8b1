"""A stream no provider recognises is refused as "unknown dialect", saying what was seen (its
content type and first event), exit 2 — never judged as openai-chat "valid, no tool calls" —
unless ``--dialect`` forces one. Bodies of other APIs are each refused with their reason; what
is not unknown stays as it was (an empty or keep-alive-only body, an HTTP error, a dialect the
capture or its request URL names).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inspector.cli import main
from inspector.core.capture.reader import load
from inspector.core.reports.gate import UNKNOWN, unknown_dialect

WIKI = (
    b'event: message\nid: [{"topic":"eqiad.mediawiki.recentchange","offset":-1}]\n'
    b'data: {"$schema":"/mediawiki/recentchange/1.0.0","type":"edit","title":"Foo"}\n\n'
    b'event: message\ndata: {"$schema":"/mediawiki/recentchange/1.0.0","type":"log"}\n\n'
)
"""An SSE stream of a non-LLM API (Wikimedia's EventStreams)."""
GITHUB_LIKE = (
    b'event: ping\ndata: {"zen":"Design for failure."}\n\nevent: push\ndata: {"ref":"main"}\n\n'
)
NDJSON = b'{"model":"llama3","response":"Hi","done":false}\n{"model":"llama3","done":true}\n'
ERROR_DOC = b'{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}'

BODIES = [
    ("sse-of-another-api", WIKI, "unknown dialect: ",
     "first event: data '{\"$schema\":\"/mediawiki/recentchange/1.0.0\""),
    ("named-events-of-another-api", GITHUB_LIKE, "unknown dialect: ",
     "first event: event 'ping', data '{\"zen\":\"Design for failure.\"}'"),
    ("ndjson", NDJSON, "not a stream: ", "newline-delimited JSON (NDJSON)"),
    ("json-error-document", ERROR_DOC, "not a stream: ", "a JSON error body"),
]  # fmt: skip


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["analyze", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(("case", "body", "head", "reason"), BODIES, ids=[b[0] for b in BODIES])
def test_a_body_of_another_api_is_refused_with_its_reason(
    case: str, body: bytes, head: str, reason: str, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    path = tmp_path / f"{case}.body"
    path.write_bytes(body)
    code, out, err = _run(capsys, str(path))
    assert (code, out) == (2, "")
    line = err.strip()
    assert line.startswith(f"toolcall-inspector: {head}{path}: ") and "\n" not in line
    assert reason in line
    if head.startswith(UNKNOWN):
        assert "no content type recorded" in line and line.endswith(
            "--dialect NAME reads it as one"
        )


def test_a_forced_dialect_reads_an_unknown_body(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "wiki.sse"
    path.write_bytes(WIKI)
    code, out, err = _run(capsys, str(path), "--dialect", "openai-chat")
    assert code == 0 and err == "" and "openai-chat" in out.splitlines()[0]


def test_an_empty_or_keepalive_only_body_is_an_empty_stream_not_unknown(tmp_path: Path) -> None:
    path = tmp_path / "ka.sse"
    path.write_bytes(b": keep-alive\n\n: keep-alive\n\n")
    assert unknown_dialect(load(str(path)), "auto") is None


def _capture(tmp_path: Path, status: int, url: str, body: bytes, **meta: Any) -> Path:
    records: list[dict[str, Any]] = [
        {"format": "toolcall-inspector-capture", "version": 1, "meta": meta},
        {"type": "request", "attempt": 1, "t": 0.0, "method": "POST", "url": url,
         "headers": {}, "body": {}},
        {"type": "response", "attempt": 1, "t": 0.1, "status": status,
         "headers": {"content-type": "text/event-stream; charset=utf-8"}},
        {"type": "chunk", "attempt": 1, "t": 0.2, "text": body.decode()},
        {"type": "end", "attempt": 1, "t": 0.3, "reason": "eof", "error": None},
    ]  # fmt: skip
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return path


def test_a_capture_says_the_content_type_it_was_served_as(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _capture(tmp_path, 200, "https://stream.wikimedia.org/v2/stream/recentchange", WIKI)
    code, _, err = _run(capsys, str(path))
    assert code == 2
    assert "content type text/event-stream; charset=utf-8; first event:" in err


def test_what_is_not_unknown_stays_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    failed = _capture(tmp_path, 500, "https://h/v1/x", WIKI)
    assert _run(capsys, str(failed))[0] == 1  # an HTTP error: a failed request, exit 1
    by_url = _capture(tmp_path, 200, "https://api.cohere.com/v2/chat", WIKI)
    code, out, _ = _run(capsys, str(by_url))  # the request URL names the dialect
    assert code != 2 and "cohere-v2" in out.splitlines()[0]
    named = _capture(tmp_path, 200, "https://h/x", WIKI, dialect="anthropic")
    assert unknown_dialect(load(str(named)), "auto") is None  # the capture names it
