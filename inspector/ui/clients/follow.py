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
- Which attempts are judged follows one rule (:func:`~inspector.core.clients.judge.
  judged_attempts`): the final attempt of each round, or the attempt the user selected in the
  Attempts pane; the Clients view's header says which.
- A lane's badge names every client that would not hand its call over as shown, for the
  attempt on show only (:func:`inspector.core.reports.clientdiff.lane_marks`).
- The follower reaches the views only through :class:`ClientsHost` (they build it; it never
  imports them): the lanes' badges, whether the view is on show, the way to a wire event.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

from PySide6.QtCore import QTimer

from inspector.core.analysis.numbering import place_names
from inspector.core.analysis.session import Analysis, AttemptView
from inspector.core.clients import registry
from inspector.core.clients.base import Replica
from inspector.core.clients.cost import cost
from inspector.core.clients.judge import judge_attempt, judged_attempts
from inspector.core.reports.clientdiff import badge, lane_marks
from inspector.core.reports.clients import ClientsVerdict, clients_verdict
from inspector.core.reports.headline import DASH, headline, session_word
from inspector.core.reports.words import shown_word
from inspector.ui.clients.clients import ClientsPane
from inspector.ui.document.document import Document

AUTO_SECONDS = 0.5
"""The replicas run unasked only when :func:`~inspector.core.clients.cost.cost` says they take
at most this long (the window stands still meanwhile)."""
NOT_RUN = "clients not run"
"""The headline's second half while a large capture waits for the user to ask."""
RUNNING = "clients running"
"""The headline's second half while the replicas run tick by tick."""

State = Literal["none", "streaming", "on demand", "running", "judged"]


class ClientsHost(Protocol):
    """What the follower needs of the views it serves (the document's views are the one): the
    document, whether the Clients view is on show, and where the verdict shows besides it."""

    @property
    def doc(self) -> Document: ...

    def clients_on_show(self) -> bool:
        """Is the Clients view the pane on show?"""
        ...

    def mark_lanes(self, badges: dict[int, tuple[str, str]]) -> None:
        """Put ``(badge, tooltip)`` on the lanes of the slots in ``badges`` (the others: none)."""
        ...

    def show_event(self, attempt: int, seq: int) -> None:
        """Select wire event ``seq`` of ``attempt`` in the lanes and the raw wire."""
        ...

    def show_status(self) -> None:
        """Say the headline again on the status line."""
        ...


class ClientsFollower:
    """Keeps the clients' verdict of the document on show, and shows it."""

    def __init__(self, views: ClientsHost, pane: ClientsPane) -> None:
        self.views = views
        self.pane = pane
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
        attempt = self.views.doc.attempt
        verdict = clients_verdict(a, registry.REPLICAS, attempt)  # ran tick by tick: cached
        self._set("judged", verdict, key)
        self.headline = headline(a, verdict)

    def _start(self, a: Analysis, key: Any) -> None:
        """Run the replicas one (replica, attempt) per tick."""
        self._set("running", None, key)
        judged = judged_attempts(a, self.views.doc.attempt)
        self._todo = [
            (view, r)
            for r in registry.REPLICAS
            for view in judged
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

    def _key_of(self, a: Analysis) -> tuple[Any, ...]:
        states = tuple((v.state, len(v.state.events), v.state.ended) for v in a.attempts)
        attempt = self.views.doc.attempt
        return (a, a.settings, states, registry.REPLICAS, attempt)  # identity for core objects

    # -- where ------------------------------------------------------------------------------

    def _show(self) -> None:
        v, views = self.verdict, self.views
        view = views.doc.view
        marks = lane_marks(v, view) if v is not None and view is not None else {}
        views.mark_lanes({slot: badge(m) for slot, m in marks.items()})
        if not views.clients_on_show():
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
        """The diverging chunk: wire event ``seq`` of ``attempt``, selected in the lanes and the
        raw wire (the views show that attempt first)."""
        self.views.show_event(attempt, seq)
