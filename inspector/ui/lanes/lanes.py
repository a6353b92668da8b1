"""Lanes: one column per tool call, in lane order, filling as fragments arrive.

Invariants:
- The lanes view one attempt: lane *i* shows call *i*; ``rebind`` follows a new attempt, file
  or re-judge, ``sync`` (once per flush) adds lanes for new calls and lets each lane catch up.
- Lanes are reused, never rebuilt mid-replay: lanes a rewind hides wait, unbound, in their
  place in the row for the same recorded attempt (building or re-laying out a lane costs a
  frame); anything else gives their space back.
- While data streams in, a lane is built (hidden and polished: :meth:`LanesView.prepare`) in
  one flush and shown in a later one, so no turn of the event loop both builds and first lays
  out and paints a lane; it is shown where it goes (at (0, 0) it repainted the first lane).
- While data streams in the row is *held*: lanes keep their own width (the room left stays
  empty), so a new lane never resizes and repaints the others; when it ends they stretch to
  fill the row, in a turn of the loop of their own.
- Lanes that do not all fit are never silently out of sight: a button under the lanes' bottom
  right corner says how many lanes there are and how many are off-screen, and scrolls to the
  next one. It takes its own space, a strip the viewport gives up while it shows (never over
  a lane's last row), and is in no layout: its text changes re-lay out nothing else.
- An attempt without calls says "(yet)" only while its body is still coming.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QRect, Qt, QTimer, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QScrollArea, QToolButton, QWidget

from inspector.core.analysis.session import Analysis, AttemptView, CallVerdict
from inspector.core.base.settings import DEFAULT_MODE
from inspector.core.calls.accumulator import ToolCall
from inspector.ui.base import theme
from inspector.ui.base.models import elide_json_column
from inspector.ui.lanes.empty import LINK, NO_CALLS_YET, empty_text
from inspector.ui.lanes.kinds import show_reported
from inspector.ui.lanes.lane import LaneWidget
from inspector.ui.lanes.parts import holds_seq

__all__ = ["LaneWidget", "LanesView"]

MAX_LANES = 24
"""Lanes built at most for one attempt (one costs ~15 ms), showing calls from ``first`` on;
picking a call elsewhere (the Attempts tree, an event, the hint) moves them."""
HINT_GAP = 2
"""Pixels above and below the lanes' hint, in the strip it takes under the viewport."""
MAX_SPARE = 32
"""Hidden lanes kept for reuse at most (a rewound replay of more calls rebuilds the rest)."""
UNHELD = 16_777_215
"""A lane's maximum width while the row is not held (Qt's QWIDGETSIZE_MAX)."""


class LanesView(QScrollArea):
    """All lanes of one attempt side by side, in lane order."""

    fragment_selected = Signal(int)
    """Re-emitted from any lane: the wire event seq of the selected fragment."""
    attempt_wanted = Signal(int)
    """The placeholder's link to an earlier round's calls was followed (session-wide N)."""

    def __init__(self, parent: QWidget | None = None, compact: bool = False) -> None:
        super().__init__(parent)
        self.compact = compact
        self.setWidgetResizable(True)
        self._inner = QWidget()
        # A lane added at the end grows the row: only the part it adds is painted, not every
        # lane on show again (their tables repaint through Python's data(): ~8 ms each).
        self._inner.setAttribute(Qt.WidgetAttribute.WA_StaticContents)
        self._row = QHBoxLayout(self._inner)
        self._row.setContentsMargins(4, 4, 4, 4)
        self._empty = QLabel(NO_CALLS_YET)
        self._empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._empty.linkActivated.connect(
            lambda href: self.attempt_wanted.emit(int(href.removeprefix(LINK)))
        )
        self.analysis: Analysis | None = None
        """The session the shown attempt belongs to (the placeholder links its other rounds)."""
        self._row.addWidget(self._empty, 1)
        self._row.addStretch(0)  # the room held lanes leave (lanes, stretch 1, take it else)
        self.held = False
        """Lanes keep their own width (data streams in); else they stretch to fill the row."""
        self._settle = QTimer(self, singleShot=True, interval=0)
        self._settle.timeout.connect(lambda: self.hold(False))
        self.setWidget(self._inner)
        self.lanes: list[LaneWidget] = []
        """The lanes on show, one per call, in lane order."""
        self._spare: list[LaneWidget] = []  # hidden, unbound: reused before building new ones
        self._keep_for: object = None  # the recorded attempt a rewind will show again
        self.bound_to: AttemptView | None = None
        """The attempt the lanes show; another one (a retry began) means rebind."""
        self.first = 0
        """The slot of the call the first lane shows (see :data:`MAX_LANES`)."""
        self._mode: str = DEFAULT_MODE
        self.hint = QToolButton(self)
        """"3 lanes · 2 off-screen →": shown while some lane is not wholly in view."""
        self.hint.setObjectName("lanes-hint")
        self.hint.setToolTip(
            "Scroll sideways (or click here) to see the other lanes; past the last, the next"
            " calls get the lanes (or, ↺, the first ones again)"
        )
        self.hint.clicked.connect(self.scroll_to_next)
        self.hint.hide()
        self._strip = 0  # the height of the strip under the viewport that holds the hint
        bar = self.horizontalScrollBar()
        bar.rangeChanged.connect(lambda _lo, _hi: self._show_hint())
        bar.valueChanged.connect(lambda _v: self._show_hint())

    def rebind(self, view: AttemptView | None, mode: str, new_lanes: int | None = None) -> None:
        """Bind lanes to the current calls (after a re-judge, seek or new file), showing at
        most ``new_lanes`` new lanes, spare ones only (None: all it takes, built if need be);
        :meth:`sync` adds the others."""
        old, self._mode, self.bound_to = self.bound_to, mode, view
        # A rewound replay (F5, a seek back) shows the same calls again: hidden lanes keep their
        # place in the row (a lane reappearing is only painted). Anything else gives it back.
        if view is None:
            if old is not None:  # rewound to before the first chunk
                self._keep_for = old.source
        elif old is None:  # the attempt (re)appears: still the rewound one?
            if view.source is None or view.source is not self._keep_for:
                self._keep_for = None
        elif (
            view.source is not None
            and view.source is old.source
            and len(view.state.events) < len(old.state.events)
        ):  # a seek back
            self._keep_for = view.source
        else:  # another attempt or file, or a re-judge
            self._keep_for = None
        if view is None or old is None or (view.source, view.number) != (old.source, old.number):
            self.first = 0  # another attempt starts from its first call
        rewound = self._keep_for is not None
        calls, verdicts = self._window(view)
        while len(self.lanes) > len(calls):  # kept, hidden, for reuse (a few dozen at most)
            lane = self.lanes.pop()
            lane.unbind()
            lane.hide()
            if len(self._spare) < MAX_SPARE:
                self._spare.append(lane)
            else:
                self._row.removeWidget(lane)
                lane.deleteLater()
        for lane in self._spare:
            policy = lane.sizePolicy()
            if policy.retainSizeWhenHidden() != rewound:
                policy.setRetainSizeWhenHidden(rewound)
                lane.setSizePolicy(policy)
        built = 0
        for i, call in enumerate(calls):
            if i >= len(self.lanes):
                if new_lanes is not None and (built >= new_lanes or not self._spare):
                    break
                self._add_lane(new_lanes is not None)
                built += 1
            self.lanes[i].bind(call, verdicts[i], view.state.events if view else (), mode)
        if built:
            self._fit_row()
        self._results(view)
        self._show_empty(view)
        self._show_hint()
        if new_lanes is None:
            self.hold(False, now=False)

    def sync(
        self, view: AttemptView | None, rows: bool = True, new_lanes: int | None = None
    ) -> bool:
        """Once per flush: new lanes for new calls (at most ``new_lanes``, spare ones only:
        :meth:`prepare` builds them ahead; None: all), then each lane's sync (fragment rows
        only with ``rows``: see DocumentViews.on_flush). ``new_lanes`` says data streams in
        (lanes out of sight wait to show their text afresh). True when a lane appeared."""
        if view is None:
            return False
        calls, verdicts = self._window(view)
        added = 0
        for i, call in enumerate(calls):
            v = verdicts[i]
            if i >= len(self.lanes):
                if new_lanes is not None and (added >= new_lanes or not self._spare):
                    break
                self._add_lane(new_lanes is not None).bind(call, v, view.state.events, self._mode)
                added += 1
            elif self.lanes[i].call is not call:
                self.lanes[i].bind(call, v, view.state.events, self._mode)
            else:
                self.lanes[i].sync(v, self._mode, rows, streaming=new_lanes is not None)
        self._results(view)
        self._show_empty(view)
        if added:
            self._fit_row()
            self._show_hint()
        if new_lanes is None:
            self.hold(False, now=False)
        return added > 0

    def hold(self, on: bool, now: bool = True) -> None:
        """Hold the row (every lane at its own width) or let the lanes stretch to fill it
        (``now``, or in the next turn of the loop: data no longer streams in)."""
        if on or now:
            self._settle.stop()
        elif self.held and not self._settle.isActive():
            self._settle.start()
        if (on or now) and on != self.held:
            self.held = on
            for lane in self.lanes + self._spare:
                lane.setMaximumWidth(lane.minimumWidth() if on else UNHELD)

    def _fit_row(self) -> None:
        """Widen the row for the lanes just added before it is laid out with them (laid out at
        its old width first, each lane on show moved twice and repainted whole)."""
        inner = self._inner
        width = max(self.viewport().width(), inner.minimumSizeHint().width())
        if width > inner.width():
            inner.resize(width, inner.height())

    def _window(self, view: AttemptView | None) -> tuple[list[ToolCall], list[CallVerdict | None]]:
        """The calls the lanes show (:data:`MAX_LANES` from ``first``) and their verdicts."""
        if view is None:
            return [], []
        calls = view.state.calls
        if self.first >= len(calls):
            self.first = 0
        end = self.first + MAX_LANES
        verdicts: list[CallVerdict | None] = list(view.verdicts[self.first : end])
        window = list(calls[self.first : end])
        return window, verdicts + [None] * (len(window) - len(verdicts))

    def show_slot(self, slot: int) -> LaneWidget | None:
        """The lane of call ``slot``, moving the lanes to its window first if need be."""
        view = self.bound_to
        if view is None or not 0 <= slot < len(view.state.calls):
            return None
        if not self.first <= slot < self.first + MAX_LANES:
            self.first = slot - slot % MAX_LANES
            self.rebind(view, self._mode)
        i = slot - self.first
        return self.lanes[i] if i < len(self.lanes) else None

    def _show_empty(self, view: AttemptView | None) -> None:
        """The placeholder of an attempt without calls (:func:`.empty.empty_text`)."""
        text = empty_text(view, self.analysis)
        if self._empty.text() != text:
            self._empty.setText(text)
        self._empty.setVisible(view is None or not view.state.calls)

    # -- lanes out of sight ----------------------------------------------------------------

    def off_screen(self) -> tuple[int, int]:
        """How many lanes are not wholly in view on the left and on the right."""
        left = self.horizontalScrollBar().value()
        right = left + self.viewport().width()
        shown = [lane.geometry() for lane in self.lanes if not lane.isHidden()]
        return sum(g.left() < left for g in shown), sum(g.right() > right for g in shown)

    def out_of_view(self) -> int:
        """Lanes showing less than half of what they could (one filling the view is in it)."""
        left, width = self.horizontalScrollBar().value(), self.viewport().width()
        shown = [lane.geometry() for lane in self.lanes if not lane.isHidden()]
        seen = [(min(g.right(), left + width) - max(g.left(), left), g.width()) for g in shown]
        return sum(v < min(w, width) / 2 for v, w in seen)

    def scroll_to_next(self) -> None:
        """Bring the next lane off-screen on the right (else the first on the left) into view."""
        left, right = self.horizontalScrollBar().value(), self.viewport().width()
        lanes = [lane for lane in self.lanes if not lane.isHidden()]
        after = [lane for lane in lanes if lane.geometry().right() > left + right]
        before = [lane for lane in lanes if lane.geometry().left() < left]
        if after:  # its right edge to the viewport's (its left edge, if it is wider)
            g = after[0].geometry()
            self.horizontalScrollBar().setValue(min(g.left(), g.right() - right + 1))
        elif self._beyond() > 0 or (self.first and not before):  # the next page of calls
            self.show_slot(self.first + len(self.lanes) if self._beyond() > 0 else 0)
            self.horizontalScrollBar().setValue(0)
        elif before:
            self.horizontalScrollBar().setValue(before[0].x())

    def _beyond(self) -> int:
        """Calls of the attempt on show past the lanes' window (``first`` + :data:`MAX_LANES`)."""
        view = self.bound_to
        return max(0, len(view.state.calls) - self.first - MAX_LANES) if view is not None else 0

    def _show_hint(self) -> None:
        left, right = self.off_screen() if self.horizontalScrollBar().maximum() else (0, 0)
        beyond = self._beyond()
        paged = self.first > 0 or beyond > 0  # some calls have no lane (MAX_LANES)
        if not left and not right and not paged:
            self.hint.hide()
            self._reserve(0)
            return
        lanes = f"{len(self.lanes)} lanes"
        if paged:
            calls = self.first + len(self.lanes) + beyond
            lanes = f"lanes {self.first + 1}–{self.first + len(self.lanes)} of {calls:,}"
        off = f" · {hidden} off-screen" if (hidden := self.out_of_view()) else ""
        arrows = ("← " if left else "") + ("→" if right or beyond > 0 else "")
        text = f"{lanes}{off} {arrows.strip() or '↺'}"  # ↺: back to the first lanes
        if self.hint.text() != text:
            self.hint.setText(text)
            self.hint.adjustSize()
        self._reserve(self.hint.height() + 2 * HINT_GAP)
        self._place_hint()
        self.hint.show()
        self.hint.raise_()

    def _reserve(self, height: int) -> None:
        """Give up a strip of ``height`` pixels under the viewport (0: none); only a change
        re-lays out the lanes."""
        if height != self._strip:
            self._strip = height
            self.setViewportMargins(0, 0, 0, height)

    def _place_hint(self) -> None:
        """The hint in its strip, at the right (under the viewport, above the scroll bar)."""
        vp = self.viewport().geometry()
        self.hint.move(vp.right() - self.hint.width() - 6, vp.bottom() + 1 + HINT_GAP)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._show_hint()

    def _results(self, view: AttemptView | None) -> None:  # the loop's and the stream's
        by_slot = {r.slot: r for r in view.results} if view is not None else {}
        for lane in self.lanes:
            lane.show_result(by_slot.get(lane.call.slot) if lane.call is not None else None)
            show_reported(lane, view.state if view is not None else None)

    def _add_lane(self, streaming: bool = False) -> LaneWidget:
        """The next lane: a spare one if any (a rewound replay left them, or :meth:`prepare`
        built one: building one mid-replay holds the loop), else a new one."""
        grows = not (self._spare and self._spare[-1].sizePolicy().retainSizeWhenHidden())
        self.hold(self.held or (streaming and grows))  # (a rewound replay's lanes keep theirs)
        if self._spare:
            lane = self._spare.pop()
            if grows:
                lane.setGeometry(self._slot(lane))  # shown at (0, 0), it is painted there
            self._row.setEnabled(False)  # showing it would lay the row out at its old width
            lane.show()  # (every lane squeezed, then moved back: see _fit_row)
            self._row.setEnabled(True)
        else:
            lane = self._new_lane()
        self.lanes.append(lane)
        return lane

    def _slot(self, lane: LaneWidget) -> QRect:
        """Where a lane added after the last one goes (at its own width)."""
        m, height = self._row.contentsMargins(), self._inner.height()
        last = self.lanes[-1].geometry() if self.lanes else None
        x = last.right() + 1 + self._row.spacing() if last is not None else m.left()
        return QRect(x, m.top(), lane.minimumWidth(), max(height - m.top() - m.bottom(), 1))

    def _new_lane(self) -> LaneWidget:
        lane = LaneWidget(compact=self.compact)
        lane.setMaximumWidth(lane.minimumWidth() if self.held else UNHELD)
        elide_json_column(lane.table)
        lane.fragment_selected.connect(self.fragment_selected)
        self._row.insertWidget(len(self.lanes) + len(self._spare), lane, 1)
        return lane

    def wants_spare(self, view: AttemptView | None) -> bool:
        """Is no spare lane ready for a call of ``view`` that has none: one waiting (within
        :data:`MAX_LANES`), or the next one of a stream that has calls and goes on?"""
        if view is None or view is not self.bound_to or self._spare:
            return False
        lanes, calls = len(self.lanes), len(view.state.calls) - self.first
        more = lanes < calls or (0 < lanes == calls and not view.state.ended)
        return more and lanes < MAX_LANES

    def prepare(self) -> LaneWidget:
        """Build the next lane ahead, hidden and polished (10 ms to make, 8 to polish): while
        data streams in a lane is built in one flush and shown in a later one."""
        lane = self._new_lane()
        lane.hide()  # before the layout's queued show: it stays hidden
        lane.ensurePolished()
        lane.setGeometry(self._slot(lane))  # where it will show (see _add_lane)
        self._spare.append(lane)
        return lane

    def select_seq(self, seq: int) -> LaneWidget | None:
        """Select the fragment from wire event ``seq`` in whichever lane has it (a call past
        the lanes built gets lanes first)."""
        for lane in self.lanes:
            if lane.select_seq(seq):
                self.ensureWidgetVisible(lane)
                return lane
        view = self.bound_to
        calls = view.state.calls if view is not None else []
        if len(calls) <= len(self.lanes):
            return None
        slot = next((c.slot for c in calls if holds_seq(c, seq)), None)
        found = self.show_slot(slot) if slot is not None else None
        if found is not None and found.select_seq(seq):
            self.ensureWidgetVisible(found)
            return found
        return None

    def mark_clients(self, badges: dict[int, tuple[str, str]]) -> None:
        """Put ``(badge, tooltip)`` on the lanes of the given call slots (the clients that get
        that call wrong: :mod:`inspector.ui.clients.follow`); the other lanes show none."""
        colour = theme.colour(theme.VERDICT["invalid"]).name()
        for lane in self.lanes:
            text, tip = badges.get(lane.call.slot, (None, "")) if lane.call else (None, "")
            lane.clients.show_marks(text, tip, colour)

    def mark(self, slots: dict[int, str]) -> None:
        """Compare view: put a note (e.g. "≠ verdict differs") on the given lanes."""
        for lane in self.lanes:
            note = slots.get(lane.call.slot) if lane.call else None
            lane.status.set_note(
                "mark", f"<b>≠ {escape(note)}</b>" if note else None, lane.status_width()
            )
