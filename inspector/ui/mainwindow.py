"""The inspector window: lanes on top, raw wire / findings / turn below, toolbar and menus.

Invariants:
- The window wires widgets to the :class:`Document` and nothing else: no parsing, judging or
  I/O of its own (file dialogs aside). Views re-sync on ``flushed`` and rebind on ``rejudged``.
- Selection survives a re-judge: the selected fragment's wire seq is remembered and
  re-selected in whichever lane holds it afterwards.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings, Qt, QUrl
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QDockWidget,
    QFileDialog,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QWidget,
)

from inspector.core.base.errors import InspectorError
from inspector.core.reports.report import findings
from inspector.core.verdicts.tools import ToolRegistry

from .. import __version__
from ..net.runstate import attempt_places
from .document import Document
from .lanes import LanesView
from .live import DEFAULT_MODEL, DEFAULT_PROFILE, DEFAULT_SCENARIO, LiveController, LiveToolBar
from .loadbar import LoadProgress
from .panes import AttemptsPane, FindingsPane, RawWirePane, TurnPane
from .timeline import TimelineView
from .toolbar import InspectorToolBar

SAMPLES = Path(__file__).resolve().parents[2] / "resources" / "samples"
DOCS = Path(__file__).resolve().parents[2] / "README.md"
FILE_FILTER = "Captures and SSE bodies (*.jsonl *.sse *.txt *.log);;All files (*)"
MAX_RECENT = 8
HEAVY_PERIOD = {"raw": 0.2, "rows": 0.2, "side": 0.25}
"""Seconds between the heavy view jobs while data streams in (raw wire rows, lane fragment
rows, the side panes that scan the whole stream); the final flush and every re-judge bring
them up to date at once."""


class MainWindow(QMainWindow):
    """One document in one window."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Tool-Call Inspector")
        self.setAcceptDrops(True)
        self.doc = Document(self)
        self.settings = QSettings("toolcall-inspector", "toolcall-inspector")
        self.persist_layout = True
        """Save geometry and splitter sizes on close (off for screenshots)."""
        self._selected_seq: int | None = None
        self._compare: QWidget | None = None
        self.load_bar = LoadProgress()
        """Progress and Cancel of a progressive open, in the status bar."""
        self.live_error_box: QMessageBox | None = None
        """The last live-session error shown (non-blocking)."""
        self.lanes = LanesView()
        self.raw = RawWirePane()
        self.problems = FindingsPane()
        self.turn = TurnPane()
        self.tabs = QTabWidget()
        self.tabs.addTab(self.raw, "Raw wire")
        self.tabs.addTab(self.problems, "Problems && quirks")
        self.tabs.addTab(self.turn, "Turn")
        self.timeline = TimelineView()
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.timeline)
        self.tabs.addTab(scroll, "Timeline")
        self._heavy = {job: (0.0, period) for job, period in HEAVY_PERIOD.items()}
        self.split = QSplitter(Qt.Orientation.Vertical)
        self.split.addWidget(self.lanes)
        self.split.addWidget(self.tabs)
        self.split.setSizes([520, 280])
        self.setCentralWidget(self.split)
        self.statusBar().addPermanentWidget(self.load_bar)
        self.bar = InspectorToolBar(self)
        self.addToolBar(self.bar)
        self.addToolBarBreak()
        self.live_bar = LiveToolBar(self)
        self.addToolBar(self.live_bar)
        self.live = LiveController(self.doc, self)
        self.attempts = AttemptsPane()
        dock = QDockWidget("Attempts", self)
        dock.setObjectName("attempts-dock")
        dock.setWidget(self.attempts)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)
        self.resizeDocks([dock], [330], Qt.Orientation.Horizontal)
        self._menus()
        self._wire()
        self._restore()
        if not self.settings.value("geometry"):
            self.resize(1400, 900)

    # -- construction --------------------------------------------------------------------

    def _menus(self) -> None:
        m = self.menuBar().addMenu("&File")
        self._action(m, "&Open…", self.open_dialog, QKeySequence.StandardKey.Open)
        self.recent_menu = m.addMenu("Open &Recent")
        self.samples_menu = m.addMenu("&Samples")
        for path in sorted(SAMPLES.glob("*.jsonl")):
            self._action(self.samples_menu, path.stem, lambda p=path: self.open(str(p), True))
        m.addSeparator()
        self._action(m, "Load &tools file…", self.load_tools_dialog)
        self._action(m, "&Export view as PNG…", self.export_png_dialog)
        m.addSeparator()
        self._action(m, "&Close", self.close_document, QKeySequence.StandardKey.Close)
        self._action(m, "&Quit", self.close, QKeySequence.StandardKey.Quit)
        v = self.menuBar().addMenu("&View")
        self._action(v, "&Replay from start", self.doc.replay, QKeySequence(Qt.Key.Key_F5))
        self._action(
            v, "&Compare settings side by side…", self.open_compare, QKeySequence("Ctrl+D")
        )
        h = self.menuBar().addMenu("&Help")
        self._action(h, "&About Tool-Call Inspector", self.about)
        pause = QShortcut(QKeySequence(Qt.Key.Key_Space), self)
        pause.setContext(Qt.ShortcutContext.WindowShortcut)
        pause.activated.connect(self.doc.toggle)
        self._refresh_recent()

    def _action(
        self,
        menu: object,
        text: str,
        slot: object,
        shortcut: QKeySequence | QKeySequence.StandardKey | None = None,
    ) -> QAction:
        act = QAction(text, self)
        if shortcut is not None:
            act.setShortcut(shortcut)
        act.triggered.connect(slot)
        menu.addAction(act)  # type: ignore[attr-defined]
        return act

    def _wire(self) -> None:
        d, b = self.doc, self.bar
        d.flushed.connect(self._on_flush)
        d.rejudged.connect(self._on_rejudged)
        d.position_changed.connect(b.show_position)
        d.playing_changed.connect(b.show_playing)
        d.failed.connect(self._on_failed)
        d.progress.connect(self.load_bar.show_progress)
        d.progress.connect(lambda _done, _total: self._replay_controls())
        self.load_bar.cancel.connect(d.stop_loading)
        d.loaded.connect(self._on_loaded)
        b.validation_changed.connect(lambda m: self._apply(validation=m))
        b.empty_id_changed.connect(lambda p: self._apply(empty_id=p))
        b.tools_requested.connect(self._tools_requested)
        self.attempts.attempt_selected.connect(self._attempt_changed)
        self.attempts.call_selected.connect(self._call_selected)
        lb, lc = self.live_bar, self.live
        lb.start_requested.connect(self.start_live)
        lb.stop_requested.connect(lc.stop)
        lc.running_changed.connect(lb.show_running)
        lc.state_changed.connect(lb.show_state)
        lc.running_changed.connect(self._session_ended)
        lc.status.connect(lambda text: self.statusBar().showMessage(text, 15000))
        lc.models_changed.connect(lb.set_models)
        lc.failed.connect(self._live_failed)
        lb.edit.clicked.connect(self._edit_scenario)
        b.speed_changed.connect(self._speed_changed)
        b.seek_requested.connect(d.seek)
        b.play.clicked.connect(lambda: d.pause() if d.playing else d.replay())
        b.step.clicked.connect(lambda: d.step(1))
        self.lanes.fragment_selected.connect(self._fragment_selected)
        self.raw.event_selected.connect(self._event_selected)
        self.problems.jump.connect(self._jump)
        self.tabs.currentChanged.connect(lambda _i: self._refresh_side())
        d.playing_changed.connect(self._session_ended)

    # -- document events -----------------------------------------------------------------

    def _on_flush(self) -> None:
        """While data streams in, the lanes' text and headers follow every flush; the heavy
        jobs (announcing table rows repaints whole tables through Python, the side panes scan
        the stream) take turns, at most one per flush, each at most every so often, so no
        flush pays for all of them at once. A flush that is not streaming does everything."""
        view = self.doc.view
        if not self.doc.streaming:
            self._catch_up()
            return
        if view is not None and self.lanes.bound_to is not view:
            self.lanes.rebind(view, self.doc.settings.validation)  # a new attempt: binding
            return  # it is this flush's work
        if self.lanes.sync(view, rows=False):
            return  # a lane appeared: painting it is this flush's work, the heavy jobs wait
        now = time.monotonic()
        due = [
            (at + period, job) for job, (at, period) in self._heavy.items() if now - at >= period
        ]
        if due:
            job = min(due)[1]
            if job == "raw":
                self.raw.model.sync(view.state.events if view else None)
            elif job == "rows":
                self.lanes.sync(view)
            else:  # quirks, timeline: whole-stream scans
                self._refresh_side()
            took = time.monotonic() - now
            # A slow job runs less often, to at most ~1/3 of the time. Not less often than
            # that: the side panes scan what arrived since their last run, so their cost grows
            # with the period, and a longer period would feed on itself.
            period = max(HEAVY_PERIOD[job], 3 * took)
            self._heavy[job] = (time.monotonic(), period)

    def _catch_up(self) -> None:
        """Every view up to date now (a step, a seek, the end of a replay or session)."""
        view = self.doc.view
        self.raw.model.sync(view.state.events if view else None)
        if view is not None and self.lanes.bound_to is not view:
            self.lanes.rebind(view, self.doc.settings.validation)
        else:
            self.lanes.sync(view)
        self._refresh_side()
        now = time.monotonic()
        self._heavy = {job: (now, period) for job, period in HEAVY_PERIOD.items()}

    def _on_rejudged(self) -> None:
        view = self.doc.view
        s = self.doc.settings
        self._replay_controls()
        self.bar.show_settings(s.validation, s.empty_id)
        self.raw.model.set_events(view.state.events if view else [])
        self.lanes.rebind(view, s.validation)
        self._refresh_side()
        if self._selected_seq is not None:
            self._select(self._selected_seq)

    def _replay_controls(self) -> None:
        """Replay needs a whole capture: off while a file loads or a session streams."""
        d = self.doc
        why = (
            "loading…"
            if d.loading
            else "live"
            if d.live is not None and d.streaming
            else "no replay"
            if d.live is not None
            else ""
        )
        self.bar.set_replayable(d.replayer is not None and not d.loading, why)

    def _session_ended(self, running: bool) -> None:
        """Replay paused or a live session ended: the throttled views catch up at once."""
        if not running:
            self._catch_up()

    def _refresh_side(self) -> None:
        a = self.doc.analysis
        if self.tabs.currentIndex() == self.tabs.count() - 1:
            self.timeline.refresh(a)
        self.problems.model_.set_findings(findings(a, self.doc.view) if a and a.attempts else [])
        self.turn.show_view(self.doc.view)
        self.attempts.show_analysis(a, self.doc.attempt)
        self._status()

    def _status(self) -> None:
        a, view = self.doc.analysis, self.doc.view
        if a is None or view is None:
            self.statusBar().showMessage("No capture open — File ▸ Open, Samples, or drop a file")
            return
        s = a.settings
        calls = [v for v in view.verdicts if not v.orphan]
        bad = sum(not v.valid and not v.call.open for v in calls)  # open calls: not judged yet
        self.statusBar().showMessage(
            f"{a.dialect or 'dialect?'} · validation {s.validation} · empty-id {s.empty_id} · "
            f"{len(calls)} call(s), {bad} invalid · {len(view.quirks)} quirk(s) · "
            f"{attempt_places(a.attempts)[view.number]}"
        )

    def _on_loaded(self, name: str) -> None:
        self.setWindowTitle(f"{Path(name).name} — Tool-Call Inspector")
        if Path(name).exists() and Path(name).parent != SAMPLES:
            self._remember(name)
        a = self.doc.analysis
        if a is not None and any(v.state.dialect.fallback for v in a.attempts):
            self._ask_dialect()

    def _on_failed(self, path: str, reason: str) -> None:
        QMessageBox.warning(self, "Cannot open file", f"{path}\n\n{reason}")

    # -- user intents --------------------------------------------------------------------

    def open(self, path: str, play: bool = False) -> bool:
        """Open a file (a capture or a raw SSE body); errors become a dialog."""
        return self.doc.open_path(path, play=play)

    def open_dialog(self) -> None:
        start = self.settings.value("last_dir", str(Path.home()))
        path, _ = QFileDialog.getOpenFileName(self, "Open capture", str(start), FILE_FILTER)
        if path:
            self.settings.setValue("last_dir", str(Path(path).parent))
            self.open(path)

    def load_tools_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Tool definitions", "", "JSON (*.json)")
        if not path:
            self.bar.tools.setCurrentIndex(0)
            return
        try:
            self.doc.set_tools(ToolRegistry.from_file(path))
        except InspectorError as exc:
            QMessageBox.warning(self, "Cannot read tools", str(exc))

    def _tools_requested(self, source: str) -> None:
        if source == "file":
            self.load_tools_dialog()
        else:
            self.doc.set_tools(None)

    def _apply(self, persist: bool = True, **changes: str) -> None:
        """Re-judge under changed settings; the user's own choices are remembered."""
        a = self.doc.analysis
        new = replace(a.settings if a else self.doc.settings, **changes)
        if persist:
            self.settings.setValue("validation", new.validation)
            self.settings.setValue("empty_id", new.empty_id)
        self.doc.apply_settings(new)

    def _attempt_changed(self, n: int) -> None:
        a = self.doc.analysis
        latest = a is not None and n == len(a.attempts)
        self.doc.attempt = None if (n == 0 or latest) else n
        self._on_rejudged()

    def _call_selected(self, _attempt: int, slot: int) -> None:
        if 0 <= slot < len(self.lanes.lanes):
            lane = self.lanes.lanes[slot]
            self.lanes.ensureWidgetVisible(lane)
            if lane.model.rowCount():
                lane.table.selectRow(0)

    def _live_failed(self, text: str) -> None:
        """Show a session error without blocking the loop (a modal exec() would stall it)."""
        box = QMessageBox(
            QMessageBox.Icon.Warning, "Live session", text, QMessageBox.StandardButton.Ok, self
        )
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        self.live_error_box = box

    def _edit_scenario(self) -> None:
        timeouts = self.live_bar.edit_scenario(self.live.timeouts)
        if timeouts is not None:
            self.live.timeouts = timeouts

    def start_live(self) -> None:
        """Start a live session with the Live toolbar's choices."""
        lb = self.live_bar
        self.live.start(
            str(lb.profile.currentData()),
            lb.model.currentText().strip(),
            lb.current_scenario(),
            lb.retry.isChecked(),
            loop=lb.loop.isChecked(),
            sequential=lb.sequential.isChecked(),
        )

    def start_default_live(self) -> None:
        """``make run``: the demo provider, a quirky scenario, streaming within seconds."""
        self.live_bar.select(DEFAULT_PROFILE, DEFAULT_MODEL, DEFAULT_SCENARIO)
        self.live.list_demo_models()
        self.start_live()

    async def aclose(self) -> None:
        """Stop live work (session, tasks, demo server) before the loop ends."""
        await self.live.aclose()

    def _speed_changed(self, speed: float) -> None:
        self.doc.speed = speed
        self.settings.setValue("speed_index", self.bar.speed.currentIndex())
        if self.doc.playing:
            self.doc.play(speed)

    def close_document(self) -> None:
        self.doc.close()
        self.setWindowTitle("Tool-Call Inspector")

    def export_png_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Export view as PNG", "inspector.png", "PNG (*.png)"
        )
        if path:
            self.export_png(path)

    def export_png(self, path: str) -> bool:
        """Render the whole window to a PNG."""
        return bool(self.grab().save(path, "PNG"))

    def open_compare(self) -> None:
        from .compare import CompareWindow

        r = self.doc.replayer
        if r is None:
            text = (
                "The capture is still loading: compare once it is in."
                if self.doc.loading
                else "Open a capture first."
            )
            QMessageBox.information(self, "Compare", text)
            return
        base = r.analysis if r.at_end else None  # the whole capture read: sides fork it
        self._compare = CompareWindow(r.capture, self.doc.tools, self, base)
        self._compare.show()

    def about(self) -> None:
        QMessageBox.about(
            self,
            "About Tool-Call Inspector",
            f"<b>Tool-Call Inspector</b> {__version__}<br>See, fragment by fragment, how an "
            f"LLM provider streams tool calls and where they break.<br><br>"
            f'<a href="{QUrl.fromLocalFile(str(DOCS)).toString()}">Documentation</a> '
            f"(README.md, docs/)",
        )

    def _ask_dialect(self) -> None:
        from PySide6.QtWidgets import QInputDialog

        from inspector.core.analysis.session import DIALECT_CHOICES

        choice, ok = QInputDialog.getItem(
            self,
            "Unknown dialect",
            "The stream's dialect was not recognised. Read it as:",
            list(DIALECT_CHOICES[1:]),
            0,
            False,
        )
        if ok:
            self._apply(dialect=choice)

    # -- linking -------------------------------------------------------------------------

    def _fragment_selected(self, seq: int) -> None:
        self._selected_seq = seq
        self.raw.select_seq(seq)

    def _event_selected(self, seq: int) -> None:
        self._selected_seq = seq
        self.lanes.select_seq(seq)

    def _jump(self, seq: int) -> None:
        self._select(seq)

    def _select(self, seq: int) -> None:
        self.lanes.select_seq(seq)
        self.raw.select_seq(seq)

    # -- persistence and desktop conventions --------------------------------------------

    def _restore(self) -> None:
        s = self.settings
        geometry = s.value("geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        if self.width() < 900 or self.height() < 600:  # e.g. saved by a tiny offscreen screen
            self.resize(1400, 900)
        split = s.value("split")
        if isinstance(split, QByteArray):
            self.split.restoreState(split)
        sizes = self.split.sizes()
        if sum(sizes) and sizes[0] < 0.4 * sum(sizes):  # the lanes are what matters most
            self.split.setSizes([int(0.65 * sum(sizes)), int(0.35 * sum(sizes))])
        validation = str(s.value("validation", "structural"))
        empty_id = str(s.value("empty_id", "absent"))
        from inspector.core.analysis.session import Settings

        self.doc.settings = Settings(validation=validation, empty_id=empty_id)
        self.bar.show_settings(validation, empty_id)
        self.bar.speed.setCurrentIndex(int(str(s.value("speed_index", 0) or 0)))
        self.doc.speed = float(self.bar.speed.currentData())
        self._status()

    def _remember(self, path: str) -> None:
        recent = [p for p in self._recent() if p != path]
        self.settings.setValue("recent", [path, *recent][:MAX_RECENT])
        self._refresh_recent()

    def _recent(self) -> list[str]:
        value = self.settings.value("recent", [])
        return [str(v) for v in (value if isinstance(value, list) else [value]) if v]

    def _refresh_recent(self) -> None:
        self.recent_menu.clear()
        for p in self._recent():
            self._action(self.recent_menu, p, lambda p=p: self.open(p))
        self.recent_menu.setEnabled(bool(self._recent()))

    def dragEnterEvent(self, event: object) -> None:
        if event.mimeData().hasUrls():  # type: ignore[attr-defined]
            event.acceptProposedAction()  # type: ignore[attr-defined]

    def dropEvent(self, event: object) -> None:
        for url in event.mimeData().urls():  # type: ignore[attr-defined]
            if url.isLocalFile():
                self.open(url.toLocalFile())
                break

    def closeEvent(self, event: object) -> None:
        if self.persist_layout:
            self.settings.setValue("geometry", self.saveGeometry())
            self.settings.setValue("split", self.split.saveState())
        self.doc.pause()
        self.doc.cancel_load()
        self.live.stop()  # the capture keeps every byte received; aclose() awaits the rest
        if self._compare is not None:
            self._compare.close()
        super().closeEvent(event)  # type: ignore[arg-type]
