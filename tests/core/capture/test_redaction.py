"""The redaction rule (inspector/core/capture/redaction.py): every credential name, URL
user-info and the key itself are redacted; the allowlist is kept; the key check compares whole
values, never substrings."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from inspector.core.capture.format import REDACTED
from inspector.core.capture.reader import load
from inspector.core.capture.redaction import (
    is_secret_name,
    key_exposure,
    mask_secrets,
    redact_headers,
    redact_json,
    redact_meta,
    redact_url,
)
from inspector.core.capture.writer import CaptureWriter

CANARY = "tci-canary-9f3Kq2"

SECRET_HEADERS = [
    # the names found stored verbatim before the rule (issue 12)
    "Helicone-Auth", "X-Auth-Key", "X-Auth", "X-Access-Key", "X-Forwarded-Authorization",
    "X-Bearer",
    # one per word of the rule, and the names redacted before it
    "Authorization", "Proxy-Authorization", "X-API-Key", "api-key", "x-goog-api-key",
    "Ocp-Apim-Subscription-Key", "X-Amz-Security-Token", "X-Client-Secret", "X-Amz-Signature",
    "X-Session-Id", "Mcp-Session-Id", "Cookie", "Set-Cookie", "X-Password", "X-Amz-Credential",
]  # fmt: skip
KEPT_HEADERS = [
    "x-ratelimit-remaining-tokens", "X-RateLimit-Limit-Requests",
    "anthropic-ratelimit-input-tokens-remaining", "Idempotency-Key", "X-Idempotency-Key",
    "WWW-Authenticate", "Content-Type", "Accept", "x-demo-chunk-delay", "User-Agent",
]  # fmt: skip
SECRET_PARAMS = [
    "x-goog-api-key", "auth", "access_key", "key", "api_key", "API-KEY", "apikey", "token",
    "access_token", "refresh_token", "id_token", "client_secret", "signature", "X-Amz-Signature",
    "X-Amz-Credential", "session_id", "password", "sig", "bearer", "cookie",
]  # fmt: skip
KEPT_PARAMS = ["alt", "page", "model", "stream", "x-ratelimit-window", "idempotency-key"]


@pytest.mark.parametrize("name", SECRET_HEADERS)
def test_every_secret_header_name_is_redacted(name: str) -> None:
    assert is_secret_name(name)
    assert redact_headers([(name, CANARY), ("Accept", "*/*")]) == {
        name: REDACTED,
        "Accept": "*/*",
    }


@pytest.mark.parametrize("name", KEPT_HEADERS)
def test_allowlisted_and_plain_header_names_are_kept(name: str) -> None:
    assert not is_secret_name(name)
    assert redact_headers({name: "42"}) == {name: "42"}


@pytest.mark.parametrize("name", SECRET_PARAMS)
def test_every_secret_query_parameter_is_redacted(name: str) -> None:
    url = f"https://h/v1/models/m:stream?alt=sse&{name}={CANARY}#{name}={CANARY}"
    assert (
        redact_url(url) == f"https://h/v1/models/m:stream?alt=sse&{name}=REDACTED#{name}=REDACTED"
    )


@pytest.mark.parametrize("name", KEPT_PARAMS)
def test_plain_query_parameters_are_kept(name: str) -> None:
    url = f"https://h/p?{name}=1&x=%20y"
    assert redact_url(url) == url


def test_a_percent_encoded_parameter_name_is_decoded_first() -> None:
    assert redact_url(f"https://h/p?api%5Fkey={CANARY}") == "https://h/p?api%5Fkey=REDACTED"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (f"https://user:{CANARY}@h/p", "https://REDACTED@h/p"),
        (f"https://{CANARY}@h:8080/p?alt=sse", "https://REDACTED@h:8080/p?alt=sse"),
    ],
)
def test_url_user_info_is_redacted(url: str, expected: str) -> None:
    assert redact_url(url) == expected


def test_the_key_in_a_header_whose_name_does_not_match() -> None:
    got = redact_headers(
        [
            ("X-Custom", CANARY),
            ("X-Forwarded", f"Bearer {CANARY}"),
            ("X-Pair", f"a=1; k={CANARY}"),
            ("X-Longer", f"{CANARY}-suffix"),  # a long key is found anywhere (issue 25)
            ("Accept", "*/*"),
        ],
        secrets=[CANARY],
    )
    assert got == {
        "X-Custom": REDACTED,
        "X-Forwarded": REDACTED,
        "X-Pair": REDACTED,
        "X-Longer": REDACTED,
        "Accept": "*/*",
    }


def test_the_key_in_a_url_whose_names_do_not_match() -> None:
    url = f"https://h/bot{CANARY}/{CANARY}/chat?q={CANARY}&p=1&{CANARY}#v={CANARY}"
    assert redact_url(url, [CANARY]) == (
        "https://h/botREDACTED/REDACTED/chat?q=REDACTED&p=1&REDACTED#v=REDACTED"
    )


def test_a_short_key_is_compared_whole_never_as_a_substring() -> None:
    headers = {"x-demo-chunk-delay": "0", "Accept": "text/event-stream", "X-Only": "x"}
    assert redact_headers(headers, ["x"]) == {**headers, "X-Only": REDACTED}
    url = "http://127.0.0.1:8765/v1/chat/completions?x-mode=xx&user=x"
    assert (
        redact_url(url, ["x"])
        == "http://127.0.0.1:8765/v1/chat/completions?x-mode=xx&user=REDACTED"
    )
    assert key_exposure(url.split("?")[0], headers | {"X-Only": "y"}, "x") is None


@pytest.mark.parametrize(
    ("url", "headers", "where"),
    [
        ("http://h/p", {"X-Extra": "Bearer user"}, "header 'X-Extra'"),
        ("http://h/p", {"X-Extra": "user"}, "header 'X-Extra'"),
        ("http://h/p?a=1&k=user", {}, "URL parameter 'k'"),
        ("http://h/p#user", {}, "the URL"),
        ("http://h/user/p?role=users", {"X-Role": "superuser"}, None),
    ],
)
def test_key_exposure_compares_whole_values(
    url: str, headers: dict[str, str], where: str | None
) -> None:
    assert key_exposure(url, headers, "user") == where
    assert key_exposure(url, headers, None) is None


def test_the_writer_redacts_its_secrets_in_every_record(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    with CaptureWriter(path, meta={"dialect": "openai-chat"}, secrets=[CANARY]) as w:
        w.request(
            1,
            "POST",
            f"https://h/p?q={CANARY}&auth=a1",
            {"Authorization": f"Bearer {CANARY}", "X-Echo": CANARY, "Helicone-Auth": "h1"},
            {"model": "m"},
        )
        w.response(1, 200, [("X-Echo-Back", CANARY), ("x-request-id", "r1")], 0.1)
        w.end(1, 0.2, "eof")
    raw = path.read_text("utf-8")
    assert CANARY not in raw and "a1" not in raw and "h1" not in raw
    (att,) = load(path).attempts
    assert att.request is not None and att.response is not None
    assert att.request["url"] == "https://h/p?q=REDACTED&auth=REDACTED"
    assert set(att.request["headers"].values()) == {REDACTED}
    assert att.response["headers"] == {"X-Echo-Back": REDACTED, "x-request-id": "r1"}
    assert orjson.loads(raw.splitlines()[0])["meta"] == {"dialect": "openai-chat"}


def test_the_key_is_masked_in_the_end_records_error_text(tmp_path: Path) -> None:

    path = tmp_path / "c.jsonl"
    with CaptureWriter(path, meta={}, secrets=["x"]) as writer:
        writer.end(1, 0.1, "error", "HTTP 401: invalid key x (expected a real one)")
    text = path.read_text()
    assert "invalid key REDACTED (expected a real one)" in text


def test_the_key_in_a_path_segment_is_masked_as_a_whole_token() -> None:
    url = f"https://h/v1beta/models/{CANARY}:streamGenerateContent?alt=sse"
    assert redact_url(url, [CANARY]) == (
        "https://h/v1beta/models/REDACTED:streamGenerateContent?alt=sse"
    )
    assert redact_url("https://x/x-ray/xml?q=1", ["x"]) == "https://x/x-ray/xml?q=1"


def test_semicolon_separated_query_parameters_are_redacted() -> None:
    assert redact_url("https://h/p?a=1;key=S;b=2") == "https://h/p?a=1;key=REDACTED;b=2"
    assert redact_url(f"https://h/p?a=1;k={CANARY}", [CANARY]) == "https://h/p?a=1;k=REDACTED"
    assert key_exposure(f"https://h/p?a=1;k={CANARY}", {}, CANARY) == "URL parameter 'k'"


def test_redact_json_replaces_strings_holding_the_key_at_any_depth() -> None:
    body: dict[str, object] = {"user": CANARY, "n": 3, "tags": ["Paris", f"Bearer {CANARY}"]}
    deep: object = [CANARY]
    for _ in range(5000):  # deeper than Python's recursion limit
        deep = {"d": deep}
    body["deep"] = deep
    got = redact_json(body, [CANARY])
    assert got["user"] == REDACTED and got["n"] == 3 and got["tags"] == ["Paris", REDACTED]
    inner = got["deep"]
    for _ in range(5000):
        inner = inner["d"]
    assert inner == [REDACTED]
    assert body["user"] == CANARY  # the caller's body (reused for a retry) is unchanged
    short = {"a": "x", "b": "xml", "c": "x-ray", "d": "a x b", "e": "x/y"}
    assert redact_json(short, ["x"]) == {
        "a": REDACTED, "b": "xml", "c": "x-ray", "d": REDACTED, "e": REDACTED,
    }  # fmt: skip
    assert redact_json(body, []) is body


def test_redact_meta_keeps_a_host_that_spells_the_key() -> None:
    meta = {"model": "x", "url": "http://x/v1/models/x:go", "dialect": "gemini"}
    assert redact_meta(meta, ["x"]) == {
        "model": REDACTED,
        "url": "http://x/v1/models/REDACTED:go",
        "dialect": "gemini",
    }


def test_mask_secrets_ends_a_token_at_a_slash() -> None:
    text = f"HTTP 404 from https://h/models/{CANARY}:stream?alt=sse"
    assert mask_secrets(text, [CANARY]) == "HTTP 404 from https://h/models/REDACTED:stream?alt=sse"


def test_the_writer_redacts_the_key_in_request_bodies(tmp_path: Path) -> None:
    path = tmp_path / "b.jsonl"
    with CaptureWriter(path, meta={"model": CANARY}, secrets=[CANARY]) as w:
        w.request(1, "POST", "https://h/p", {}, {"user": CANARY, "m": {"k": [CANARY, "ok"]}})
        w.request(2, "POST", "https://h/p", {}, f"plain text with {CANARY} in it")
        w.request(3, "POST", "https://h/p", {}, f'{{"user": "{CANARY}"}}'.encode())
    raw = path.read_text("utf-8")
    assert CANARY not in raw
    first, second, third = (a.request for a in load(path).attempts)
    assert first is not None and second is not None and third is not None
    assert first["body"] == {"user": REDACTED, "m": {"k": [REDACTED, "ok"]}}
    assert second["body"] == "plain text with REDACTED in it"
    assert third["body"] == {"user": REDACTED}
    assert orjson.loads(raw.splitlines()[0])["meta"] == {"model": REDACTED}
