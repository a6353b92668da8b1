"""A run of plain fragments on one wire lane, scanned in one tight loop (:func:`plain_run`).

A long call streams as one opener and then, chunk after chunk, one *plain* fragment each:
arguments only, at the same integer index of the first choice, no id, no name, no extra field,
not final, not an object. Once the wire scan has seen such a fragment continue a lane whose
call is identified (and whose continuations therefore no longer all repeat the id or the
name), what each further one in the run can show is fixed: nothing but its argument piece
(the lane's text, :mod:`inspector.core.verdicts.lanetext`) and the chunk it came in (a second
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
from operator import length_hint
from typing import Any, Final

from inspector.core.base.model import OMITTED, AnyDelta, DeltaKind

END: Final = object()
"""What :func:`plain_run` returns when the deltas ran out."""


def plain_run(
    items: Iterator[AnyDelta], key: int, seq: int, append: Callable[[str], None]
) -> tuple[Any, int, int, int]:
    """Consume from ``items`` (a list's iterator: it knows how many are left) the plain
    fragments that continue lane ``key`` one per chunk, the last chunk seen being ``seq``;
    each non-empty string piece goes to ``append``. Returns (the first item not consumed, or
    :data:`END`; the last chunk consumed, ``seq`` when none was; the last chunk whose piece
    was appended, -1 when none was; how many fragments it consumed)."""
    omitted, fragment, string = OMITTED, DeltaKind.TOOL_CALL, str
    left = length_hint(items)
    texted = -1
    d: Any  # a delta of any kind: its kind is looked at first
    for d in items:  # inline: once per fragment of a long call (no int made per fragment)
        if (
            d.kind is fragment  # a ToolCallDelta (or a shape's own: shape_runs)
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
            continue
        return d, seq, texted, left - length_hint(items) - 1
    return END, seq, texted, left
