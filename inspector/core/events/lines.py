"""Line-level helpers of the SSE decoder: splitting a buffer with CRs into lines, the common
buffers (plain data events, typed events, comments) cut into their events at once, and the
``retry`` field's value. Pure functions, no state."""

from __future__ import annotations

from itertools import accumulate, repeat
from operator import add, itemgetter

from inspector.core.base.model import EventKind
from inspector.core.events.plain import data_blocks

__all__ = ["Found", "at_once", "comment_lines", "parse_retry", "split_cr", "typed_blocks"]

_VALUE = itemgetter(slice(6, None))  # after "data: "
_TEXT = itemgetter(slice(2, None))  # after ": "
_TYPE = itemgetter(slice(7, None))  # after "event: "


Found = tuple[list[str], list[int], bytes, list[str] | None]
"""What a buffer cut at once gives: the values (data or comment texts), the bounds (the
buffer's absolute start, then the offset past each event), the incomplete tail, and the event
types (None: "message")."""


def at_once(data: bytes, last: str, base: int) -> tuple[str, *Found] | None:
    """``data`` (no CR, starting at a line start, no event being built; absolute offset
    ``base``) cut into events at once when it is all plain data events (:func:`data_blocks`),
    typed ones (:func:`typed_blocks`) or all comments (:func:`comment_lines`): their kind, then
    what that function gives; None otherwise."""
    if data.startswith(b": "):
        comments = comment_lines(data, last, base)
        return None if comments is None else (EventKind.COMMENT, *comments)
    if data.startswith(b"event: "):
        typed = typed_blocks(data, base)
        return None if typed is None else (EventKind.EVENT, *typed)
    plain = data_blocks(data, base)
    return None if plain is None else (EventKind.EVENT, *plain, None)


def typed_blocks(data: bytes, base: int) -> Found | None:
    """:func:`data_blocks` for blocks of an ``event: <type>`` line, a ``data: <value>`` line
    and a blank line (what Anthropic and the Responses API send); a block with an empty type
    (which means "message") goes line by line."""
    lines = data.split(b"\n")
    tail = lines.pop()
    if not lines or len(lines) % 3 or any(lines[2::3]):
        return None
    names, fields = lines[0::3], lines[1::3]
    if not all(map(bytes.startswith, names, repeat(b"event: "))) or not all(
        map(bytes.startswith, fields, repeat(b"data: "))
    ):
        return None
    try:
        types = list(map(bytes.decode, map(_TYPE, names)))
        values = list(map(bytes.decode, map(_VALUE, fields)))
    except UnicodeDecodeError:
        return None
    if "" in types:
        return None
    sizes = map(add, map(len, names), map(len, fields))
    return values, list(accumulate(map(add, sizes, repeat(3)), initial=base)), tail, types


def comment_lines(data: bytes, last: str, base: int) -> Found | None:
    """``data`` (no CR, starting at a line start, no event being built) as comment events when
    every complete line is a ``: <text>`` comment: each text (equal texts, and one equal to
    ``last``, share one string), the bounds (``base``, then the offset past each line), the tail.
    None when any line is something else: the decoder then goes line by line."""
    lines = data.split(b"\n")
    tail = lines.pop()
    if not lines or not all(map(bytes.startswith, lines, repeat(b": "))):
        return None
    try:
        texts = list(map(bytes.decode, map(_TEXT, lines)))
    except UnicodeDecodeError:
        return None
    shared = {last: last}
    texts = list(map(shared.setdefault, texts, texts))
    return texts, list(accumulate(map(len, lines), _past_line, initial=base)), tail, None


def _past_line(pos: int, size: int) -> int:
    return pos + size + 1


def split_cr(buf: bytes) -> tuple[list[bytes], list[int], bytes]:
    """Split ``buf`` (which holds a CR) into complete lines, their line-end sizes, and a tail.

    A CR at the very end of ``buf`` stays in the tail: the next byte may be its LF.
    """
    cr = buf.count(b"\r")
    if cr == buf.count(b"\n"):
        lines = buf.split(b"\r\n")
        if len(lines) == cr + 1:  # every CR and every LF is in a CRLF pair
            tail = lines.pop()
            return lines, [2] * len(lines), tail
    out: list[bytes] = []
    eols: list[int] = []
    pieces = buf.split(b"\n")
    tail = pieces.pop()
    for piece in pieces:
        if b"\r" not in piece:
            out.append(piece)
            eols.append(1)
            continue
        crlf = piece.endswith(b"\r")
        sub = piece[:-1].split(b"\r") if crlf else piece.split(b"\r")
        out += sub
        eols += [1] * (len(sub) - 1)
        eols.append(2 if crlf else 1)
    if b"\r" in tail:
        sub = tail.split(b"\r")
        tail = sub.pop()
        if not tail:  # buf ended with CR: hold that line back with its CR
            tail = sub.pop() + b"\r"
        out += sub
        eols += [1] * len(sub)
    return out, eols, tail


def parse_retry(value: str, current: int | None) -> int | None:
    """WHATWG ``retry``: only a non-empty run of ASCII digits counts; anything else is ignored."""
    if value.isascii() and value.isdigit():
        try:
            return int(value)
        except ValueError:  # beyond int()'s digit limit: ignore like any other bad value
            return current
    return current
