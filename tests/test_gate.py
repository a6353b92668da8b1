"""What a file is before it is judged: the stream-or-not gate for raw bodies (core and window),
the dialect a capture header names, and request records checked on read."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, all_real_fixtures

from inspector.core.analysis.session import Analysis
from inspector.core.base.settings import Settings
from inspector.core.capture.format import CaptureError
from inspector.core.capture.reader import load, load_bytes
from inspector.core.providers import REGISTRY
from inspector.core.reports.gate import GATE_BYTES, header_settings, not_a_stream

HEADER = '{"format": "toolcall-inspector-capture", "version": 1, "meta": {"dialect": "anthropic"}}'
HTML = b"<!doctype html>\n<html><head><title>x</title></head>\n<body>hello</body></html>\n"


def _random_text(size: int) -> bytes:
    rnd = random.Random(11)
    words = ["alpha", "beta", "gamma:", "delta", "data", "x=1", "{", "}", "--"]
    out, n = [], 0
    while n < size:
        line = " ".join(rnd.choice(words) for _ in range(rnd.randint(1, 12)))
        out.append(line)
        n += len(line) + 1
    return "\n".join(out).encode()


def _binary() -> bytes:
    ls = Path("/bin/ls")
    return ls.read_bytes() if ls.is_file() else bytes(random.Random(3).randbytes(150_000))


@pytest.mark.parametrize(
    ("body", "looks"),
    [
        (_random_text(GATE_BYTES + 4096), "plain text"),
        (_binary(), "binary data"),
        (HTML, "an HTML or XML document"),
        (b'{"error": {"message": "bad key"}}', "a JSON error body"),
        (b"\n \n", "a blank body"),
    ],
    ids=["random-text-over-1MiB", "binary", "html", "json-error-body", "blank"],
)
def test_bodies_that_are_not_streams(body: bytes, looks: str) -> None:
    reason = not_a_stream(load_bytes(body), "f")
    assert reason is not None and reason.startswith(f"not a stream: f: {looks}")
    assert "\n" not in reason
    assert reason.endswith("in its first 1 MiB" if len(body) > GATE_BYTES else "in it")


@pytest.mark.parametrize(
    "body",
    [
        b"data: {}\n\n",  # SSE framing, JSON no dialect knows: a stream of an unknown dialect
        b": keep-alive\n\n: keep-alive\n\n",
        b'data: {"foo": 1}\n\ndata: {"foo": 2}\n\n',
        b"\xef\xbb\xbfevent: x\r\ndata: [DONE]\r\n\r\n",
        b"data: \xff cut",
        # a curl -i dump: headers, then a recognised event
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nx-a: 1\r\nx-b: 2\r\n\r\n"
        b'data: {"choices": []}\n\n',
    ],
)
def test_sse_bodies_are_streams(body: bytes) -> None:
    assert not_a_stream(load_bytes(body)) is None


def test_every_real_stream_and_sample_passes_the_gate() -> None:
    samples = sorted((REPO / "resources" / "samples").glob("*.jsonl"))
    assert samples
    for path in [*all_real_fixtures(), *samples]:
        assert not_a_stream(load(path)) is None, path


def test_a_capture_header_is_never_not_a_stream(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    path.write_text(HEADER + "\n")
    capture = load(path)
    assert not_a_stream(capture) is None
    assert header_settings(capture, Settings(), REGISTRY).dialect == "anthropic"
    assert header_settings(capture, Settings(dialect="gemini"), REGISTRY).dialect == "gemini"
    path.write_text(HEADER.replace("anthropic", "no-such") + "\n")
    assert header_settings(load(path), Settings(), REGISTRY).dialect == "auto"


REQUEST = {"type": "request", "attempt": 1, "t": 0, "method": "POST", "url": "http://x/v1"}


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"headers": [["a", "b"]]}, "request record has 'headers' that are a list, not an object"),
        ({"headers": {"a": 1}}, "request record has a header 'a' that is not a string"),
        ({"url": 5}, "request record has a 'url' that is not a string"),
        ({"body_b64": 5}, "request record has a 'body_b64' that is not a string"),
    ],
)
def test_request_records_are_checked_on_read(
    tmp_path: Path, changes: dict[str, Any], reason: str
) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(HEADER + "\n" + json.dumps({**REQUEST, **changes}) + "\n")
    with pytest.raises(CaptureError) as info:
        load(path)
    assert str(info.value) == f"{path}: line 2: {reason}"


def test_a_text_request_body_is_kept_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(HEADER + "\n" + json.dumps({**REQUEST, "body": '{"tools": []}'}) + "\n")
    capture = load(path)
    assert capture.request_body == '{"tools": []}' and capture.tools is None
    assert capture.warnings == [
        "line 2: the request body of attempt 1 is text, not a JSON object (no tools are read "
        "from it)"
    ]


@pytest.mark.parametrize(
    ("body", "what"),
    [
        ([1, 2], "is an array, not a JSON object"),
        (7, "is an integer, not a JSON object"),
        ({"tools": "get_weather"}, "is a string, not a list"),
    ],
)
def test_a_request_body_of_another_type_is_kept_with_a_warning(
    tmp_path: Path, body: Any, what: str
) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(HEADER + "\n" + json.dumps({**REQUEST, "body": body}) + "\n")
    capture = load(path)
    assert capture.request_body == body and capture.tools is None
    (warning,) = capture.warnings
    assert warning.startswith("line 2: the request body") and warning.endswith(
        f"of attempt 1 {what} (no tools are read from it)"
    )


END = {"type": "end", "attempt": 1, "t": 0.5, "reason": "error"}


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"reason": {"x": 1}},
         "end record has an invalid 'reason' {'x': 1} (an object, not a string)"),
        ({"reason": None}, "end record has an invalid 'reason' None (a null, not a string)"),
        ({"error": [1]}, "end record has an invalid 'error' [1] (an array, not a string)"),
    ],
)  # fmt: skip
def test_end_records_are_checked_on_read(
    tmp_path: Path, changes: dict[str, Any], reason: str
) -> None:
    """Before, ``attempt 1 failed: [1]`` was reported from such a record."""
    path = tmp_path / "c.jsonl"
    path.write_text(HEADER + "\n" + json.dumps({**END, **changes}) + "\n")
    with pytest.raises(CaptureError) as info:
        load(path)
    assert str(info.value) == f"{path}: line 2: {reason}"


@pytest.mark.parametrize(
    ("meta", "warning"),
    [
        ([1], "line 1: the capture header's 'meta' is a list, not an object; ignored"),
        ({"dialect": {"x": 1}},
         "line 1: the capture header's 'meta.dialect' is an object, not a dialect name; ignored"),
        ({"dialect": "klingon"},
         "the capture header names dialect 'klingon', which is none of "
         f"{', '.join(REGISTRY.names())}; the dialect is sniffed from the stream"),
    ],
)  # fmt: skip
def test_a_header_meta_of_the_wrong_type_or_name_is_warned_about(
    tmp_path: Path, meta: Any, warning: str
) -> None:
    path = tmp_path / "c.jsonl"
    header = {"format": "toolcall-inspector-capture", "version": 1, "meta": meta}
    path.write_text(json.dumps(header) + "\n")
    capture = load(path)
    settings = header_settings(capture, Settings(), REGISTRY)
    header_settings(capture, Settings(), REGISTRY)  # warned once however often it is asked
    assert settings.dialect == "auto" and capture.warnings == [warning]
    assert warning in Analysis.from_capture(capture, settings, providers=REGISTRY).warnings


# -- the window: a notice replaces the attempt -------------------------------------------------


def test_the_document_shows_a_notice_instead_of_an_attempt(qtbot: Any, tmp_path: Path) -> None:
    from inspector.ui.document.document import Document

    doc = Document()
    page = tmp_path / "page.html"
    page.write_bytes(HTML)
    assert doc.open_path(str(page))
    assert doc.source is None and doc.view is None
    assert doc.notice is not None and doc.notice.startswith(f"not a stream: {page}: an HTML")
    sse = tmp_path / "ok.sse"
    sse.write_bytes(b"data: {}\n\n")
    assert doc.open_path(str(sse)) and doc.notice is None and doc.view is not None
    doc.close()


def test_a_progressive_load_shows_the_notice_before_any_slice(
    qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from inspector.ui.document import document

    monkeypatch.setattr(document, "PROGRESSIVE_BYTES", 1024)
    doc = document.Document()
    big = tmp_path / "big.txt"
    big.write_bytes(_random_text(64 * 1024))
    fed: list[int] = []
    doc.flushed.connect(lambda: fed.append(1))
    assert doc.open_path(str(big)) and doc.loading
    qtbot.waitUntil(lambda: doc.notice is not None, timeout=5000)
    assert doc.notice is not None and doc.notice.startswith(f"not a stream: {big}: plain text")
    assert doc.source is None and not doc.loading and not fed
    doc.close()


def test_the_window_shows_the_notice_in_the_lanes_place(qtbot: Any, tmp_path: Path) -> None:
    from inspector.ui.shell.mainwindow import MainWindow

    window = MainWindow()
    qtbot.addWidget(window)
    page = tmp_path / "page.html"
    page.write_bytes(HTML)
    window.open(str(page))
    views = window.views
    assert views.top.currentWidget() is views.notice
    assert views.notice.text().startswith("not a stream: ")
    assert window.statusBar().currentMessage().startswith("not a stream: ")
    assert views.attempts.topLevelItemCount() == 0 and window.raw.model.rowCount() == 0
    window.open(str(REPO / "resources" / "samples" / "responses-function-call.jsonl"))
    assert views.top.currentWidget() is views.lanes and views.lanes.lanes
