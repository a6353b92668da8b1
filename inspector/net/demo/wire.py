"""The demo provider's shared vocabulary: frames to write, the planned turn, SSE framing, ids.

A renderer (one module per dialect) turns a :class:`Turn` into a list of :data:`Frame`; the
server writes the frames one by one. Keeping rendering pure (no I/O, no clock reads, no
randomness) makes every stream reproducible and testable without a socket.

Invariants:
- A ``bytes`` frame is exactly one SSE event or comment block, ending with its blank line; the
  server writes it with one ``write`` and sleeps ``chunk_delay`` before the next frame.
- :class:`Pause`, :class:`Reset` and :class:`Split` are the only non-bytes frames; they exist for
  fault injection (a stall, a TCP reset, a frame written in several TCP writes).
- JSON is compact and UTF-8 (never ``\\uXXXX``-escaped), as most providers send it; key order is
  the order the dict was built in, which the renderers keep close to each provider's.
- Ids come from :class:`Ids`, a hash chain over a seed: the same seed gives the same ids, so a
  request's stream is a pure function of the request and the conversation's history.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

_ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


@dataclass(frozen=True)
class Pause:
    """Hold the connection open, writing nothing, for ``seconds``."""

    seconds: float


@dataclass(frozen=True)
class Reset:
    """Reset the TCP connection (SO_LINGER 0, then abort): the client sees ECONNRESET."""


@dataclass(frozen=True)
class Split:
    """One frame written as several TCP writes with a gap between them."""

    parts: tuple[bytes, ...]
    gap: float = 0.1


Frame = bytes | Pause | Reset | Split
"""What a renderer produces and the server writes."""

DONE = b"data: [DONE]\n\n"
"""The OpenAI end-of-stream marker."""


def dumps(obj: Any) -> str:
    """Compact JSON text, UTF-8 characters kept as they are."""
    return orjson.dumps(obj).decode()


def sse(obj: Any, event: str | None = None, *, crlf: bool = False) -> bytes:
    """One SSE event: an optional ``event:`` line and one ``data:`` line (str data verbatim)."""
    eol = "\r\n" if crlf else "\n"
    data = obj if isinstance(obj, str) else dumps(obj)
    head = f"event: {event}{eol}" if event else ""
    return f"{head}data: {data}{eol}{eol}".encode()


def comment(text: str) -> bytes:
    """An SSE comment block (``: text``), as keep-alives are sent."""
    return f": {text}\n\n".encode()


class Ids:
    """Deterministic provider-looking ids from a seed (a hash chain, never random)."""

    def __init__(self, seed: str) -> None:
        self._seed = seed
        self._n = 0

    def token(self, length: int, alphabet: str = _ALNUM) -> str:
        """The next ``length`` characters of the chain, drawn from ``alphabet``."""
        out: list[str] = []
        while len(out) < length:
            self._n += 1
            digest = hashlib.sha256(f"{self._seed}:{self._n}".encode()).digest()
            out.extend(alphabet[b % len(alphabet)] for b in digest)
        return "".join(out[:length])

    def hex(self, length: int) -> str:
        """The next ``length`` lowercase hex digits."""
        return self.token(length, "0123456789abcdef")


@dataclass
class Call:
    """One tool call the model makes: who, with what, and its ids in this dialect."""

    name: str
    args: dict[str, Any]
    id: str = ""
    """``call_…`` (OpenAI), ``toolu_…`` (Anthropic), ``call_…`` call_id (Responses); Gemini: ""."""
    item_id: str = ""
    """The Responses output item id (``fc_…``)."""

    def spaced(self) -> str:
        """Arguments as OpenAI chat and Anthropic write them: ``{"a": 1, "b": "x"}``."""
        return ", ".join(f"{dumps(k)}: {dumps(v)}" for k, v in self.args.items()).join("{}")

    def compact(self) -> str:
        """Arguments as the Responses API writes them: ``{"a":1,"b":"x"}``."""
        return dumps(self.args)


@dataclass
class Turn:
    """Everything a renderer needs for one response."""

    dialect: str
    model: str
    ids: Ids
    text: str = ""
    """Assistant text before any calls (a preface, or the whole answer when no calls)."""
    calls: list[Call] = field(default_factory=list)
    variant: str = ""
    """Which quirk rendering to use ("" = the conforming stream)."""
    created: int = 0
    include_usage: bool = False
    """OpenAI ``stream_options.include_usage``: end with a usage-only chunk."""
    prompt_tokens: int = 1
    tools: list[dict[str, Any]] = field(default_factory=list)
    """The request's tool definitions, as sent (the Responses stream echoes them)."""

    @property
    def output_tokens(self) -> int:
        """A plausible completion token count (about four characters a token)."""
        size = len(self.text) + sum(len(c.name) + len(c.compact()) for c in self.calls)
        return max(1, size // 4)


_SIZES = (4, 7, 3, 6, 5, 8, 2, 6)


def pieces(text: str) -> list[str]:
    """Split argument text into token-sized fragments (fixed size cycle, so deterministic)."""
    out: list[str] = []
    pos = 0
    i = 0
    while pos < len(text):
        size = _SIZES[i % len(_SIZES)]
        out.append(text[pos : pos + size])
        pos += size
        i += 1
    return out


def at_least(parts: list[str], n: int) -> list[str]:
    """``parts`` re-split into single characters when it has fewer than ``n`` pieces."""
    return parts if len(parts) >= n else list("".join(parts))


def taking_turns(
    a: list[str], b: list[str], fragment: Callable[[int, str], Frame], first: int
) -> list[Frame]:
    """Two calls' argument pieces (re-split to at least two each) taking turns: call
    ``first``'s, then call ``first + 1``'s, one piece each, the longer one's rest after;
    ``fragment(index, text)`` is the dialect's argument-fragment frame."""
    pa, pb = at_least(a, 2), at_least(b, 2)
    out: list[Frame] = []
    for n in range(max(len(pa), len(pb))):
        out += [fragment(first, pa[n])] if n < len(pa) else []
        out += [fragment(first + 1, pb[n])] if n < len(pb) else []
    return out


_WORDS = re.compile(r"\S+\s*|\s+")


def words(text: str, per: int = 2) -> Iterator[str]:
    """Split prose into deltas of ``per`` words (whitespace kept with the word before it)."""
    tokens = _WORDS.findall(text)
    for i in range(0, len(tokens), per):
        yield "".join(tokens[i : i + per])
