"""Line-level helpers of the SSE decoder: splitting a buffer with CRs into lines, and the
``retry`` field's value. Pure functions, no state."""

from __future__ import annotations

__all__ = ["parse_retry", "split_cr"]


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
