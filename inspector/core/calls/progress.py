"""Per-fragment rows for a lane's fragment table, computed lazily and incrementally.

A :class:`CallProgress` walks a call's fragments once, in arrival order, and records after each
one the running length of the accepted argument buffer and the JSON state of that buffer.

Invariants:
- One row per fragment routed to the call (``call.fragments``), dropped ones included, in the
  same order; ``rows[i]`` describes ``call.fragments[i]``.
- A row's text goes into the buffer (``appended``) exactly when the accumulator appended it:
  an accepted non-final fragment with non-empty text, or an accepted final fragment that
  arrived while the buffer was still empty (the call's arguments then come from the final,
  ``call.args_from_final``). Any other final only restates the arguments: its row keeps the
  previous length and state, except an item's whole object input (``args_object`` on a call
  that is not a function call), which the accumulator takes in place of the streamed text:
  its row starts the buffer afresh with its text. So after the last row,
  ``length == len(call.arguments)`` and ``json`` has been fed exactly ``call.arguments``.
- Dropped rows (``accepted`` False) change nothing: length and JSON state are those of the
  row before.
- :meth:`CallProgress.advance` only looks at fragments added since its last call: the work
  is O(new fragments' bytes). :func:`progress_of` keeps each call's progress here, in a table
  keyed weakly by the call: an entry goes with its call (a re-judged stream builds new ToolCall
  objects), and a CallProgress holds no reference to its call, so nothing keeps a call alive.
- Pure: no Qt, nothing here mutates the call or its fragments.
"""

from __future__ import annotations

import weakref
from bisect import bisect_left
from collections.abc import Sequence
from typing import Any, Final

from inspector.core.base.kinds import CallKind
from inspector.core.base.model import SSEEvent, ToolCallDelta
from inspector.core.calls.jsonprogress import JsonProgress
from inspector.core.calls.toolcall import ToolCall

_MARKS: Final = {"\n": "↵", "\t": "⇥"}


class FragmentRow:
    """One fragment of one call, with the buffer's state after it."""

    __slots__ = (
        "accepted",
        "appended",
        "complete",
        "depth",
        "error",
        "final",
        "id",
        "in_string",
        "length",
        "name",
        "pos",
        "seq",
        "state",
        "t",
        "text",
    )

    def __init__(self, d: ToolCallDelta, t: float, text: str, accepted: bool) -> None:
        self.seq: int = d.seq
        """Sequence number of the wire event the fragment came from."""
        self.pos: int = d.pos
        """Position of the entry among the tool-call entries of its event."""
        self.t: float = t
        """Arrival time of that wire event (seconds)."""
        self.id: Any = d.id
        """The id exactly as received (OMITTED, None, "", "null" or a value)."""
        self.name: Any = d.name
        """The name exactly as received."""
        self.text: str = text
        """The argument fragment as the accumulator sees it ("" when omitted)."""
        self.accepted: bool = accepted
        """False when the empty-id policy dropped the fragment."""
        self.final: bool = d.final
        """The fragment restates the whole arguments (Responses done events)."""
        self.appended = False
        """The text went into the argument buffer (see the module docstring)."""
        self.length = 0
        """Characters in the accepted buffer after this fragment."""
        self.state = "empty"
        """``JsonProgress.label()`` after this fragment."""
        self.complete = False
        """The buffer is a complete JSON text after this fragment."""
        self.error = False
        """The buffer can no longer become valid JSON."""
        self.depth = 0
        """Open objects/arrays after this fragment."""
        self.in_string = False
        """The buffer ends inside a string (or an escape)."""

    def __repr__(self) -> str:
        flags = ("" if self.accepted else " dropped") + (" final" if self.final else "")
        return f"FragmentRow(#{self.seq}.{self.pos} {self.text!r} len={self.length}{flags})"


def fragment_text(d: ToolCallDelta) -> str:
    """The text the accumulator appends for ``d`` (:attr:`ToolCallDelta.text`)."""
    return d.text


class CallProgress:
    """Rows for one call's fragments, extended as the call grows."""

    __slots__ = ("_snap", "json", "length", "rows")

    def __init__(self) -> None:
        self.rows: list[FragmentRow] = []
        """One row per fragment processed so far."""
        self.json = JsonProgress()
        """The JSON state of the accepted buffer (fed exactly the call's arguments)."""
        self.length = 0
        """Characters in the accepted buffer so far."""
        self._snap: tuple[str, int, bool, bool, bool] = ("empty", 0, False, False, False)

    def advance(self, call: ToolCall, events: Sequence[SSEEvent], upto: int | None = None) -> int:
        """Process fragments not yet seen, up to index ``upto`` (all by default); return the
        number of new rows. Rows depend only on earlier fragments, so a view can ask for
        just the rows it shows and pay for the rest when (if) it scrolls to them."""
        frags, dropped, rows = call.fragments, call.dropped_positions, self.rows
        start = len(rows)
        end = len(frags) if upto is None else min(upto, len(frags))
        k = bisect_left(dropped, start)  # the next dropped position at or after ``start``
        restates = call.kind != CallKind.FUNCTION  # an item's whole object input replaces
        for i in range(start, end):
            d = frags[i]
            text = fragment_text(d)
            ok = k >= len(dropped) or dropped[k] != i
            if not ok:
                k += 1
            row = FragmentRow(d, _time(events, d.seq), text, ok)
            if row.accepted and text and d.final and d.args_object and self.length and restates:
                self.json, self.length = JsonProgress(), 0  # the accumulator restates: so here
            if row.accepted and text and (not d.final or self.length == 0):
                self.json.feed(text)
                self.length += len(text)
                row.appended = True
                self._refresh()
            row.length = self.length
            row.state, row.depth, row.in_string, row.complete, row.error = self._snap
            rows.append(row)
        return max(0, end - start)

    def _refresh(self) -> None:
        depth, in_string, complete, error = self.json.snapshot()
        self._snap = (self.json.label(), depth, in_string, complete, error)

    @property
    def last(self) -> FragmentRow | None:
        """The latest row, or None before the first fragment."""
        return self.rows[-1] if self.rows else None


def _time(events: Sequence[SSEEvent], seq: int) -> float:
    return events[seq].t if 0 <= seq < len(events) else 0.0


_PROGRESS: Final[weakref.WeakKeyDictionary[ToolCall, CallProgress]] = weakref.WeakKeyDictionary()
"""Each call's progress so far (see the module docstring: it lives and dies with its call)."""


def progress_of(
    call: ToolCall, events: Sequence[SSEEvent], upto: int | None = None
) -> CallProgress:
    """The call's progress (kept from one ask to the next), advanced to fragment ``upto``
    (default: its latest).

    ``events`` is the wire event list of the call's stream (``StreamState.events``).
    """
    progress = _PROGRESS.get(call)
    if progress is None:
        progress = _PROGRESS[call] = CallProgress()
    if upto is None or len(progress.rows) < upto:
        progress.advance(call, events, upto)
    return progress


def visible(text: str, limit: int = 200) -> str:
    """``text`` with whitespace and invisible characters shown, clipped to ``limit`` characters.

    A newline shows as "↵", a tab as "⇥", each leading and trailing space as "·", other
    non-printable characters (controls, CR, format characters, unusual spaces) as ``\\uXXXX``
    (``\\UXXXXXXXX`` beyond the BMP); the empty string as "∅". JSON escapes in the text (the
    two characters ``\\`` ``n``) are already visible and stay as they are. A longer result ends
    in "…" and is exactly ``limit`` characters long.
    """
    if not text:
        return "∅"
    limit = max(limit, 1)
    clipped = len(text) > limit
    body = text[:limit] if clipped else text
    core = body.lstrip(" ")
    lead = len(body) - len(core)
    trail = 0 if clipped else len(core) - len(core.rstrip(" "))
    middle = core[: len(core) - trail] if trail else core
    if not middle.isprintable():
        middle = "".join(_mark(c) for c in middle)
    out = "·" * lead + middle + "·" * trail
    if clipped or len(out) > limit:
        out = out[: limit - 1] + "…"
    return out


def _mark(c: str) -> str:
    if c.isprintable():
        return c
    mark = _MARKS.get(c)
    if mark is not None:
        return mark
    code = ord(c)
    if code > 0xFFFF:
        return f"\\U{code:08X}"
    return f"\\u{code:04X}"
