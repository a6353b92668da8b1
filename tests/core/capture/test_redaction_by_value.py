"""Issue 25: the one redaction rule by value as well as by name (core/capture/redaction.py)."""

from __future__ import annotations

import pytest

from inspector.core.capture.credentials import SHAPES, holds_shape
from inspector.core.capture.redaction import (
    body_keys,
    find_keys,
    mask_body,
    mask_secrets,
    redact_body,
    redact_headers,
    redact_url,
)

KEY = "sk-proj-CANARYa1b2c3d4e5f6g7h8i9j0"


@pytest.mark.parametrize(
    "text",
    [
        f"Incorrect API key provided: {KEY}.",  # OpenAI's own wording: a full stop after it
        f"key={KEY}\nnext line",
        f"{KEY}",
        f'"{KEY}"',
        repr(f"x\n{KEY}\ny"),  # an escape before and after it, as a repr shows them
        f"prefix{KEY}suffix",  # a long key is found anywhere
        f"{KEY[:10]}{KEY[10:]})",
    ],
)
def test_the_session_key_is_masked_at_any_boundary(text: str) -> None:
    out = mask_secrets(text, [KEY])
    assert KEY not in out and "REDACTED" in out


def test_a_short_key_is_still_a_word_and_never_a_substring() -> None:
    assert mask_secrets("x-demo xml x.", ["x"]) == "x-demo xml REDACTED."
    assert mask_secrets("demo.example.com demo", ["demo"]) == "demo.example.com REDACTED"


@pytest.mark.parametrize(
    "value",
    [
        "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv012345",
        "sk-proj-AbCdEfGhIjKlMnOpQrStUv012345",
        "sk-live-CANARYtenant0123456789",
        "AIzaSyA1234567890abcdefghijklmnopqrstuv",
        "AKIAIOSFODNN7EXAMPLE",
        "ASIAIOSFODNN7EXAMPLE",
        "xai-AbCdEfGhIjKlMnOpQrStUvWx",
        "gsk_AbCdEfGhIjKlMnOpQrStUvWx",
        "hf_AbCdEfGhIjKlMnOpQrStUvWx",
        "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
        "xoxb-1234567890-abcdefghij",
    ],
)
def test_credential_shapes_are_masked_whatever_their_name(value: str) -> None:
    assert holds_shape(value)
    assert redact_headers({"X-Tenant": f"caller={value}."}) == {"X-Tenant": "REDACTED"}
    assert value not in redact_url(f"http://h/v1?tenant={value}")
    assert mask_secrets(f"echo: {value}.") == "echo: REDACTED."


@pytest.mark.parametrize(
    "word", ["sk-learn", "task-0123456789abcdefghij", "ask-me-anything-about-it", "hf_hub", "gh"]
)
def test_ordinary_words_are_no_credential(word: str) -> None:
    assert not holds_shape(word) and mask_secrets(word) == word


def test_every_listed_shape_is_a_pattern() -> None:
    assert len(SHAPES) >= 12 and all(isinstance(p, str) and p for p in SHAPES.values())


def test_body_credential_fields_are_redacted_by_name_but_not_inside_the_content() -> None:
    tools = [{"type": "function", "function": {"name": "login", "parameters": {
        "type": "object", "properties": {"token": {"type": "string"}, "api_key": {}}}}},
    ]  # fmt: skip
    body = {
        "model": "gpt-4o",
        "api_key": "plain-value-no-shape",
        "apiKey": "v2",
        "metadata": {"token": "t0k", "note": "sk-live-CANARYtenant0123456789"},
        "max_tokens": 10,
        "budget_tokens": 5,
        "prompt_cache_key": "cache-me",
        "tools": tools,
        "messages": [{"role": "user", "content": "my key is sk-live-CANARYtenant0123456789"}],
    }
    out = redact_body(body, [])
    assert out["api_key"] == out["apiKey"] == "REDACTED"
    assert out["metadata"] == {"token": "REDACTED", "note": "REDACTED"}
    assert (out["max_tokens"], out["budget_tokens"], out["prompt_cache_key"]) == (10, 5, "cache-me")
    assert out["tools"] == tools  # a parameter named token stays: it is the tool under test
    assert out["messages"] == body["messages"]  # content: only the session's key by value
    assert redact_body(body, ["CANARYtenant0123456789"])["messages"][0]["content"] == "REDACTED"
    assert body["api_key"] == "plain-value-no-shape"  # the original is never changed


def test_a_response_body_is_masked_by_stars_of_the_same_length() -> None:
    data = f'data: {{"content": "{KEY}."}}\n\ndata: {KEY}'.encode()
    masked, spans = mask_body(data, [KEY, "short"])
    assert len(masked) == len(data) and KEY.encode() not in masked
    assert spans == find_keys(data, body_keys([KEY])) and len(spans) == 2
    for start, end in spans:
        assert masked[start:end] == b"*" * len(KEY) and data[start:end] == KEY.encode()
    assert mask_body(b"short words stay", ["short"]) == (b"short words stay", [])


def test_a_whole_header_value_masks_only_the_key_in_a_body() -> None:
    data = f'"content": "key {KEY}."'.encode()
    masked, _ = mask_body(data, [f"Bearer {KEY}", KEY])
    assert masked == f'"content": "key {"*" * len(KEY)}."'.encode()


def test_a_key_in_an_object_member_name_is_masked_too() -> None:
    """``make fuzz`` (issue 25's round trip): a JSON body whose member *name* held the key
    was written with it."""
    body = {f"{KEY}type": 1, "metadata": {KEY: 2, "REDACTEDx": 3}, "tools": [{KEY: "v"}]}
    out = redact_body(body, [KEY])
    assert KEY not in repr(out)
    assert out["REDACTEDtype"] == 1 and out["tools"] == [{"REDACTED": "v"}]
    assert sorted(out["metadata"].values()) == [2, 3]  # no member lost
