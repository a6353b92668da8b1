"""Finding the session's keys in a response body (part of the one redaction rule, exported by
:mod:`inspector.core.capture.redaction`, which says where it applies).

Invariants:
- Only keys of :data:`VALUE_SCAN_MIN` characters or more are looked for: a shorter one (a local
  server's placeholder) matches ordinary words.
- A run of :data:`FRAGMENT_MIN` consecutive characters of a key is found too, grown as far as
  it goes on matching the key: a key split across two events (a tool call's argument
  fragments) shows whole in neither, and what is left unmasked of it is under that length.
- Masking keeps the length (``*`` per byte): offsets, framing and JSON stay as received.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection
from typing import Final

VALUE_SCAN_MIN: Final = 8
"""A key this long is masked wherever it occurs (as a substring); a shorter one only as a word."""
FRAGMENT_MIN: Final = 10
"""A run of this many consecutive characters of a key (or the whole of a shorter one) is
masked in a response body."""
MASK_BYTE: Final = b"*"
"""What a key's bytes become in a recorded response body (one per byte)."""


def body_keys(secrets: Collection[str]) -> tuple[bytes, ...]:
    """The keys looked for in a response body: those of :data:`VALUE_SCAN_MIN` characters or
    more, as UTF-8, longest first; not a whole header value such as ``Bearer KEY`` (its
    credential is a secret of its own: the scheme's pieces would mask the bytes around it)."""
    found = {
        s.encode("utf-8", "surrogateescape")
        for s in secrets
        if len(s) >= VALUE_SCAN_MIN and not any(c.isspace() for c in s)
    }
    return tuple(sorted(found, key=len, reverse=True))


@functools.lru_cache(maxsize=64)
def _fragments(key: bytes) -> tuple[re.Pattern[bytes], dict[bytes, list[int]]]:
    """A pattern for every run of :data:`FRAGMENT_MIN` bytes of ``key``, and where each sits."""
    size = min(FRAGMENT_MIN, len(key))
    grams: dict[bytes, list[int]] = {}
    for k in range(len(key) - size + 1):
        grams.setdefault(key[k : k + size], []).append(k)
    pattern = re.compile(b"|".join(re.escape(g) for g in sorted(grams, key=len, reverse=True)))
    return pattern, grams


def _grown(data: bytes | bytearray, key: bytes, start: int, end: int, k: int) -> tuple[int, int]:
    """The match ``[start, end)`` of ``key[k:]`` grown both ways while it matches the key."""
    a, b = start, end
    while a > 0 and k - (start - a) > 0 and data[a - 1] == key[k - (start - a) - 1]:
        a -= 1
    while b < len(data) and k + (b - start) < len(key) and data[b] == key[k + (b - start)]:
        b += 1
    return a, b


def find_keys(data: bytes | bytearray, keys: Collection[bytes]) -> list[tuple[int, int]]:
    """The ``[start, end)`` byte ranges of ``data`` that hold one of ``keys`` (from
    :func:`body_keys`) or a piece of one (module doc); sorted and merged."""
    spans: list[tuple[int, int]] = []
    for key in keys:
        pattern, grams = _fragments(key)
        for m in pattern.finditer(data):
            start, end = m.span()
            found = [_grown(data, key, start, end, k) for k in grams[m.group()]]
            spans.append(max(found, key=lambda s: s[1] - s[0]))
    spans.sort()
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def mask_body(data: bytes, secrets: Collection[str]) -> tuple[bytes, list[tuple[int, int]]]:
    """``data`` with each key's bytes (and each piece's) replaced by ``*`` of the same length,
    and the ranges masked."""
    spans = find_keys(data, body_keys(secrets))
    if not spans:
        return data, spans
    out = bytearray(data)
    for start, end in spans:
        out[start:end] = MASK_BYTE * (end - start)
    return bytes(out), spans


SCAN_STEP: Final = 1 << 20
"""Bytes of a request body's text searched in one step (:func:`json_text_lacks`)."""
_PLAIN_KEY: Final = re.compile(r"[ -!#-\[\]-~]+")
"""A secret whose characters JSON never needs to escape: printable ASCII but ``"`` and ``\\``."""


def json_text_lacks(text: bytes | bytearray, secrets: Collection[str]) -> bool:
    """Does the JSON text ``text`` provably hold none of ``secrets`` in any of its strings
    (member names included), once decoded? A cheap test, searched a step at a time (never
    long in one C call), that may answer False where a walk would find nothing, never True
    where it would find something:

    - every secret must be plain (printable ASCII, no ``"`` nor ``\\``): the only ways JSON
      writes such a character other than as itself are ``\\/`` and ``\\u00XX`` with ``XX``
      from 20 to 7F, so where ``text`` holds neither, a decoded string holding a secret holds
      it as the same bytes in ``text``;
    - ``text`` then must hold no secret as bytes.
    """
    wanted = [s for s in secrets if s]
    if not all(_PLAIN_KEY.fullmatch(s) for s in wanted):
        return False
    needles = [s.encode("ascii") for s in wanted]
    if _finds(text, b"\\/") >= 0:
        return False
    at = _finds(text, b"\\u00")
    while at >= 0:  # an escaped character below 0x80 that a key could hold
        if text[at + 4 : at + 5] in (b"2", b"3", b"4", b"5", b"6", b"7"):
            return False
        at = _finds(text, b"\\u00", at + 4)
    return all(_finds(text, needle) < 0 for needle in needles)


def _finds(text: bytes | bytearray, needle: bytes, start: int = 0) -> int:
    """``text.find(needle, start)`` a :data:`SCAN_STEP` at a time (overlapping by the
    needle's length)."""
    size, span = len(text), len(needle)
    while start < size:
        end = min(size, start + SCAN_STEP + span - 1)
        found = text.find(needle, start, end)
        if found >= 0:
            return found
        start += SCAN_STEP
    return -1
