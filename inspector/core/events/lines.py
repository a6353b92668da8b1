"""Line-level helpers of the SSE decoder: splitting a buffer with CRs into lines, the common
all-``data:`` buffer cut into its events at once, and the ``retry`` field's value. Pure
functions, no state."""

from __future__ import annotations

from itertools import accumulate, repeat
from operator import add, itemgetter

from inspector.core.base.model import EventKind

__all__ = ["at_once", "comment_lines", "data_blocks", "parse_retry", "split_cr"]

_VALUE = itemgetter(slice(6, None))  # after "data: "
_TEXT = itemgetter(slice(2, None))  # after ": "


def at_once(data: bytes, last: str) -> tuple[str, list[str], list[int], bytes] | None:
    """``data`` (no CR, starting at a line start, no event being built) cut into events at once
    when it is all data blocks (:func:`data_blocks`) or all comments (:func:`comment_lines`):
    their kind, then what that function gives; None otherwise."""
    if data.startswith(b": "):
        comments = comment_lines(data, last)
        return None if comments is None else (EventKind.COMMENT, *comments)
    blocks = data_blocks(data)
    return None if blocks is None else (EventKind.EVENT, *blocks)


def data_blocks(data: bytes) -> tuple[list[str], list[int], bytes] | None:
    """``data`` (no CR, starting at a line start) as events when it is nothing but blocks of
    one ``data: <value>`` line and a blank line, then a tail without LF: each block's value,
    the offset past each block relative to ``data`` (both LFs included), and the tail. None
    when it is anything else (another field, a comment, a multi-line block, invalid UTF-8):
    the decoder then goes line by line. The values are what line-by-line decoding gives."""
    lines = data.split(b"\n")
    tail = lines.pop()
    if not lines or len(lines) & 1 or any(lines[1::2]):
        return None  # not every other line blank
    fields = lines[0::2]
    if not all(map(bytes.startswith, fields, repeat(b"data: "))):
        return None
    try:
        values = list(map(bytes.decode, map(_VALUE, fields)))
    except UnicodeDecodeError:
        return None
    stops = list(map(add, accumulate(map(len, fields)), range(2, 2 * len(fields) + 1, 2)))
    return values, stops, tail


def comment_lines(data: bytes, last: str) -> tuple[list[str], list[int], bytes] | None:
    """``data`` (no CR, starting at a line start, no event being built) as comment events when
    every complete line is a ``: <text>`` comment: each text (equal texts, and one equal to
    ``last``, share one string), the offset past each line relative to ``data``, and the tail.
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
    return texts, list(accumulate(map(len, lines), _past_line, initial=0))[1:], tail


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
