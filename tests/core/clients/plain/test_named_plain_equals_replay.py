"""The plain Responses, Anthropic and Gemini readings (``plain/responses.py``,
``plain/anthropic.py``, ``plain/gemini.py``):
judging a client from them gives exactly its replay on generated plain bodies of every
accepted shape, varied bodies and byte-mutated ones; the golden streams of each dialect hold
plain ones (not vacuous), and the streams of items a library hands over its own way (hosted,
custom, server tools) are refused."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest
from fuzz.mutate import mutate

from inspector.core.clients.plain.reading import READERS
from inspector.core.providers import ANTHROPIC, GEMINI, OPENAI_RESPONSES

from .generate_named import (
    anthropic_body,
    gemini_body,
    responses_body,
    varied_anthropic_body,
    varied_gemini_body,
    varied_responses_body,
)
from .proof import judged_both_ways, view_of
from .test_plain_equals_replay import chat_streams, plain_ids

Make = Callable[[random.Random], bytes]
DIALECTS: dict[str, tuple[Make, Make]] = {
    OPENAI_RESPONSES: (responses_body, varied_responses_body),
    ANTHROPIC: (anthropic_body, varied_anthropic_body),
    GEMINI: (gemini_body, varied_gemini_body),
}


def test_each_dialect_has_a_plain_reader() -> None:
    assert set(DIALECTS) <= set(READERS)


@pytest.mark.parametrize("dialect", list(DIALECTS))
def test_generated_plain_bodies_are_plain_and_judged_alike(dialect: str, tmp_path: Path) -> None:
    make = DIALECTS[dialect][0]
    rng = random.Random(40)
    for _ in range(30):
        assert judged_both_ways(view_of(make(rng), tmp_path, dialect))


@pytest.mark.parametrize("dialect", list(DIALECTS))
def test_varied_bodies_are_judged_alike_whenever_plain(dialect: str, tmp_path: Path) -> None:
    make = DIALECTS[dialect][1]
    rng = random.Random(41)
    runs, plain = 160, 0
    for _ in range(runs):
        plain += judged_both_ways(view_of(make(rng), tmp_path, dialect))
    assert 0 < plain < runs


@pytest.mark.parametrize("dialect", list(DIALECTS))
def test_mutated_bodies_are_judged_alike_whenever_plain(dialect: str, tmp_path: Path) -> None:
    make = DIALECTS[dialect][0]
    corpus = [make(random.Random(k)) for k in range(6)]
    corpus += [
        s.source.body
        for s in chat_streams()
        if s.id in plain_ids() and s.view.state.dialect_name == dialect and s.source.body
    ]
    rng = random.Random(42)
    runs, plain = 150, 0
    for _ in range(runs):
        plain += judged_both_ways(view_of(mutate(corpus, rng), tmp_path, dialect))
    assert 0 < plain < runs


@pytest.mark.parametrize(
    ("dialect", "least"),
    [(OPENAI_RESPONSES, 10), (ANTHROPIC, 10), (GEMINI, 8)],
)
def test_golden_streams_of_each_dialect_are_plain_and_recorded_ones_among_them(
    dialect: str, least: int
) -> None:
    ids = [i for i in plain_ids() if any(
        s.id == i and s.view.state.dialect_name == dialect for s in chat_streams()
    )]  # fmt: skip
    assert len(ids) >= least, ids
    assert any(i.startswith(("real/", "realworld/")) for i in ids), ids


@pytest.mark.parametrize(
    "stream_id",
    [
        "realworld/openai-responses/openai-custom-tool.1",  # a free-form input
        "realworld/openai-responses/openai-web-search-tool.1",  # a hosted item
        "realworld/openai-responses/openai-error.1",  # an error event
        "realworld/anthropic/anthropic-web-search-tool.1",  # a server tool
        "realworld/anthropic/anthropic-mcp.1",  # an MCP tool
        "realworld/anthropic/duplicate-message-start",  # read differently by the AI SDK
        "realworld/google-gemini/google-stream-tool-call-arguments",  # streamed partialArgs
    ],
)
def test_items_each_library_hands_over_its_own_way_are_refused(stream_id: str) -> None:
    assert stream_id in {s.id for s in chat_streams()}
    assert stream_id not in plain_ids()


@pytest.mark.slow
@pytest.mark.parametrize("dialect", list(DIALECTS))
def test_a_long_sweep_of_varied_and_mutated_bodies_is_judged_alike(
    dialect: str, tmp_path: Path
) -> None:
    """The sweep run once while writing the predicates (3,000 bodies a dialect), kept behind
    ``-m slow``."""
    plain_body, varied = DIALECTS[dialect]
    corpus = [plain_body(random.Random(k)) for k in range(10)]
    rng = random.Random(7)
    plain = 0
    for _ in range(1500):
        plain += judged_both_ways(view_of(varied(rng), tmp_path, dialect))
        plain += judged_both_ways(view_of(mutate(corpus, rng), tmp_path, dialect))
    assert 0 < plain < 3000


@pytest.mark.parametrize("number", [b"-9223372036854775809", b"18446744073709551616", b"1e19"])
def test_a_gemini_number_orjson_reads_otherwise_is_refused(number: bytes, tmp_path: Path) -> None:
    """Found by the long sweep: orjson reads an integer past 64 bits as a float, which the
    inspector writes ``-9.223372036854776e+18`` where google-genai writes the integer."""
    body = (
        b'data: {"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{"n":'
        + number
        + b'}}}],"role":"model"},"finishReason":"STOP"}]}\n\n'
    )
    plain = b'data: {"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{"n":1}}}],"role":"model"},"finishReason":"STOP"}]}\n\n'  # noqa: E501
    assert judged_both_ways(view_of(plain, tmp_path, GEMINI))
    assert not judged_both_ways(view_of(body, tmp_path, GEMINI))


PROTOTYPE = {
    "openai-chat": (
        b'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{'
        b'"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":'
        b'"function","function":{"name":"f","arguments":"{\\"a\\":1}"}}]},"logprobs":null,'
        b'"finish_reason":"tool_calls"}],"usage":{"KEY":1}}\n\ndata: [DONE]\n\n'
    ),
    OPENAI_RESPONSES: None,
    ANTHROPIC: None,
    GEMINI: (
        b'data: {"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{"KEY":'
        b'{"prototype":1}}}}],"role":"model"},"finishReason":"STOP"}]}\n\n'
    ),
}


@pytest.mark.parametrize("dialect", list(PROTOTYPE))
@pytest.mark.parametrize("key", [b"__proto__", b"\\u005f_proto__", b"constructor"])
def test_a_prototype_key_anywhere_is_refused(dialect: str, key: bytes, tmp_path: Path) -> None:
    """The AI SDK's secure-json-parse makes an event with a ``__proto__`` key (or a
    ``constructor.prototype``) an error part, wherever it is: found in a usage object, which
    the chat predicate reads as any counts, when the proof was extended to it."""
    body = PROTOTYPE[dialect]
    if body is None:  # a free-form object of the dialect: the response / the message
        made = DIALECTS[dialect][0](random.Random(1))
        field = b'"model":' if dialect == OPENAI_RESPONSES else b'"role":"assistant"'
        body = made.replace(field, b'"KEY":{"prototype":1},' + field, 1)
        assert body != made
    clean = body.replace(b'"KEY"', b'"other"')
    assert judged_both_ways(view_of(clean, tmp_path, dialect))
    assert not judged_both_ways(view_of(body.replace(b"KEY", key), tmp_path, dialect))
