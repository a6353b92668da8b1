"""The dialect base of the two dialects that keep a shape memo (Chat Completions and
Responses): one JSON decode per chunk only when the chunk differs from a proved shape in more
than its argument text (:mod:`.shape`), and a decoder's plain run mapped at once (:mod:`.runs`).

Invariant: a memo dialect's deltas are exactly those its full path (``feed``) gives, event by
event; the memo only skips decoding.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from inspector.core.base.model import OMITTED, AnyDelta, SSEEvent, ToolCallDelta
from inspector.core.base.provider import Provider
from inspector.core.events.plain import PlainRun
from inspector.core.providers.shapememo.runs import map_run
from inspector.core.providers.shapememo.shape import Shape, ShapeMemo
from inspector.core.providers.wire.events import OwnDialect


class MemoDialect(OwnDialect):
    """An own dialect with a shape memo (:mod:`.shape`): ``_memo`` (None: turned
    off, the full path for every event) and its current ``_shape`` (None: none proved yet)."""

    def __init__(self, provider: Provider, memo: ShapeMemo | None) -> None:
        super().__init__(provider)
        self._shape: Shape | None = None
        """The shape memo's current shape."""
        self._memo = memo

    def feed_run(self, run: PlainRun, out: list[AnyDelta], spans: list[tuple[int, int]]) -> None:
        """Append the deltas of a decoder's plain run of events (:class:`PlainRun`), exactly
        as :meth:`feed` event by event would. Events that fit the current plain shape are
        taken at once (:func:`.runs.map_run`) with no event object; each such span of
        continuation fragments (no id, no name) is noted in ``spans`` as its ``(start, stop)``
        positions in ``out``, for the accumulator to take at once too."""
        values, seq, n, i = run.values, run.seq, len(run.values), 0
        feed = self.feed
        events: Iterator[SSEEvent] | None = None  # built from position i on, while not taken
        while i < n:
            shape = self._shape
            if type(shape) is Shape:
                k = map_run(shape, values, i, seq + i, out)
                if k:
                    if shape.id is OMITTED and shape.name is OMITTED:
                        spans.append((len(out) - k, len(out)))
                    i += k
                    events = None
                    if i == n:
                        break
            if events is None:
                events = run.events(i)
            feed(next(events), out)
            i += 1

    def _offer(self, ev: SSEEvent, one: ToolCallDelta, obj: dict[str, Any]) -> None:
        """The full path mapped ``ev`` (decoded as ``obj``) to the one delta ``one``, which the
        current shape (if any) missed: keep that shape, or try one of this event (backoff)."""
        memo, shape = self._memo, self._shape
        if memo is None:
            return
        if shape is None and memo.skip:  # ShapeMemo.after's first check, without the call
            memo.skip -= 1
        else:
            self._shape = memo.after(ev, one, obj, shape, self._unmemoized)

    def _unmemoized(self, ev: SSEEvent) -> list[AnyDelta]:
        """The full path's deltas for ``ev`` (the shape memo's proofs)."""
        memo, shape = self._memo, self._shape
        self._memo = self._shape = None
        out: list[AnyDelta] = []
        try:
            self.feed(ev, out)
        finally:
            self._memo, self._shape = memo, shape
        return out
