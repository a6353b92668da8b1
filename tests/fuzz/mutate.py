"""Byte-level mutation of real streams and captures: the other half of the fuzz inputs.

A mutation is a pure function of a corpus, a ``random.Random`` and nothing else, so a seed
names an input exactly (the runner and the smoke test re-create any input from its seed).

The operators: flip bits or bytes, insert bytes (random, or tokens that matter to the
decoders: ``data:``, blank lines, brackets, ``[DONE]``), delete a range, splice in a piece of
another corpus file, duplicate or drop lines, truncate, and swap a JSON value for one of
another type (``"index":0`` becomes ``"index":[0]``, raw or escaped inside a capture's chunk
text): the last one reaches the dialects' field handling, which random bytes mostly cannot
(they break the JSON first).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

CORPUS_PREFIX: Final = 48 * 1024
"""Bytes kept of a long corpus file (cut at a line end): a mutation must stay cheap to run."""

TOKENS: Final = (
    b"data: ", b"\n\n", b"\n", b"\r\n", b"event: ", b": ping\n\n", b"data: [DONE]\n\n", b"{",
    b"}", b"[", b"]", b'"', b"\\", b",", b":", b"null", b"\xff", b"\xe2\x82", b"id: 7\n",
    b"retry: x\n", b'data: {"choices":[]}\n\n', b"\x00",
)  # fmt: skip
"""Byte strings worth inserting: SSE framing, JSON punctuation, bad UTF-8."""

ODD_VALUES: Final = (
    b"[]", b"[0]", b"[1,2]", b"{}", b"[{}]", b"[[]]", b"null", b"true", b"false", b"-1", b"1.5",
    b"0", b"7", b"1e400", b"18446744073709551616", b"-9223372036854775809",
)  # fmt: skip
"""JSON values of every type that need no quoting, so they fit raw and escaped JSON alike."""

_VALUE = re.compile(
    rb'(\\?"[A-Za-z_][A-Za-z_0-9]*\\?":\s*)'
    rb'(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null|\\"[^"\\]*\\"|"[^"\\]*")'
)
"""A key and its scalar value, in plain JSON or in JSON escaped inside a JSON string."""


def load_corpus(paths: Sequence[Path]) -> list[bytes]:
    """The files' bytes, each cut to ``CORPUS_PREFIX`` at a line end."""
    out = []
    for path in paths:
        data = path.read_bytes()
        if len(data) > CORPUS_PREFIX:
            data = data[: data.rfind(b"\n", 0, CORPUS_PREFIX) + 1]
        out.append(data)
    return out


def _flip(data: bytearray, rng: random.Random, corpus: Sequence[bytes]) -> None:
    for _ in range(rng.randint(1, 4)):
        if data:
            i = rng.randrange(len(data))
            data[i] = (
                rng.randrange(256) if rng.random() < 0.5 else data[i] ^ (1 << rng.randrange(8))
            )


def _insert(data: bytearray, rng: random.Random, corpus: Sequence[bytes]) -> None:
    i = rng.randint(0, len(data))
    piece = rng.choice(TOKENS) if rng.random() < 0.7 else rng.randbytes(rng.randint(1, 8))
    data[i:i] = piece


def _delete(data: bytearray, rng: random.Random, corpus: Sequence[bytes]) -> None:
    if data:
        i = rng.randrange(len(data))
        del data[i : i + rng.choice((1, 1, 2, 8, 64, 512))]


def _splice(data: bytearray, rng: random.Random, corpus: Sequence[bytes]) -> None:
    other = rng.choice(corpus)
    if other:
        a = rng.randrange(len(other))
        piece = other[a : a + rng.randint(1, 2048)]
        i = rng.randint(0, len(data))
        data[i : i + rng.choice((0, 0, len(piece)))] = piece


def _lines(data: bytearray, rng: random.Random, corpus: Sequence[bytes]) -> None:
    lines = bytes(data).split(b"\n")
    if len(lines) < 2:
        return
    i = rng.randrange(len(lines))
    roll = rng.random()
    if roll < 0.5:
        lines.insert(rng.randrange(len(lines)), lines[i])  # duplicate a line elsewhere
    elif roll < 0.8:
        del lines[i]
    else:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    data[:] = b"\n".join(lines)


def _truncate(data: bytearray, rng: random.Random, corpus: Sequence[bytes]) -> None:
    if data:
        del data[rng.randrange(len(data)) :]


def _swap_value(data: bytearray, rng: random.Random, corpus: Sequence[bytes]) -> None:
    """One JSON value becomes a value of another type (raw JSON or escaped in a chunk)."""
    found = list(_VALUE.finditer(data))
    if not found:
        return _flip(data, rng, corpus)
    for _ in range(rng.choice((1, 1, 2, 4))):
        m = rng.choice(found)
        data[m.start(2) : m.end(2)] = rng.choice(ODD_VALUES)
        found = list(_VALUE.finditer(data))
        if not found:
            break
    return None


Mutator = Callable[[bytearray, random.Random, Sequence[bytes]], None]
MUTATORS: Final[tuple[Mutator, ...]] = (
    _flip, _insert, _delete, _splice, _lines, _truncate, _swap_value, _swap_value, _swap_value,
)  # fmt: skip
"""The operators; the value swap is weighted up (it is the one that reaches the dialects)."""


def mutate(corpus: Sequence[bytes], rng: random.Random) -> bytes:
    """A corpus file with one to four mutations applied."""
    data = bytearray(rng.choice(corpus))
    for _ in range(rng.choice((1, 1, 1, 2, 3, 4))):
        rng.choice(MUTATORS)(data, rng, corpus)
    return bytes(data)
