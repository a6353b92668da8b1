"""The argument text per wire lane, followed as it streams (:class:`LaneTexts`): what the
``silent_truncation`` check needs at the finish, kept as a JSON state per lane instead of the
lane's pieces, so the check at the finish costs O(lanes), not O(stream).

Invariants:
- A lane's text is the concatenation of its non-empty string argument pieces, in arrival
  order (every non-final fragment at the lane, whatever a policy routed where); it is fed to
  the lane's :class:`~inspector.core.calls.jsonprogress.JsonProgress` a batch at a time
  (:meth:`LaneTexts.flush`: one join and one feed per lane touched since the last flush;
  JSON progress does not depend on how the text is split). A lane whose first piece is a
  whole JSON object (orjson accepts it: a call sent whole) settles as it comes, with no state
  at all; one whose first batch is a whole value settles at its flush without an automaton.
  A lane flushed first with many pieces that are exactly a call's takes the call's joined text
  (and, once validation decoded that very text, its answer:
  :mod:`inspector.core.calls.wholejson`).
- A lane whose second piece starts with its first is cumulative (the joined text only looks
  like a prefix): never reported. A lane whose text is complete or has an error can never be
  an open prefix again (after a complete value only whitespace keeps it complete; an error is
  sticky): it is settled, and its state dropped (:data:`SETTLED`, or a byte in
  :attr:`LaneTexts.settled` for a small integer key).
- :meth:`LaneTexts.cut` gives what the whole-stream scan (join each lane's pieces, and report
  a proper prefix of JSON) gives, lanes in first-appearance order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final

from orjson import JSONDecodeError, loads

from inspector.core.calls import wholejson
from inspector.core.calls.jsonprogress import JsonProgress
from inspector.core.calls.toolcall import ToolCall


class LaneText:
    """One lane's text so far: its JSON state, its first piece (for the cumulative check)
    and the pieces not fed yet."""

    __slots__ = ("first", "key", "last", "pending", "pieces", "progress")

    def __init__(self, key: Any = None) -> None:
        self.key = key
        """The lane's key in :attr:`LaneTexts.lanes`."""
        self.first: str | None = None
        """The lane's first piece, until its second one decides whether it is cumulative."""
        self.pieces = 0
        """Pieces fed so far."""
        self.pending: list[str] = []
        """Pieces arrived since the last flush."""
        self.last = -1
        """The chunk of the lane's last piece."""
        self.progress: JsonProgress | None = None
        """Its JSON state, from its first flush that is no whole JSON value."""


_INDEXES: Final = 1 << 22  # settled lanes at wire indexes below this are kept as a byte

SETTLED: Final = LaneText()
"""The state of every settled lane (never reported, whatever follows): shared, never fed."""


_SHARED: Final = 1024
"""Pieces from which a lane's first text is looked for among the calls' (:func:`call_text`)."""
_NEAR: Final = 16
"""The latest calls a lane's call is looked for among."""


def call_text(calls: Sequence[Any], key: int, pieces: list[str]) -> tuple[str, bool] | None:
    """(the joined text, known to be a whole JSON value) of the call among the latest ones at
    wire index ``key`` whose argument pieces are exactly ``pieces`` (the very objects, in
    order: compared by identity, in C); None when there is none. Its text is ``pieces``
    joined, joined once for the call (validation reads the same string)."""
    for call in reversed(calls[-_NEAR:]):
        if type(call) is not ToolCall or call.index != key or type(call.index) is not int:
            continue
        parts = call.parts
        if type(parts) is list and parts == pieces:
            text = call.arguments  # cached by the call: checked to be the pieces' length
            if len(text) == sum(map(len, pieces)):
                return text, wholejson.known(call, text)
            return None
    return None


def _whole(text: str) -> bool:
    """Is ``text`` one whole JSON value (then its lane can never be a cut: after a whole
    value, whitespace keeps it complete and anything else is an error)?"""
    try:
        loads(text)
    except JSONDecodeError:
        return False
    return True


def _discard(text: str) -> None:
    """Where a settled lane's pieces go: nowhere."""


class LaneTexts:
    """Every wire lane's argument text, as a JSON state (see the module docstring)."""

    __slots__ = ("dirty", "lanes", "made", "settled")

    def __init__(self) -> None:
        self.lanes: dict[Any, LaneText] = {}
        """Lane key -> its text (:data:`SETTLED` once it can no longer be a cut, unless its
        key is a small wire index: then it leaves the table for :attr:`settled`)."""
        self.settled = bytearray()
        """1 at each settled lane whose key is a wire index in [0, 2**22): a byte a call sent
        whole, not a table entry."""
        self.dirty: list[LaneText] = []
        """Lanes with pending pieces, in the order they got their first pending one."""
        self.made = 0
        """Lanes entered in :attr:`lanes` since it was last rebuilt (a dict never shrinks:
        200,000 calls sent whole enter and leave it, and their room would stay)."""

    def add(self, key: Any, text: str, seq: int) -> None:
        """A non-empty argument piece ``text`` at lane ``key``, in chunk ``seq``."""
        lane = self.lanes.get(key)
        if lane is None:
            settled = self.settled
            if type(key) is int and 0 <= key < len(settled) and settled[key]:
                return
            if text[-1] == "}" and _whole(text):  # a call sent whole: settled whatever follows
                self._settle(key)  # (no state made for it, not even until the flush)
                return
            lane = self.lanes[key] = LaneText(key)
            self.made += 1
        elif lane is SETTLED:
            return
        pending = lane.pending
        if not pending:
            self.dirty.append(lane)
        pending.append(text)
        lane.last = seq

    def appender(self, key: Any) -> Callable[[str], None] | None:
        """Where further pieces of lane ``key`` go, as :meth:`add` would put them, for a run of
        pieces added at once: its pending list when it has pending pieces (so it is dirty
        already), a sink when the lane is settled; None otherwise (use :meth:`add`). After
        the run, :meth:`touched` records the chunk of its last piece."""
        lane = self.lanes.get(key)
        if lane is None:
            settled = self.settled
            if type(key) is int and 0 <= key < len(settled) and settled[key]:
                return _discard
            return None
        if lane is SETTLED:
            return _discard
        return lane.pending.append if lane.pending else None

    def touched(self, key: Any, seq: int) -> None:
        """Pieces of lane ``key`` were put where :meth:`appender` said, the last in ``seq``."""
        lane = self.lanes.get(key)
        if lane is not None and lane is not SETTLED:
            lane.last = seq

    def flush(self, calls: Sequence[Any] = ()) -> None:
        """Feed every lane its pending pieces (one join and one feed per lane), settling the
        lanes that can no longer be a cut. ``calls`` are the stream's calls: a lane flushed
        for the first time whose many pieces are exactly a call's takes that call's joined
        arguments (:func:`call_text`) instead of joining them again."""
        if not self.dirty:
            return
        for lane in self.dirty:
            pending = lane.pending
            if lane.pieces < 2:
                if lane.first is None:
                    lane.first = pending[0]
                second = pending[1 - lane.pieces] if len(pending) + lane.pieces > 1 else None
                if second is not None:
                    if second.startswith(lane.first):  # cumulative: never a cut
                        self._settle(lane.key)
                        continue
                    lane.first = None
            known = None
            if lane.pieces == 0 and len(pending) >= _SHARED and type(lane.key) is int:
                known = call_text(calls, lane.key, pending)
            lane.pieces += len(pending)
            if known is not None:
                text, whole = known
                if whole:  # validation decoded this very text: a whole value
                    pending.clear()
                    self._settle(lane.key)
                    continue
            else:
                text = pending[0] if len(pending) == 1 else "".join(pending)
            pending.clear()
            progress = lane.progress
            if progress is None:  # its first text: a whole value settles it (no automaton)
                try:
                    loads(text)
                    self._settle(lane.key)
                    continue
                except JSONDecodeError:
                    progress = lane.progress = JsonProgress()
            progress.feed(text)
            if progress.error is not None or progress.complete:
                self._settle(lane.key)
        self.dirty = []
        if self.made > 2 * len(self.lanes) + 64:  # mostly settled and gone: give the room back
            self.lanes = dict(self.lanes)
            self.made = len(self.lanes)

    def _settle(self, key: Any) -> None:
        """Lane ``key`` can no longer be a cut: its state goes."""
        if type(key) is int and 0 <= key < _INDEXES:
            settled = self.settled
            if key >= len(settled):  # grown by doubling: no allocation per new lane
                settled.extend(bytes(max(key + 1 - len(settled), len(settled), 64)))
            settled[key] = 1
            self.lanes.pop(key, None)
        else:
            self.lanes[key] = SETTLED

    def cut(self) -> Iterator[tuple[int, str]]:
        """(chunk of its last piece, JSON state) of every lane whose text is a proper prefix
        of JSON (no error, not complete, not only whitespace), in first-appearance order."""
        self.flush()
        for lane in self.lanes.values():
            if lane is SETTLED:
                continue
            progress = lane.progress
            if progress is None:  # never flushed: impossible after flush(), kept for types
                continue
            if progress.error is None and not progress.complete and not progress.empty:
                yield lane.last, progress.label()
