"""Plain one-line data events: the common case, recognised and cut at once.

Most streams are nothing but events of one ``data: <value>`` line and a blank line, LF line
ends (OpenAI chat: one such event a chunk). :func:`chunk_values` recognises a run of chunks
that are exactly one such event each; :func:`data_blocks` a buffer that is such events and an
incomplete tail. Both decide in a few passes in C over the whole run (no Python per event),
and give the values line-by-line decoding would give, or None for anything else (the decoder
then goes line by line, which is what defines the result).

A :class:`PlainRun` describes the events one decoder call emitted that way, in columns, so the
stream's event log takes them without reading them back from the event objects; :func:`built`
makes event objects from such columns (this run's, or what :func:`~.lines.at_once` found).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import accumulate, chain, repeat
from operator import add, itemgetter

from inspector.core.base.model import EventKind, SSEEvent

__all__ = ["OPEN", "PlainRun", "built", "chunk_values", "data_blocks", "joined_runs"]

OPEN = b"data: "
_SEP = b"\n\ndata: "  # what lies between two values in a run of plain events
_VALUE = itemgetter(slice(6, -2))  # a plain event's bytes without "data: " and its two LFs
_EVENT = EventKind.EVENT


class PlainRun:
    """Events ``seq``.. emitted at once, each a plain one-line data event: an EVENT of type
    ``"message"``, no id, no retry, whose bytes ``[bounds[i], bounds[i + 1])`` are exactly
    ``b"data: " + values[i].encode() + b"\\n\\n"`` as fed. ``times``: each event's time.
    ``chunks``: the fed chunks when each event was exactly one of them (event ``i`` is
    ``chunks[i]``), else None."""

    __slots__ = ("bounds", "chunks", "seq", "times", "values")

    def __init__(
        self,
        seq: int,
        bounds: list[int],
        values: list[str],
        times: list[float],
        chunks: list[bytes] | None,
    ) -> None:
        self.seq = seq
        self.bounds = bounds
        self.values = values
        self.times = times
        self.chunks = chunks

    def events(self, start: int = 0) -> Iterator[SSEEvent]:
        """Events ``seq + start``.. as the decoder would have built them (by ``map``)."""
        b, v, t = self.bounds, self.values, self.times
        if start:
            b, v, t = b[start:], v[start:], t[start:]
        return built(_EVENT, self.seq + start, b, v, None, None, t)

    def covers(self, first: int, count: int) -> bool:
        """Whether these are exactly the events ``first``.. (``count`` of them)."""
        return self.seq == first and len(self.values) == count


def joined_runs(runs: list[PlainRun]) -> Iterator[PlainRun]:
    """``runs`` (in ``seq`` order), each stretch of them back to back (the next one's first
    event right after the last one's, in ``seq`` and in bytes) joined into one run: the same
    events. Runs with ``chunks`` are never joined (each is one event a chunk)."""
    group: list[PlainRun] = []
    for run in runs:
        if group and (
            run.chunks is not None
            or group[-1].chunks is not None
            or run.seq != group[-1].seq + len(group[-1].values)
            or run.bounds[0] != group[-1].bounds[-1]
        ):
            yield _joined(group)
            group = []
        group.append(run)
    if group:
        yield _joined(group)


def _joined(group: list[PlainRun]) -> PlainRun:
    if len(group) == 1:
        return group[0]
    bounds = list(chain(group[0].bounds, *(run.bounds[1:] for run in group[1:])))
    values = list(chain.from_iterable(run.values for run in group))
    times = list(chain.from_iterable(run.times for run in group))
    return PlainRun(group[0].seq, bounds, values, times, None)


def built(
    kind: str,
    seq: int,
    bounds: list[int],
    values: list[str],
    types: list[str] | None,
    last_id: str | None,
    times: Iterable[float],
) -> Iterator[SSEEvent]:
    """Events from columns (what :func:`~.lines.at_once` found, or a :class:`PlainRun`), from
    ``seq`` on: event ``i`` covers ``bounds[i]``..``bounds[i + 1]`` (built by ``map``, no
    Python loop)."""
    seqs, nones, stops = range(seq, seq + len(values)), repeat(None), bounds[1:]
    if kind == EventKind.COMMENT:
        empty = repeat("")
        return map(
            SSEEvent, seqs, repeat(kind), empty, empty, nones, nones, bounds, stops, times, values
        )
    named: Iterable[str] = repeat("message") if types is None else types
    ids = repeat(last_id)
    return map(SSEEvent, seqs, repeat(kind), named, values, ids, nones, bounds, stops, times)


def chunk_values(datas: list[bytes]) -> list[str] | None:
    """The values when every chunk is exactly ``b"data: " + value + b"\\n\\n"`` with no CR or
    LF in ``value`` and valid UTF-8 (each chunk one plain event); None otherwise.

    Checked without a Python loop: the values' bytes hold no line end, and the chunks joined
    equal the values joined as such events would be. Then chunk ``i`` is event ``i``: the
    joined chunks start with ``data: ``, the first value and ``\\n\\n`` (the value holds no LF),
    and the first chunk is that long; so on, chunk by chunk. (A chunk under 8 bytes has an empty
    value and then the lengths cannot add up.)"""
    values = list(map(_VALUE, datas))
    inner = b"".join(values)
    if b"\n" in inner or b"\r" in inner:
        return None
    if b"".join(datas) != b"".join((OPEN, _SEP.join(values), b"\n\n")):
        return None
    try:
        return list(map(bytes.decode, values))
    except UnicodeDecodeError:
        return None


def data_blocks(data: bytes, base: int) -> tuple[list[str], list[int], bytes] | None:
    """``data`` (no CR, at a line start, no event being built), from absolute offset ``base``,
    as plain events up to its last blank line and a tail without LF: each value, the bounds
    (``base``, then the offset past each event), and the tail. None when it is anything else (a
    comment, another field, a multi-line block, invalid UTF-8, a tail with a complete line)."""
    cut = data.rfind(b"\n\n") + 2
    if cut < 8 or not data.startswith(OPEN):
        return None
    tail = data[cut:]
    if b"\n" in tail:
        return None
    pieces = data[6 : cut - 2].split(_SEP)
    if b"\n" in b"".join(pieces):  # a LF other than the blank lines: not all plain
        return None
    try:
        values = list(map(bytes.decode, pieces))
    except UnicodeDecodeError:
        return None
    bounds = list(accumulate(map(add, map(len, pieces), repeat(8)), initial=base))
    return values, bounds, tail
