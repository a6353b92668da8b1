"""Issue 30: a large request body read apart (``core/capture/apart.py``, in the proxy's body
worker process) gives exactly what the proxy's own reading gives: the same secrets, the same
redacted body, and a skeleton of the small members a session reads."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import orjson
import pytest

from inspector.core.capture.apart import SKELETON, JsonFile, prepare
from inspector.core.capture.reader import load
from inspector.core.capture.redaction import RedactedBody, redact_body
from inspector.core.capture.writer import CaptureWriter
from inspector.net.proxy.routes import secrets_of

KEY = "sk-proj-APARTa1b2c3d4e5f6g7h8i9j0"
URL = "http://up.example/v1/chat/completions?api-key=url-secret-77"
HEADERS = [("Authorization", f"Bearer {KEY}"), ("Content-Type", "application/json")]


def _body(**extra: Any) -> dict[str, Any]:
    prose = 'prose "quoted" café 東京 \\ ' * 2000
    messages = [{"role": "user", "content": f"{i} {prose}"} for i in range(30)]
    messages.append({"role": "user", "content": f"my key is {KEY} and url-secret-77."})
    tool = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}
    return {"model": "gpt-apart", "stream": True, "messages": messages, "tools": [tool], **extra}


@pytest.mark.parametrize(
    "body",
    [_body(), _body(api_key="body-credential-0123456789"), _body(metadata={"token": "t0k3n"})],
    ids=["plain", "body-credential", "token-by-name"],
)
def test_what_comes_back_is_what_the_proxy_would_have_made(body: dict[str, Any]) -> None:
    raw = orjson.dumps(body)
    summary, out = prepare(raw, secrets_of(HEADERS, URL), HEADERS)
    secrets = secrets_of(HEADERS, URL, body)  # the proxy's own reading of the whole body
    assert summary["object"] is True and tuple(summary["secrets"]) == secrets
    assert orjson.loads(out) == redact_body(body, secrets) and summary["bytes"] == len(out)
    assert KEY.encode() not in out and b"url-secret-77" not in out
    # The skeleton: every small member, as sent and as redacted; not the conversation.
    small = [name for name in body if name != "messages"]
    assert list(summary["request"]) == small and "messages" not in summary["recorded"]
    assert summary["request"] == {name: body[name] for name in small}
    assert summary["recorded"] == {name: orjson.loads(out)[name] for name in small}


def test_the_skeleton_keeps_the_smallest_members_up_to_its_size() -> None:
    body = {"model": "m", "a": "x" * (SKELETON // 2), "b": "y" * SKELETON, "c": [1, 2]}
    summary, _ = prepare(orjson.dumps(body), (), [])
    assert list(summary["request"]) == ["model", "a", "c"]


@pytest.mark.parametrize("raw", [b"[1, 2, 3]", b'{"model": "m", "messages": [', b"\xff\xfe"])
def test_a_body_that_is_no_json_object_is_said_to_be_none(raw: bytes) -> None:
    assert prepare(raw, (KEY,), HEADERS) == ({"object": False}, b"")


def test_the_writer_writes_the_prepared_json_and_re_redacts_it_for_a_new_secret(
    tmp_path: Path,
) -> None:
    body = _body()
    summary, out = prepare(orjson.dumps(body), (KEY,), HEADERS)
    secrets = tuple(summary["secrets"])
    file = tempfile.TemporaryFile(dir=tmp_path)  # noqa: SIM115 (the JsonFile closes it)
    file.write(b"a summary line\n" + out)
    json = JsonFile(file, len(b"a summary line\n"), len(out))
    prepared = RedactedBody(summary["recorded"], secrets, large=True, json=json)
    whole = redact_body(body, secrets)
    with CaptureWriter(tmp_path / "a.jsonl", secrets=secrets) as writer:
        writer.request(1, "POST", URL, HEADERS, prepared)
        writer.end(1, 0.1, "eof")
    request = load(tmp_path / "a.jsonl").attempts[0].request
    assert request is not None and request["body"] == whole  # the whole body, not the skeleton
    # A secret the body was not redacted for: the whole body is read back and redacted again.
    extra = "my key is"
    with CaptureWriter(tmp_path / "b.jsonl", secrets=(*secrets, extra)) as writer:
        writer.request(1, "POST", URL, HEADERS, prepared)
        writer.end(1, 0.1, "eof")
    request = load(tmp_path / "b.jsonl").attempts[0].request
    assert request is not None and request["body"] == redact_body(body, (*secrets, extra))
    assert len(request["body"]["messages"]) == len(body["messages"])
    assert b"my key is" not in (tmp_path / "b.jsonl").read_bytes()
    json.close()


@pytest.mark.parametrize("ways", ["copy_file_range", "sendfile", "by-hand"])
def test_the_json_file_is_copied_exactly_whichever_way_the_system_allows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ways: str
) -> None:
    """``JsonFile.copy_to`` from a file of another file system (memory) or of the same one,
    with the kernel's ways taken away one by one: the same bytes appended each time."""
    import os

    if ways != "copy_file_range":
        monkeypatch.delattr(os, "copy_file_range", raising=False)
    if ways == "by-hand":
        monkeypatch.delattr(os, "sendfile", raising=False)
    payload = bytes(range(256)) * 20_000  # 5 MB: several steps
    file = tempfile.TemporaryFile(dir=tmp_path)  # noqa: SIM115 (the JsonFile closes it)
    file.write(b"line\n" + payload + b"after")
    json = JsonFile(file, 5, len(payload))
    target = tmp_path / "out.bin"
    fd = os.open(target, os.O_WRONLY | os.O_CREAT)
    try:
        os.write(fd, b"head")
        assert json.copy_to(fd) == len(payload)
        os.write(fd, b"tail")
    finally:
        os.close(fd)
        json.close()
    assert target.read_bytes() == b"head" + payload + b"tail"
