"""When the client replicas run for the window, and where their verdict shows: the Clients
view, the status line's headline and the lanes' badges.

Invariants:
- The replicas run lazily, never per fragment: not while data streams in (the document's
  clock or a load feeds it), only once the stream stands still (a replay paused or at its end,
  a session or load that ended) and only when what they read changed: another analysis, other
  settings, more events or an attempt that ended (:meth:`ClientsFollower.refresh` is called
  from every side-pane refresh and is a few comparisons when nothing changed). The verdict
  itself is cached per stream state in the core.
- The replicas run on the UI thread (one thread owns the core), so the window never stands
  still for long on their account: a session they read within :data:`AUTO_SECONDS` in all
  (:func:`cost`) is judged at once; one that each replica reads within it is judged one
  replica and attempt per timer tick (the view and the status say how far it got); a larger
  one only when the user asks (the Clients view's Run button), then tick by tick too.
- The Clients view is filled only while it is on show; the headline and the badges are
  always kept.
- A lane's badge names every client that would not hand its call over as shown, for the
  attempt on show only (:func:`inspector.core.reports.clientdiff.lane_marks`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from PySide6.QtCore import Qt, QTimer

from inspector.core.analysis.numbering import place_names
from inspector.core.analysis.session import Analysis, AttemptView
from inspector.core.clients import registry
from inspector.core.clients.base import Replica
from inspector.core.clients.judge import judge_attempt
from inspector.core.reports.clientdiff import badge, lane_marks
from inspector.core.reports.clients import ClientsVerdict, clients_verdict
from inspector.core.reports.headline import DASH, headline, session_word
from inspector.core.reports.words import shown_word

if TYPE_CHECKING:
    from inspector.ui.views.views import DocumentViews

AUTO_SECONDS = 0.5
"""The replicas run unasked only when :func:`cost` says they take at most this long (the window
stands still meanwhile)."""
SECONDS_PER_EVENT = 13e-6
"""What one replica takes per wire event it reads, on average over the replicas speaking the
dialect: measured on a shared 2-core machine, about 10 µs over the six OpenAI-compatible
replicas on the large-arguments sample (21,763 events: 5 µs openai-python, which skips its
chunks, to 14 µs langchain) and 13 µs on ``make bench``'s 8 calls x 16 KiB chat stream (27k
events: 6 µs by-id to 22 µs openai-python)."""
NOT_RUN = "clients not run"
"""The headline's second half while a large capture waits for the user to ask."""
RUNNING = "clients running"
"""The headline's second half while the replicas run tick by tick."""
LITERAL_MATCHES = "by-id"
"""The replica the empty-id ``literal`` policy reproduces (the toolbar says so)."""

State = Literal["none", "streaming", "on demand", "running", "judged"]


def cost(a: Analysis) -> tuple[float, float]:
    """About how many seconds the replicas that speak ``a``'s dialects take to read its ended
    attempts: in all, and the slowest single (replica, attempt) run."""
    ended = [len(v.state.events) for v in a.attempts if v.state.ended]
    dialects = {v.state.dialect_name for v in a.attempts}
    speaking = sum(1 for r in registry.REPLICAS if r.dialects & dialects)
    most = max(ended, default=0) if speaking else 0
    return sum(ended) * speaking * SECONDS_PER_EVENT, most * SECONDS_PER_EVENT


class ClientsFollower:
    """Keeps the clients' verdict of the document on show, and shows it."""

    def __init__(self, views: DocumentViews) -> None:
        self.views = views
        self.pane = views.clients
        self.verdict: ClientsVerdict | None = None
        """The verdict on show (None: not run, or nothing to judge)."""
        self.state: State = "none"
        self.headline = ""
        """The session's verdict in one line, clients included (``valid — breaks 2 clients:
        …``): :func:`inspector.core.reports.headline.headline`; "" while data streams in."""
        self._key: tuple[Any, ...] | None = None  # what the verdict (or its absence) is for
        self._asked: tuple[Any, ...] | None = None  # the large capture the user asked to judge
        self._shown: tuple[Any, ...] | None = None  # what the pane shows
        self._todo: list[tuple[AttemptView, Replica]] = []  # runs left, one per tick
        self._done = 0
        self._tick = QTimer(self.pane)
        self._tick.setSingleShot(True)
        self._tick.setInterval(1)  # a 0 ms timer starves the others (DEVELOPERS.md)
        self._tick.timeout.connect(self._step)
        self.pane.jump.connect(self.jump)
        self.pane.run_requested.connect(self.run_now)

    # -- when -------------------------------------------------------------------------------

    def refresh(self) -> None:
        """Bring the verdict, the pane (if on show) and the lane badges up to date; nothing
        runs while data streams in (see the module's invariants)."""
        doc = self.views.doc
        a = doc.analysis
        if a is None or not a.attempts or not registry.REPLICAS:
            self._set("none", None, None)
        elif doc.streaming:
            self._set("streaming", None, None)
        else:
            key = self._key_of(a)
            if key != self._key:
                seconds, slowest = cost(a)
                if seconds <= AUTO_SECONDS:
                    self._judged(a, key)
                elif slowest <= AUTO_SECONDS or key == self._asked:
                    self._start(a, key)
                else:
                    self._set("on demand", None, key)
                    why = f" (about {seconds:.0f} s: View ▸ Clients, Run)"
                    self.headline = shown_word(session_word(a)) + DASH + NOT_RUN + why
        self._show()

    def _judged(self, a: Analysis, key: Any) -> None:
        verdict = clients_verdict(a, registry.REPLICAS)  # what ran tick by tick is cached
        self._set("judged", verdict, key)
        self.headline = headline(a, verdict)

    def _start(self, a: Analysis, key: Any) -> None:
        """Run the replicas one (replica, attempt) per tick."""
        self._set("running", None, key)
        self._todo = [
            (view, r)
            for r in registry.REPLICAS
            for view in a.attempts
            if view.state.ended and view.state.dialect_name in r.dialects
        ]
        self._done = 0
        self.headline = shown_word(session_word(a)) + DASH + self.progress()
        self._tick.start()

    def progress(self) -> str:
        """How far the replicas running tick by tick got: ``clients running (2 of 6)``."""
        return f"{RUNNING} ({self._done} of {self._done + len(self._todo)})"

    def _step(self) -> None:
        a = self.views.doc.analysis
        if self.state != "running" or a is None or self._key_of(a) != self._key:
            return  # something else is on show now: refresh() decides afresh
        if self._todo:
            view, replica = self._todo.pop(0)
            judge_attempt(view, replica)  # cached in the core for clients_verdict
            self._done += 1
            self.headline = shown_word(session_word(a)) + DASH + self.progress()
            self._shown = None
            self._tick.start()
        else:
            self._judged(a, self._key)
        self._show()
        self.views.show_status()

    def run_now(self) -> None:
        """The user asked for the replicas (a large capture)."""
        a = self.views.doc.analysis
        if a is None or self.views.doc.streaming:
            return
        self._asked = self._key_of(a)
        self._key = None
        self.refresh()
        self.views.show_status()

    def stop(self) -> None:
        """The window closes: no replica runs after it (the tick timer stops)."""
        self._set("none", None, None)

    def _set(self, state: State, verdict: ClientsVerdict | None, key: Any) -> None:
        self.state, self.verdict, self._key, self.headline = state, verdict, key, ""
        if state != "running":
            self._tick.stop()
            self._todo = []

    @staticmethod
    def _key_of(a: Analysis) -> tuple[Any, ...]:
        states = tuple((v.state, len(v.state.events), v.state.ended) for v in a.attempts)
        return (a, a.settings, states, registry.REPLICAS)  # core objects compare by identity

    # -- where ------------------------------------------------------------------------------

    def _show(self) -> None:
        v, views = self.verdict, self.views
        view = views.doc.view
        marks = lane_marks(v, view) if v is not None and view is not None else {}
        views.lanes.mark_clients({slot: badge(m) for slot, m in marks.items()})
        if views.tabs.currentWidget() is not self.pane:
            return
        shown = (self.state, id(v), id(views.doc.analysis))
        if shown == self._shown:
            return
        self._shown = shown
        if v is not None:
            a = views.doc.analysis
            places = place_names(a.attempts) if a is not None and len(a.attempts) > 1 else {}
            self.pane.show_verdict(v, places)
        elif self.state == "streaming":
            self.pane.show_message("The client replicas run once the stream stands still.")
        elif self.state == "running":
            self.pane.show_message(f"The client replicas are reading the stream: {self.progress()}")
        elif self.state == "on demand":
            a = views.doc.analysis
            n = sum(len(x.state.events) for x in a.attempts) if a is not None else 0
            seconds = cost(a)[0] if a is not None else 0.0
            self.pane.show_message(
                f"This session holds {n:,} wire events: the client replicas would keep the "
                f"window busy for about {seconds:.0f} s, so they run on it only when asked.",
                run=True,
            )
        elif not registry.REPLICAS:
            self.pane.show_message("No client replica is registered.")
        else:
            self.pane.show_message("No capture open.")

    # -- the diverging chunk ------------------------------------------------------------------

    def jump(self, attempt: int, seq: int) -> None:
        """Select wire event ``seq`` of ``attempt`` in the lanes and the raw wire, showing that
        attempt first; when no lane holds the event (a comment, [DONE]), the Raw wire tab
        comes to the front so the selection is seen."""
        views, doc = self.views, self.views.doc
        a, view = doc.analysis, doc.view
        if a is None or view is None or not 0 < attempt <= len(a.attempts):
            return
        if view.number != attempt:
            doc.attempt = None if attempt == len(a.attempts) else attempt
            views.on_rejudged()
            self._select_attempt(attempt)
        views.selected_seq = seq
        lane = views.lanes.select_seq(seq)
        views.raw.select_seq(seq)
        if lane is None:
            views.tabs.setCurrentWidget(views.raw)

    def _select_attempt(self, attempt: int) -> None:
        """The attempts tree selects ``attempt``, as if it had been clicked (without echo)."""
        tree = self.views.attempts
        flags = Qt.MatchFlag.MatchWildcard | Qt.MatchFlag.MatchRecursive
        for item in tree.findItems("*", flags):
            if tuple(item.data(0, Qt.ItemDataRole.UserRole) or ()) == (attempt, None):
                tree.blockSignals(True)
                tree.setCurrentItem(item)
                tree.blockSignals(False)
                return
