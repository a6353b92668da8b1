"""Issue 30: a large request body is redacted once, as strongly as any other — the content
fields skipped only where a byte search proves no key is in them — and written in pieces
(``redaction.RedactedBody``, ``keyscan.json_text_lacks``, the writer's large request)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from inspector.core.capture.keyscan import json_text_lacks
from inspector.core.capture.reader import load
from inspector.core.capture.redaction import RedactedBody, redact_body
from inspector.core.capture.writer import CaptureWriter

KEY = "sk-proj-LARGEa1b2c3d4e5f6g7h8i9j0"
SECRETS = (KEY, f"Bearer {KEY}", "tenant-secret-value-42")


def _with(content: Any, **extra: Any) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": "user", "content": content}], **extra}


BODIES = [
    _with('nothing secret here, café 東京 "quoted" \\ slash / done'),
    _with(f"my key is {KEY}."),
    _with("tenant: tenant-secret-value-42"),
    _with([{"type": "text", "text": "deep", f"name-{KEY}": 1}]),
    _with("plain", api_key="sk-ant-api03-abcdefghijklmnopqrst", metadata={"token": "t0k3n-x"}),
    _with("plain", user="ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
    {"model": "m", "input": [{"role": "user", "content": [{"text": KEY[:12] + "..."}]}]},
]


def _encodings(body: dict[str, Any]) -> list[bytes]:
    """The body as orjson writes it, and as Python's json writes it with every non-ASCII
    character escaped; the key's own letters escaped (``\\u0073k-…``, ``\\/``) too."""
    import json

    plain = orjson.dumps(body)
    ascii_ = json.dumps(body).encode()
    escaped = plain.replace(b"sk-proj", b"\\u0073k-proj").replace(b"tenant-", b"tenant\\u002d")
    return [plain, ascii_, escaped, plain.replace(b"/", b"\\/")]


@pytest.mark.parametrize("body", BODIES)
def test_a_body_redacted_with_its_text_is_the_body_redacted_by_a_walk(body: dict[str, Any]) -> None:
    expected = redact_body(body, SECRETS)
    for text in _encodings(body):
        assert redact_body(orjson.loads(text), SECRETS, text=text) == expected


def test_the_byte_search_never_vouches_for_a_text_it_cannot_read() -> None:
    assert json_text_lacks(b'{"a": "hello"}', [KEY])
    assert not json_text_lacks(orjson.dumps({"a": f"x{KEY}y"}), [KEY])
    assert not json_text_lacks(b'{"a": "\\u0073k-proj-LARGE"}', [KEY])  # an escaped letter
    assert not json_text_lacks(b'{"a": "\\/"}', [KEY])
    assert not json_text_lacks(b'{"a": "x"}', ['a"b'])  # a key JSON must escape
    assert json_text_lacks(b'{"a": "caf\\u00e9"}', [KEY])  # no key letter is escaped so
    big = b'{"a": "' + b"x" * (3 << 20) + KEY.encode() + b'"}'  # past a search step
    assert not json_text_lacks(big, [KEY])


def test_a_redacted_body_is_not_redacted_again_unless_a_new_secret_shows() -> None:
    body = _with(f"key {KEY} and other-secret-1234")
    once = RedactedBody(redact_body(body, SECRETS), SECRETS)
    assert redact_body(once, SECRETS[:1]) is once
    again = redact_body(once, ("other-secret-1234",))
    assert again is not once and "other-secret-1234" not in orjson.dumps(again).decode()


def test_a_large_body_is_written_in_pieces_as_any_body_reads(tmp_path: Path) -> None:
    body = _with([{"type": "text", "text": f"part {i} é 東京 " * 200} for i in range(400)])
    body["messages"].append({"role": "user", "content": f"echo {KEY}"})
    redacted = RedactedBody(redact_body(body, SECRETS), SECRETS, large=True)
    paths = {"pieces": tmp_path / "a.jsonl", "whole": tmp_path / "b.jsonl"}
    for name, path in paths.items():
        with CaptureWriter(path, secrets=[KEY]) as writer:
            sent = redacted if name == "pieces" else body
            writer.request(1, "POST", "http://h/v1/chat/completions",
                           {"Authorization": f"Bearer {KEY}"}, sent)  # fmt: skip
            writer.end(1, 0.5, "eof")
    recorded = {name: load(path).attempts[0].request for name, path in paths.items()}
    assert recorded["pieces"] == recorded["whole"]
    assert recorded["pieces"] is not None and recorded["pieces"]["body"]["messages"][-1] == {
        "role": "user",
        "content": "REDACTED",
    }
    assert KEY.encode() not in paths["pieces"].read_bytes()
