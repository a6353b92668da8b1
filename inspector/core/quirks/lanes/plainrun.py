"""A run of plain fragments on one wire lane, scanned in one tight loop (:func:`plain_run`).

A long call streams as one opener and then, chunk after chunk, one *plain* fragment each:
arguments only, at the same integer index of the first choice, no id, no name, no extra field,
not final, not an object. Once the wire scan has seen such a fragment continue a lane whose
call is identified (and whose continuations therefore no longer all repeat the id or the
name), what each further one in the run can show is fixed: nothing but its argument piece
(the lane's text, :mod:`inspector.core.quirks.lanes.text`) and the chunk it came in (a second
entry at the lane in one chunk is ``duplicate_index_in_chunk``). So the scan hands the rest of
the run to this loop, which touches each fragment once, with no call, no dictionary look-up
and no new object.

Invariants:
- :func:`plain_run` consumes only fragments the per-delta path would have handled as plain
  continuations of ``key`` in a new chunk each, and stops at the first item it is not sure
  of (another lane, another shape, a second entry in the same chunk, another kind of delta,
  a field that is falsy without being ``False``), which it returns unhandled for the
  per-delta path: stopping early is always right, only slower.
- The pieces it appends are those the per-delta path would have added to the lane's text, in
  the same order; the chunks it reports are the last chunk seen and the last one with text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import repeat
from operator import attrgetter, is_
from typing import Any, Final

from inspector.core.base.model import OMITTED, AnyDelta, DeltaKind

END: Final = object()
"""What :func:`plain_run` returns when the deltas ran out."""
_ARGS = attrgetter("arguments")
_INDEX = attrgetter("index")
_WINDOW = 1 << 12  # a shape's deltas looked at in one go, at most


def plain_run(
    items: Iterator[AnyDelta], key: int, seq: int, append: Callable[[str], None]
) -> tuple[Any, int, int, int]:
    """Consume from ``items`` (a list's iterator) the plain fragments that continue lane
    ``key`` one per chunk, the last chunk seen being ``seq``; each non-empty string piece goes
    to ``append``. Returns (the first item not consumed, or :data:`END`; the last chunk
    consumed, ``seq`` when none was; the last chunk whose piece was appended, -1 when none
    was; how many fragments it consumed). A span of a shape's own deltas is taken at once
    (:func:`_span`); any other fragment is looked at alone."""
    reduced: Any = items.__reduce__()  # (iter, (the list,), position) while not exhausted
    if len(reduced) < 3:
        return END, seq, -1, 0
    deltas: list[Any] = reduced[1][0]
    start: int = reduced[2]
    pos, n, texted = start, len(deltas), -1
    omitted, fragment, string = OMITTED, DeltaKind.TOOL_CALL, str
    sink = getattr(append, "__self__", None)
    while pos < n:
        d = deltas[pos]
        cls = d.__class__
        if d.kind is fragment and cls.shared:  # a shape's deltas: fields in the class
            k = _span(deltas, pos, cls, key, seq)
            if k:
                args = list(map(_ARGS, deltas[pos : pos + k]))
                pieces = list(filter(None, args))
                if pieces:
                    if type(sink) is list:
                        sink += pieces
                    else:
                        list(map(append, pieces))
                    last = k - 1
                    while not args[last]:
                        last -= 1
                    texted = deltas[pos + last].seq
                seq = deltas[pos + k - 1].seq
                pos += k
                continue
        if (  # inline: once per fragment of a long call (no int made per fragment)
            d.kind is fragment
            and d.id is omitted
            and d.name is omitted
            and d.index is key  # the lane's own index object: a shape's, or a small int
            and d.extra is None
            and d.final is False
            and d.args_object is False
            and d.seq != seq
        ):
            seq = d.seq
            a = d.arguments
            if a.__class__ is string and a:
                append(a)
                texted = seq
            pos += 1
            continue
        break
    items.__setstate__(pos)  # type: ignore[attr-defined]
    return next(items, END), seq, texted, pos - start


def _span(deltas: list[Any], pos: int, cls: type, key: int, seq: int) -> int:
    """How many deltas from ``pos`` on are plain fragments of lane ``key`` made by shapes
    (:mod:`inspector.core.providers.shapememo.runs`; ``cls`` holds their every field but ``seq``,
    ``index`` and ``arguments``): all of its class at ``key`` in a row, if the class's fields
    are plain ones and the first is in a chunk after ``seq``. A shape makes one delta an
    event, so their chunks follow each other, and its arguments are strings."""
    if not (
        cls.id is OMITTED  # type: ignore[attr-defined]
        and cls.name is OMITTED  # type: ignore[attr-defined]
        and cls.extra is None  # type: ignore[attr-defined]
        and cls.final is False  # type: ignore[attr-defined]
        and cls.args_object is False  # type: ignore[attr-defined]
        and deltas[pos].seq != seq
    ):
        return 0
    window = deltas[pos : pos + _WINDOW]
    same = list(map(is_, map(type, window), repeat(cls)))
    k = same.index(False) if False in same else len(same)
    at = list(map(is_, map(_INDEX, window[:k]), repeat(key)))
    return at.index(False) if False in at else k
