"""The plain Chat Completions reading skips the decode of a continuation chunk equal to the
last one but for its argument text; these bodies try to make that shortcut read a text that
is not the chunk's value (a key written twice, a key spelled with an escape, spaces around the
colon, a cut escape, an unescaped quote in the text): each gives the calls a full decode of
every chunk gives, or is refused, and the replicas agree with it whenever it is plain."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from inspector.core.clients.base import Exchange
from inspector.core.clients.plain.chat import chat_calls

from .proof import judged_both_ways, view_of

HEAD = b'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,'  # noqa: E501
TAIL = b'}]},"logprobs":null,"finish_reason":null}]}\n\n'
FIRST = HEAD + b'"id":"call_1","type":"function","function":{"name":"f","arguments":""}' + TAIL
END = (
    b'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index"'
    b':0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n'
)


def body(*functions: bytes) -> bytes:
    """A body whose continuation entries hold these ``function`` objects (raw JSON)."""
    return FIRST + b"".join(HEAD + b'"function":' + f + TAIL for f in functions) + END


def decoded(data: bytes) -> str:
    """The call's arguments as a full decode of every chunk reads them."""
    text = ""
    for part in data.split(b"\n\n"):
        if part.startswith(b"data: {"):
            for choice in orjson.loads(part[6:])["choices"]:
                for entry in choice["delta"].get("tool_calls") or []:  # null: none
                    text += entry["function"]["arguments"]
    return text


def reading(data: bytes) -> str | None:
    calls = chat_calls(Exchange([], data, dialect="openai-chat"))
    return None if calls is None else "".join(c.arguments for c in calls)


CASES = {
    "plain": body(b'{"arguments":"{\\"a\\""}', b'{"arguments":": 1"}', b'{"arguments":"}"}'),
    "a key twice, the first read": body(
        b'{"arguments":"{\\"a\\""}',
        b'{"arguments":"x","arguments":": 1"}',
        b'{"arguments":"y","arguments":"}"}',
    ),
    "a key twice, the last read": body(
        b'{"arguments":"{\\"a\\""}',
        b'{"arguments":": 1","arguments":": 1"}',
        b'{"arguments":"}","arguments":": 1"}',
    ),
    "a key spelled with an escape": body(
        b'{"arguments":"{\\"a\\""}',
        b'{"arguments":"x","\\u0061rguments":": 1"}',
        b'{"arguments":"y","\\u0061rguments":"}"}',
    ),
    "spaces around the colon": body(
        b'{"arguments" : "{\\"a\\""}', b'{"arguments" : ": 1"}', b'{"arguments" : "}"}'
    ),
    "an escaped quote and backslashes": body(
        b'{"arguments":"{\\"a\\\\\\\\\\""}',
        b'{"arguments":": \\"\\\\\\\\\\""}',
        b'{"arguments":"}"}',
    ),
    "an unescaped quote": body(
        b'{"arguments":"{\\"a\\""}', b'{"arguments":": 1"}', b'{"arguments":"1"x"}'
    ),
    "a cut escape": body(
        b'{"arguments":"{\\"a\\""}', b'{"arguments":": 1"}', b'{"arguments":"\\"}'
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_shortcut_reads_what_a_full_decode_reads_or_refuses(name: str, tmp_path: Path) -> None:
    data = CASES[name]
    got = reading(data)
    if got is not None:
        assert got == decoded(data)
        assert judged_both_ways(view_of(data, tmp_path))


def test_the_plain_case_is_read_plain() -> None:
    assert reading(CASES["plain"]) == '{"a": 1}'
