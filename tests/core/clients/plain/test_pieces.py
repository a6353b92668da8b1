"""Every plain reader reads the body in the pieces the judge hands it (``judge.py:
exchange_in_pieces``: an Exchange whose ``body`` is empty, the capture's chunks beside it), never
the empty ``Exchange.body`` in their place: a recorded plain stream of each dialect is still
judged ``plain stream`` through the judge, its reader given exactly the body the replay reads;
and each reader's ``__proto__``/``constructor`` refusal finds a key cut between pieces."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest
from conftest import REAL_FIXTURES

from inspector.core.clients.base import Exchange, HandedCall
from inspector.core.clients.judge import exchange_of, expected_calls, judged_plain
from inspector.core.clients.plain.reading import PLAIN_STREAM, READERS
from inspector.core.providers import ANTHROPIC, GEMINI, OPENAI_CHAT, OPENAI_RESPONSES

from .proof import DECLARING, view_of
from .test_named_plain_equals_replay import DIALECTS, PROTOTYPE

RECORDED = {
    OPENAI_CHAT: "real/gpt-4o-two-tools-usage-chunk.sse",
    OPENAI_RESPONSES: "real/responses-gpt-5-1-function-call.sse",
    ANTHROPIC: "real/anthropic-tool-use.sse",
    GEMINI: "real/gemini-3-function-call.sse",
}
"""A recorded stream of each dialect that is plain, with at least one call."""


def _recorded(name: str) -> bytes:
    path = REAL_FIXTURES.parent / name
    if not path.exists():
        pytest.fail(f"missing shared fixture {path}")
    return path.read_bytes()


def _cut(body: bytes, rng: random.Random, pieces: int) -> list[bytes]:
    """``body`` cut at ``pieces - 1`` random places (empty pieces included)."""
    at = sorted(rng.randrange(len(body) + 1) for _ in range(pieces - 1))
    return [body[a:b] for a, b in zip([0, *at], [*at, len(body)], strict=True)]


def test_every_dialect_with_a_reader_has_a_recorded_plain_stream_here() -> None:
    assert set(RECORDED) == set(READERS)


@pytest.mark.parametrize("dialect", list(RECORDED))
def test_the_judge_gives_each_reader_the_whole_body_and_judges_it_plain(
    dialect: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    view = view_of(_recorded(RECORDED[dialect]), tmp_path, dialect)
    whole = exchange_of(view).body
    expected = expected_calls(view)
    assert whole and expected
    real = READERS[dialect]
    seen: list[bytes] = []

    def spy(
        exchange: Exchange, pieces: Iterable[bytes] | None, arguments: Sequence[str] | None
    ) -> list[HandedCall] | None:
        held = None if pieces is None else list(pieces)
        seen.append(exchange.body if held is None else b"".join(held))
        return real(exchange, held, arguments)

    monkeypatch.setitem(READERS, dialect, spy)
    judged = [judged_plain(r, view, expected, view.failed) for r in DECLARING if dialect in r.plain]
    assert seen == [whole]  # read once, shared by every declaring replica, the whole body
    assert judged and all(r is not None and r.judged == PLAIN_STREAM for r in judged), judged


@pytest.mark.parametrize("dialect", list(RECORDED))
def test_each_reader_reads_the_pieces_as_the_joined_body(dialect: str, tmp_path: Path) -> None:
    """Given pieces, a reader reads them, not the (empty) ``Exchange.body``: the same calls
    as from the joined body, however it is cut."""
    view = view_of(_recorded(RECORDED[dialect]), tmp_path, dialect)
    joined = exchange_of(view)
    empty = dataclasses.replace(joined, body=b"")
    reader = READERS[dialect]
    calls = reader(joined, None, None)
    assert calls, "the recorded stream is plain, with calls"
    rng = random.Random(7)
    for count in (1, 2, 5, 40, len(joined.body)):
        assert reader(empty, _cut(joined.body, rng, count), None) == calls
    assert reader(empty, [], None) is None  # nothing received: not plain


KEYS = [b"__proto__", b"\\u005f_proto__", b"constructor", b"constructo\\u0072"]


@pytest.mark.parametrize("dialect", list(RECORDED))
def test_a_prototype_key_is_refused_however_the_body_is_cut(dialect: str) -> None:
    """Each reader refuses a body holding a ``__proto__``/``constructor`` key (the AI SDK's
    error part) read from pieces cut anywhere, even inside the key or before its colon, and
    reads the same body with another key as plain."""
    body = PROTOTYPE[dialect]
    if body is None:  # a free-form object of the dialect: the response / the message
        made = DIALECTS[dialect][0](random.Random(1))
        field = b'"model":' if dialect == OPENAI_RESPONSES else b'"role":"assistant"'
        body = made.replace(field, b'"KEY"  :{"prototype":1},' + field, 1)
    else:
        body = body.replace(b'"KEY":', b'"KEY" \t:')
    assert b'"KEY"' in body
    empty = Exchange([], b"", dialect=dialect)
    reader = READERS[dialect]
    rng = random.Random(13)
    for count in (1, 2, 3, 9, 60):
        assert reader(empty, _cut(body.replace(b"KEY", b"other"), rng, count), None)
        for key in KEYS:
            assert reader(empty, _cut(body.replace(b"KEY", key), rng, count), None) is None
