"""The plain Chat Completions reading gives the same calls (or the same refusal) however it
reads the body: every event alone over the joined body, or runs of continuation chunks a slab
at a time, from the body's pieces as received (cut anywhere, even inside an escape, a UTF-8
character or the closing ``[DONE]``), a window of them at a time, with or without the
inspector's calls to compare as each call completes. Bodies: generated plain and varied
ones, byte-mutated ones, and long runs with one hostile text somewhere in them (an unescaped
quote, a cut escape, a surrogate pair cut between two chunks, a raw newline or control
character, bytes that are not UTF-8, a blank line, another chunk's shape, a CR)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import orjson
import pytest
from fuzz.mutate import mutate

from inspector.core.clients.base import Exchange, HandedCall
from inspector.core.clients.plain.chat import SLAB, WINDOW, chat_calls

from .generate import plain_body, varied_body
from .test_chat_template import END, FIRST, HEAD, TAIL, decoded

Reading = list[tuple[str | None, str | None, str]] | None


def reading(body: bytes, **how: object) -> Reading:
    """The calls as (id, name, arguments), None when refused."""
    calls = chat_calls(Exchange([], body, dialect="openai-chat"), **how)  # type: ignore[arg-type]
    return _plain(calls)


def _plain(calls: list[HandedCall] | None) -> Reading:
    return None if calls is None else [(c.id, c.name, c.arguments) for c in calls]


def one_by_one(body: bytes) -> Reading:
    """The reference: every event read alone over the whole body (no run, no window)."""
    return reading(body, slab=0, window=len(body) + 1)


def cut(body: bytes, rng: random.Random) -> list[bytes]:
    """``body`` in pieces cut at random places (some empty, some a byte long)."""
    out, pos = [], 0
    while pos < len(body):
        step = rng.choice((0, 1, 2, 5, 17, 64, 300, 4096))
        out.append(body[pos : pos + step])
        pos += step
    return out


def every_way(body: bytes, rng: random.Random) -> Iterator[tuple[str, Reading]]:
    """The readings of ``body`` each way the module docstring lists."""
    for slab in (1, 7, 64, 300, SLAB):
        yield f"slab {slab}", reading(body, slab=slab)
    for window in (1, 5, 40, 333, WINDOW):
        pieces = cut(body, rng)
        calls = chat_calls(
            Exchange([], b"", dialect="openai-chat"), iter(pieces), slab=rng.choice((7, SLAB)),
            window=window,
        )  # fmt: skip
        yield f"pieces, window {window}", _plain(calls)


def check(body: bytes, rng: random.Random) -> Reading:
    """Every way reads ``body`` as the reference does; the reference's reading."""
    want = one_by_one(body)
    for how, got in every_way(body, rng):
        assert got == want, how
    if want is not None:  # given the inspector's calls (here: the reading's own), the same
        texts = [args for _, _, args in want]
        assert reading(body, expected=texts) == want
        assert want == [] or reading(body, expected=[*texts[:-1], texts[-1] + " "]) is None
        assert "".join(texts) == decoded(body)  # what a full decode of every chunk reads
    return want


def test_generated_plain_bodies_read_alike_every_way() -> None:
    rng = random.Random(7)
    plain = [check(plain_body(random.Random(seed)), rng) for seed in range(40)]
    assert all(p is not None for p in plain)


def test_varied_and_mutated_bodies_read_alike_every_way() -> None:
    rng = random.Random(8)
    corpus = [plain_body(random.Random(k)) for k in range(6)]
    made = random.Random(31)  # the proof tests' own sequence of varied bodies
    readings = [check(varied_body(made), rng) for _ in range(80)]
    readings += [check(mutate(corpus, rng), rng) for _ in range(150)]
    refused = sum(r is None for r in readings)
    assert 0 < refused < len(readings)


PROSE = 'Die Straße, naïve café, 日本語, 🚀, a "quoted" word, C:\\path, tab\there.\n'


def arguments(repeat: int) -> str:
    """A call's arguments as the bench's captures hold them (JSON in JSON: dense escapes)."""
    return json.dumps({"path": "notes/a.md", "content": PROSE * repeat}, ensure_ascii=False)


def run_body(texts: list[bytes]) -> bytes:
    """A call whose continuation chunks hold these raw argument texts (JSON string bodies,
    as on the wire), after the call's first chunk."""
    return (
        FIRST
        + b"".join(HEAD + b'"function":{"arguments":"' + t + b'"}' + TAIL for t in texts)
        + END
    )


def fragments(text: str, size: int) -> list[bytes]:
    """``text`` in ``size``-character fragments, each written as a JSON string body alone."""
    return [orjson.dumps(text[k : k + size])[1:-1] for k in range(0, len(text), size)]


HOSTILE = {
    "an unescaped quote": b'a"b',
    "an unescaped quote that makes more JSON": b'a","x":"y',
    "a cut escape": b"ab\\",
    "a cut unicode escape": b"\\u00",
    "a surrogate pair cut in two": b"\\ud83d",
    "a raw newline": b"a\nb",
    "a raw tab": b"a\tb",
    "bytes that are not UTF-8": b"a\xffb",
    "a blank line": b"a\n\nb",
    "a CR": b"a\rb",
    "an escaped quote then an unescaped one": b'\\\\"x',
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_text_inside_a_long_run_reads_as_alone(name: str) -> None:
    rng = random.Random(name)
    text = arguments(40)
    for size in (1, 3, 38):
        texts = fragments(text, size)
        at = rng.randrange(len(texts))
        hostile = [*texts[:at], HOSTILE[name], *texts[at:]]
        if name == "a surrogate pair cut in two":
            hostile = [*texts[:at], b"\\ud83d", b"\\ude80", *texts[at:]]
        check(hostile_body := run_body(hostile), rng)
        assert one_by_one(hostile_body) is None  # a plain reading never takes it
        check(run_body(texts), rng)
        assert one_by_one(run_body(texts)) is not None


def test_another_chunk_shape_inside_a_run_is_read_the_long_way() -> None:
    rng = random.Random(3)
    texts = fragments(arguments(30), 11)
    body = run_body(texts)
    at = body.index(HEAD, len(body) // 2)
    padded = HEAD.replace(b'"created":1,', b'"created":1,"obfuscation":"xyz",')
    changed = body[:at] + padded + body[at + len(HEAD) :]
    want = check(changed, rng)
    assert want is not None and want[0][2] == arguments(30)


def test_a_body_without_its_end_or_with_the_end_cut_is_refused_every_way() -> None:
    rng = random.Random(4)
    body = run_body(fragments(arguments(5), 7))
    for end in (len(body) - 1, len(body) - len(END) + 3, len(body) - 20):
        assert check(body[:end], rng) is None
    assert check(body + b"\n", rng) is None


def test_a_slab_may_end_anywhere_in_an_event() -> None:
    texts = fragments(arguments(3), 5)
    body = run_body(texts)
    # one continuation of the same head and text but another tail (a field after choices)
    other = TAIL.replace(b"]}\n\n", b'],"system_fingerprint":"fp"}\n\n')
    at = body.index(HEAD, len(FIRST) + 3 * len(HEAD))
    end = body.index(TAIL, at)
    varied = body[:end] + other + body[end + len(TAIL) :]
    for data in (body, varied):
        want = one_by_one(data)
        assert want is not None
        for slab in range(1, 4 * len(HEAD + TAIL)):  # every place a slab can end in one
            assert reading(data, slab=slab) == want, slab
