"""The document's views — lanes on top; raw wire, findings, turn and timeline below; the
attempts tree — and how they follow the document.

Invariants:
- Views re-sync on ``flushed`` and rebind on ``rejudged``; they read the document, never
  change it (a selection aside).
- While data streams in, the lanes' text and headers follow every flush; the heavy jobs
  (announcing table rows repaints whole tables through Python, the side panes scan the
  stream) take turns, at most one per flush, each at most every so often, so no flush pays
  for all of them at once. A flush that is not streaming, a paused replay and an ended
  session bring everything up to date at once.
- Selection survives a re-judge: the selected fragment's wire seq is remembered and
  re-selected in whichever lane holds it afterwards. A new live session starts with nothing
  selected, and the raw pane never shows an event that is not on show.
- The status line always says what is open: the source's name, and "replaying" while the
  replay clock runs (before the first event too), or why nothing is.
"""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QLabel,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QStatusBar,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from inspector.core.analysis.attempt import AttemptView
from inspector.core.analysis.numbering import attempt_places
from inspector.core.base.settings import LITERAL
from inspector.core.clients.registry import LITERAL_MATCHES
from inspector.core.replay.sources import NO_STREAM, LiveSource
from inspector.core.reports import words
from inspector.core.reports.kinds import counts, shows_kinds
from inspector.core.reports.report import findings
from inspector.ui.clients.clients import ClientsPane
from inspector.ui.clients.follow import ClientsFollower
from inspector.ui.document.document import Document
from inspector.ui.document.toolbar import InspectorToolBar
from inspector.ui.lanes.lanes import LanesView
from inspector.ui.panes.panes import AttemptsPane, FindingsPane, RawWirePane, TurnPane
from inspector.ui.timeline.timeline import TimelineView

HEAVY_PERIOD = {"raw": 0.2, "rows": 0.2, "side": 0.25}
"""Seconds between the heavy view jobs while data streams in (raw wire rows, lane fragment
rows, the side panes that scan the whole stream); the final flush and every re-judge bring
them up to date at once."""
LANES_PER_FLUSH = 2
"""Lanes built at most per flush while data streams in (building, polishing and first
painting one costs some 15 ms): the others come in the next flushes."""
EMPTY_ID_AS = {LITERAL: f" (as {LITERAL_MATCHES})"}
"""The status line names the client replica an empty-id policy reproduces."""
TABS = ("raw", "problems", "clients", "turn", "timeline")
"""The panes under the lanes, in tab order (``open --view NAME`` picks one)."""


class DocumentViews:
    """Every view of one document, kept in step with it."""

    def __init__(self, doc: Document, bar: InspectorToolBar, status: QStatusBar) -> None:
        self.doc, self.bar, self.status = doc, bar, status
        self.lanes = LanesView()
        self.raw = RawWirePane()
        self.problems = FindingsPane()
        self.turn = TurnPane()
        self.timeline = TimelineView()
        self.tabs = QTabWidget()
        self.tabs.addTab(self.raw, "Raw wire")
        self.tabs.addTab(self.problems, "Problems && quirks")
        self.clients = ClientsPane()
        """What each client library would hand the agent (:mod:`inspector.ui.clients.clients`)."""
        self.tabs.addTab(self.clients, "Clients")
        self.tabs.addTab(self.turn, "Turn")
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.timeline)
        self.tabs.addTab(scroll, "Timeline")
        self.split = QSplitter(Qt.Orientation.Vertical)
        """Lanes above, the tabs below: the window's central widget."""
        self.notice = QLabel()
        """In the lanes' place while the document shows why a file is no attempt ("not a
        stream: …")."""
        self.notice.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.notice.setWordWrap(True)
        self.notice.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.top = QStackedWidget()
        """The lanes, or the notice in their place."""
        self.top.addWidget(self.lanes)
        self.top.addWidget(self.notice)
        self.left_line = QLabel()
        """Above the lanes when the attempt on show records where its agent hung up (a
        proxied stream read on after it): which chunks the agent had."""
        self.left_line.setObjectName("agent-left")
        self.left_line.hide()
        above = QWidget()
        column = QVBoxLayout(above)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.left_line)
        column.addWidget(self.top, 1)
        self.split.addWidget(above)
        self.split.addWidget(self.tabs)
        self.split.setSizes([520, 280])
        self.attempts = AttemptsPane()
        """The attempts tree (the window docks it)."""
        self.selected_seq: int | None = None
        """The wire seq of the selected fragment or event, kept across re-judges."""
        self._heavy = {job: (0.0, period) for job, period in HEAVY_PERIOD.items()}
        self.clients_follower = ClientsFollower(self, self.clients)
        """When the client replicas run, and their verdict in the status and the lanes."""
        doc.flushed.connect(self.on_flush)
        doc.rejudged.connect(self.on_rejudged)
        doc.loaded.connect(lambda _name: self._new_source())
        doc.progress.connect(lambda _done, _total: self.replay_controls())
        doc.playing_changed.connect(self.session_ended)
        self.lanes.fragment_selected.connect(self._fragment_selected)
        self.raw.event_selected.connect(self._event_selected)
        self.problems.jump.connect(self.select)
        self.tabs.currentChanged.connect(lambda _i: self.refresh_side())

    # -- following the document ----------------------------------------------------------

    def on_flush(self) -> None:
        """New data: see the module docstring for who does what, when."""
        view = self.doc.view
        if not self.doc.streaming:
            self.catch_up()
            return
        if view is not None and self.lanes.bound_to is not view:  # a new attempt: binding
            self.lanes.analysis = self.doc.analysis  # its other rounds, linked
            self.lanes.rebind(view, self.doc.settings.validation, LANES_PER_FLUSH)
            return  # it is this flush's work
        if self.lanes.sync(view, rows=False, new_lanes=LANES_PER_FLUSH):
            return  # lanes appeared: painting them is this flush's work, the heavy jobs wait
        if self.lanes.wants_spare(view):
            self.lanes.prepare()  # the next call's lane, built ahead: this flush's work
            return
        now = time.monotonic()
        due = [
            (at + period, job) for job, (at, period) in self._heavy.items() if now - at >= period
        ]
        if due:
            job = min(due)[1]
            if job == "raw":
                self.raw.sync(view.state if view else None)
            elif job == "rows":
                self.lanes.sync(view, new_lanes=LANES_PER_FLUSH)
            else:  # quirks, timeline: whole-stream scans
                self.refresh_side()
            took = time.monotonic() - now
            # A slow job runs less often, to at most ~1/3 of the time. Not less often than
            # that: the side panes scan what arrived since their last run, so their cost grows
            # with the period, and a longer period would feed on itself.
            period = max(HEAVY_PERIOD[job], 3 * took)
            self._heavy[job] = (time.monotonic(), period)

    def catch_up(self) -> None:
        """Every view up to date now (a step, a seek, the end of a replay or session)."""
        view = self.doc.view
        self.raw.set_masked(view.source.masked if view and view.source else ())
        self.raw.sync(view.state if view else None)
        if view is not None and self.lanes.bound_to is not view:
            self.lanes.analysis = self.doc.analysis  # its other rounds, linked
            self.lanes.rebind(view, self.doc.settings.validation)
        else:
            self.lanes.sync(view)
        self.refresh_side()
        now = time.monotonic()
        self._heavy = {job: (now, period) for job, period in HEAVY_PERIOD.items()}

    def on_rejudged(self) -> None:
        """New call objects: every view rebinds, the selection is found again."""
        view = self.doc.view
        s = self.doc.settings
        self.replay_controls()
        self.bar.show_settings(s.validation, s.empty_id)
        self.raw.set_masked(view.source.masked if view and view.source else ())
        self.raw.reset(view.state if view else None)
        self.lanes.analysis = self.doc.analysis  # its other rounds, linked
        self.lanes.rebind(view, s.validation)
        self.show_notice()
        self.refresh_side()
        if self.selected_seq is not None:
            self.select(self.selected_seq)

    def replay_controls(self) -> None:
        """Replay needs a whole capture: off while a file loads, or for a source without one."""
        d = self.doc
        why = "loading…" if d.loading else d.source.no_replay_reason if d.source else ""
        no_stream = why == NO_STREAM  # "1 / 1 chunks" of a refused connection: no chunk came
        self.bar.set_replayable(
            d.replayer is not None and not d.loading and not no_stream, why, uncounted=no_stream
        )

    def session_ended(self, running: bool) -> None:
        """Replay paused or a live session ended: the throttled views catch up at once."""
        if not running:
            self.catch_up()

    def refresh_side(self) -> None:
        """The panes that read the whole stream: findings, turn, attempts, timeline (when on
        show), and the status line."""
        a = self.doc.analysis
        if self.tabs.currentIndex() == self.tabs.count() - 1:
            self.timeline.refresh(a)
        self.problems.model_.set_findings(findings(a, self.doc.view) if a and a.attempts else [])
        self.turn.show_view(self.doc.view)
        self.show_left(self.doc.view)
        self.attempts.show_analysis(a, self.doc.attempt)
        self.clients_follower.refresh()  # runs nothing while data streams in
        self.show_status()

    def show_left(self, view: AttemptView | None) -> None:
        """Say above the lanes where the agent hung up, when the attempt on show records it."""
        left = view.agent_left if view is not None else None
        if left is None:
            self.left_line.hide()
            return
        text = (
            f" ⏏ The agent hung up after chunk {left.chunks} ({left.relayed:,} bytes): what "
            "follows was read from the upstream for the recording only "
        )
        if self.left_line.text() != text:
            self.left_line.setText(text)
            self.left_line.setToolTip(
                "The recording proxy kept reading the upstream after the agent disconnected "
                "(docs/proxy.md, When the agent hangs up), so the lanes and the clients judge "
                "the whole stream; the agent itself had only the chunks before this point."
            )
        self.left_line.show()

    def show_notice(self) -> None:
        """The document's notice in the lanes' place, or the lanes."""
        notice = self.doc.notice
        if notice:
            self.notice.setText(notice)
        self.top.setCurrentWidget(self.notice if notice else self.lanes)

    def show_status(self) -> None:
        """The status line: what is open, dialect, settings, calls, quirks, and the attempt on
        show."""
        a, view, source = self.doc.analysis, self.doc.view, self.doc.source
        if source is None:
            notice = self.doc.notice or "No capture open"
            self.status.showMessage(f"{notice} — File ▸ Open, Samples, or drop a file")
            return
        name = Path(source.name).name if source.path else source.name
        opened = f"{name} · replaying · " if self.doc.playing else f"{name} · "
        if a is None or view is None:  # open, but nothing has arrived yet
            waiting = "live" if isinstance(source, LiveSource) else "at chunk 0"
            self.status.showMessage(f"{opened}no event yet ({waiting})")
            return
        s = a.settings
        calls = [v for v in view.verdicts if not v.orphan]
        bad = sum(not v.valid and not v.call.open for v in calls)  # open calls: not judged yet
        judged = "not checked" if s.validation == "off" and not bad else f"{bad} invalid"
        counted = f"{len(calls)} call(s)"  # hosted items apart from the agent's calls
        if shows_kinds(view):
            counted = "{} agent call(s) · {} hosted item(s)".format(*counts(view))
        record = next((r for r in a.records if r.attempt == view.number), None)
        word = words.label(words.attempt_word(view, record, a.capture))  # the one vocabulary
        head = self.clients_follower.headline  # the session's verdict, clients included
        self.status.setProperty("keep-whole", head)  # elided last (ui/shell/statusline.py)
        self.status.showMessage(
            f"{opened}{f'{head} · ' if head else ''}{a.dialect or 'dialect?'} · "
            f"validation {s.validation} · empty-id {s.empty_id}{EMPTY_ID_AS.get(s.empty_id, '')} · "
            f"{counted}, {judged} · {len(view.quirks)} quirk(s) · "
            f"{attempt_places(a.attempts)[view.number]} {word}"
        )

    def show_tab(self, name: str) -> None:
        """Bring the pane called ``name`` (:data:`TABS`) to the front."""
        self.tabs.setCurrentIndex(TABS.index(name))

    def show_clients(self) -> None:
        """View ▸ Clients: the Clients view to the front."""
        self.show_tab("clients")

    def clients_on_show(self) -> bool:
        """Is the Clients view the pane on show (the follower fills it only then)?"""
        return self.tabs.currentWidget() is self.clients

    def mark_lanes(self, badges: dict[int, tuple[str, str]]) -> None:
        """The clients that get each lane's call wrong, as its badge."""
        self.lanes.mark_clients(badges)

    # -- linking -------------------------------------------------------------------------

    def _fragment_selected(self, seq: int) -> None:
        self.selected_seq = seq
        self.raw.select_seq(seq)

    def _event_selected(self, seq: int) -> None:
        self.selected_seq = seq
        self.lanes.select_seq(seq)

    def select(self, seq: int) -> None:
        """Select wire event ``seq`` in the raw wire and in the lane that holds it (an event
        not on show, e.g. before a rewound replay's position, clears the raw pane's detail)."""
        self.lanes.select_seq(seq)
        if seq < self.raw.model.rowCount():
            self.raw.select_seq(seq)
        else:
            self.raw.detail.clear()

    def show_event(self, attempt: int, seq: int) -> None:
        """Select wire event ``seq`` of ``attempt`` in the lanes and the raw wire, showing that
        attempt first; when no lane holds the event (a comment, [DONE]), the Raw wire tab
        comes to the front so the selection is seen."""
        doc = self.doc
        a, view = doc.analysis, doc.view
        if a is None or view is None or not 0 < attempt <= len(a.attempts):
            return
        if view.number != attempt:
            doc.attempt = None if attempt == len(a.attempts) else attempt
            self.on_rejudged()
            self._select_attempt(attempt)
        self.selected_seq = seq
        lane = self.lanes.select_seq(seq)
        self.raw.select_seq(seq)
        if lane is None:
            self.tabs.setCurrentWidget(self.raw)

    def _select_attempt(self, attempt: int) -> None:
        """The attempts tree selects ``attempt``, as if it had been clicked (without echo)."""
        tree = self.attempts
        flags = Qt.MatchFlag.MatchWildcard | Qt.MatchFlag.MatchRecursive
        for item in tree.findItems("*", flags):
            if tuple(item.data(0, Qt.ItemDataRole.UserRole) or ()) == (attempt, None):
                tree.blockSignals(True)
                tree.setCurrentItem(item)
                tree.blockSignals(False)
                return

    def _new_source(self) -> None:
        """Another stream shows nothing of the last one: no selection, no raw detail, the
        lanes scrolled back to their start (a live session becoming its own capture is the
        same stream: it keeps its place)."""
        if self.doc.continued:
            return
        self.selected_seq = None
        self.raw.table.clearSelection()
        self.raw.detail.clear()
        self.lanes.horizontalScrollBar().setValue(0)
        self.lanes.verticalScrollBar().setValue(0)
        for lane in self.lanes.lanes:
            lane.table.clearSelection()

    def show_call(self, slot: int) -> None:
        """Scroll to the lane of call ``slot`` and select its first fragment."""
        lane = self.lanes.show_slot(slot)
        if lane is not None:
            self.lanes.ensureWidgetVisible(lane)
            if lane.model.rowCount():
                lane.table.selectRow(0)
