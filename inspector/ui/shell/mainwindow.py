"""The inspector window: the document's views (:mod:`inspector.ui.views.views`), the toolbars, the
menus, the attempts dock and the status bar.

Invariants:
- The window wires widgets to the :class:`Document` and nothing else: no parsing, judging or
  I/O of its own (file dialogs aside, :mod:`inspector.ui.base.dialogs`).
- The user's own choices (settings, speed, layout, recent files) persist in QSettings.
- It builds every feature and hands itself over as the features'
  :class:`~inspector.ui.document.host.Host` and the menus' :class:`~.intents.Intents`: none of
  them imports this module.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QSettings, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDockWidget, QInputDialog, QMainWindow, QMessageBox, QWidget

from inspector.core.base.errors import InspectorError
from inspector.core.base.settings import DEFAULT_EMPTY_ID, DEFAULT_MODE, Settings
from inspector.core.providers import REGISTRY
from inspector.core.reports import words
from inspector.core.verdicts.tools import ToolRegistry
from inspector.ui.base import dialogs, screenfit
from inspector.ui.document.document import Document
from inspector.ui.document.toolbar import InspectorToolBar, needed_width
from inspector.ui.har import har
from inspector.ui.live.bar import LiveToolBar
from inspector.ui.live.live import DEFAULT_MODEL, DEFAULT_PROFILE, DEFAULT_SCENARIO, LiveController
from inspector.ui.live.scenario import ScenarioDialog, Timeouts
from inspector.ui.loading.loadbar import LoadProgress
from inspector.ui.matrix import opener
from inspector.ui.proxy.proxy import ProxyController
from inspector.ui.reduce.reduce import reduce_on_show
from inspector.ui.serve.serve import ServeController
from inspector.ui.shell.menus import build_menus
from inspector.ui.shell.statusline import StatusBar
from inspector.ui.views.views import DocumentViews

if TYPE_CHECKING:
    from inspector.ui.matrix.matrix import MatrixWindow


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
        self._compare: QWidget | None = None
        self.matrix: MatrixWindow | None = None
        """Live ▸ Matrix… (created when first opened)."""
        self.load_bar = LoadProgress()
        """Progress and Cancel of a progressive open, in the status bar."""
        self.live_error_box: QMessageBox | None = None
        self.dialect_box: QInputDialog | None = None
        """The open "read it as" question for a stream of no known dialect, if any."""
        """The last live-session error shown (non-blocking)."""
        self.bar = InspectorToolBar(self)
        self.setStatusBar(StatusBar(self))  # its message elides beside the permanent widgets
        self.views = DocumentViews(self.doc, self.bar, self.statusBar())
        v = self.views
        self.lanes, self.raw, self.problems, self.turn = v.lanes, v.raw, v.problems, v.turn
        self.timeline, self.tabs, self.split, self.attempts = (
            v.timeline,
            v.tabs,
            v.split,
            v.attempts,
        )
        self.setCentralWidget(self.split)
        self.statusBar().addPermanentWidget(self.load_bar)
        self.addToolBar(self.bar)
        self.addToolBarBreak()
        self.live_bar = LiveToolBar(self)
        self.addToolBar(self.live_bar)
        self.live = LiveController(self.doc, self)
        self.proxies = ProxyController(self, demo=self.live.ensure_demo)
        """Live ▸ Proxy…: recording proxies and the exchanges they list."""
        self.serving = ServeController(self)
        for pane in (self.views.problems, self.views.clients):  # "Reduce to a minimal capture…"
            pane.reduce_requested.connect(lambda keep: reduce_on_show(self, keep))
        """File ▸ Serve this capture…: the capture on show answered as a provider."""
        dock = self.attempts_dock = QDockWidget("Attempts", self)
        dock.setObjectName("attempts-dock")
        dock.setWidget(self.attempts)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)
        self.resizeDocks([dock], [330], Qt.Orientation.Horizontal)
        self._remember_on_load: str | None = None  # the file open() was asked for
        self.scenario_dialog: ScenarioDialog | None = None
        """The scenario editor last opened (it does not block: the loop keeps running)."""
        menus = build_menus(self)
        self.recent, self.sessions = menus.recent, menus.sessions
        """File ▸ Open Recent (what the user opened), File ▸ Recorded sessions (live)."""
        self.recent_menu, self.samples_menu = menus.recent.menu, menus.samples
        self._wire()
        self._restore()

    # -- construction --------------------------------------------------------------------

    def _wire(self) -> None:
        d, b, v = self.doc, self.bar, self.views
        d.position_changed.connect(b.show_position)
        d.playing_changed.connect(b.show_playing)
        d.failed.connect(self._failed_to_open)
        d.progress.connect(self.load_bar.show_progress)
        self.load_bar.cancel.connect(d.stop_loading)
        d.loaded.connect(self._on_loaded)
        b.validation_changed.connect(lambda m: self._apply(validation=m))
        b.empty_id_changed.connect(lambda p: self._apply(empty_id=p))
        b.tools_requested.connect(self._tools_requested)
        b.speed_changed.connect(self._speed_changed)
        b.seek_requested.connect(d.seek)
        b.play.clicked.connect(d.toggle)  # Pause, Resume where it paused, or Replay at the end
        b.step.clicked.connect(lambda: d.step(1))
        self.attempts.attempt_selected.connect(self._attempt_changed)
        self.lanes.attempt_wanted.connect(self._attempt_wanted)  # an earlier round's calls
        self.attempts.call_selected.connect(lambda _attempt, slot: v.show_call(slot))
        lb, lc = self.live_bar, self.live
        lb.start_requested.connect(self.start_live)
        lb.stop_requested.connect(lc.stop)
        lb.models_wanted.connect(lc.list_demo_models)
        lc.running_changed.connect(lb.show_running)
        lc.state_changed.connect(lb.show_state)
        lc.running_changed.connect(v.session_ended)
        lc.status.connect(lambda text: self.statusBar().showMessage(text))  # until the next
        lc.models_changed.connect(lb.set_models)
        lc.failed.connect(self._live_failed)
        lb.edit.clicked.connect(self._edit_scenario)

    # -- document events -----------------------------------------------------------------

    def _on_loaded(self, name: str) -> None:
        self.setWindowTitle(f"{Path(name).name} — Tool-Call Inspector")
        session = self.live.session
        if not self.doc.continued and (
            session is None or self.doc.analysis is not session.analysis
        ):
            self.live_bar.show_state("")  # the Live state speaks of the live session only
        if name == self._remember_on_load:  # a file the user opened (not a live capture)
            self._remember_on_load = None
            if self.doc.source is not None:  # it opened as a stream (not refused by the gate)
                self.recent.remember(name)
        if self._unrecognised():  # asked without blocking the loop; the lanes' place says why
            self.dialect_box = dialogs.choose_dialect(
                self, name, lambda choice: self._apply(dialect=choice)
            )

    def _failed_to_open(self, path: str, reason: str) -> None:
        """A file that did not open is not remembered (nor is a later load under its name)."""
        if path == self._remember_on_load:
            self._remember_on_load = None
        dialogs.cannot_open(self, path, reason)

    def _unrecognised(self) -> bool:
        """Should the user be asked which dialect to read the stream in? When the document
        refused a stream as of an unknown dialect (its notice is in the lanes' place), or a
        stream that was received (not a failed request: an HTTP error's body is no dialect's)
        was read with no dialect recognised; never for a live session's own capture (its
        dialect is the profile's)."""
        a, session = self.doc.analysis, self.live.session
        if a is None:  # refused as of no known dialect (the notice in the lanes' place says so)
            return self.doc.refused is not None and self.doc.source is None
        if session is not None and self.doc.path == str(session.capture_path):
            return False
        return any(
            v.state.dialect.fallback and v.state.events and not words.is_failed_request(v)
            for v in a.attempts
        )

    def _live_failed(self, text: str) -> None:
        """Show a session error without blocking the loop (a modal exec() would stall it)."""
        self.live_error_box = dialogs.show_live_error(self, text)

    # -- user intents --------------------------------------------------------------------

    def open(self, path: str, play: bool = False, *, remember: bool = True) -> bool:
        """Open a file (a capture, a raw SSE body or a HAR); errors become a dialog. Once it is in,
        it heads File ▸ Open Recent (``remember``: File ▸ Recorded sessions does not)."""
        path = os.path.abspath(path)
        self._remember_on_load = path if remember else None
        if har.is_har(path):  # its LLM sessions: one, or a picker (inspector.ui.har.har)
            return har.open_har(self, path, play=play)
        if opener.is_matrix(path):  # a matrix folder: the Matrix view shows it
            return self.open_matrix(path)
        return self.doc.open_path(path, play=play)

    def open_dialog(self) -> None:
        start = self.settings.value("last_dir", str(Path.home()))
        path = dialogs.choose_capture(self, str(start))
        if path:
            self.settings.setValue("last_dir", str(Path(path).parent))
            self.open(path)

    def load_tools_dialog(self) -> None:
        path = dialogs.choose_tools(self)
        if not path:
            self.bar.tools.setCurrentIndex(0)
            return
        try:
            self.doc.set_tools(ToolRegistry.from_file(path, REGISTRY))
        except InspectorError as exc:
            dialogs.cannot_read_tools(self, str(exc))

    def _tools_requested(self, source: str) -> None:
        if source == "file":
            self.load_tools_dialog()
        else:
            self.doc.set_tools(None)

    def _apply(self, persist: bool = True, **changes: str) -> None:
        """Re-judge under changed settings; the user's own choices are remembered."""
        a = self.doc.analysis
        new = (a.settings if a else self.doc.settings).with_strings(**changes)
        if persist:
            self.settings.setValue("validation", new.validation)
            self.settings.setValue("empty_id", new.empty_id)
        self.doc.apply_settings(new)

    def _attempt_wanted(self, n: int) -> None:
        """The lanes' link to another attempt: shown as if picked in the Attempts pane."""
        self.attempts.select_attempt(n)
        self._attempt_changed(n)

    def _attempt_changed(self, n: int) -> None:
        a = self.doc.analysis
        latest = a is not None and n == len(a.attempts)
        self.doc.attempt = None if (n == 0 or latest) else n
        self.views.on_rejudged()

    def _edit_scenario(self) -> None:
        def edited(timeouts: Timeouts) -> None:
            self.live.timeouts = timeouts

        self.scenario_dialog = self.live_bar.edit_scenario(self.live.timeouts, edited)

    def start_live(self) -> None:
        """Start a live session with the Live toolbar's choices."""
        lb = self.live_bar
        lb.remember(self.settings)
        self.live.start(
            str(lb.profile.currentData()),
            lb.model.currentText().strip(),
            lb.current_scenario(),
            lb.retry.isChecked(),
            loop=lb.loop.isChecked(),
            sequential=lb.sequential.isChecked(),
        )

    def start_default_live(self) -> None:
        """``make run``: the demo provider, a quirky scenario, streaming within seconds (the
        choices of the last run, when that was on a demo profile)."""
        lb = self.live_bar
        if not (lb.restore(self.settings) and lb.profile_is_demo()):
            lb.select(DEFAULT_PROFILE, DEFAULT_MODEL, DEFAULT_SCENARIO)
        self.live.list_demo_models()
        from inspector.net.demo.scenarios import SCENARIOS

        model = lb.model.currentText().strip()
        scenario = SCENARIOS.get(model)
        if scenario is not None and scenario.fault is not None:
            # A fault scenario stalls or fails on purpose: run at launch, it would greet the
            # user with a stall or an error box before they did anything. Running another
            # model than the one in the box would make the window say one thing and do
            # another, so the choice stays selected and waits for Run.
            self.statusBar().showMessage(
                f"{model} is a fault scenario ({scenario.fault}): not run at launch — "
                "press Run (Enter) to start it"
            )
            return
        self.start_live()

    async def aclose(self) -> None:
        """Stop live work (session, tasks, demo server, proxies) before the loop ends."""
        await self.live.aclose()
        await self.proxies.aclose()
        await self.serving.aclose()
        if self.matrix is not None:  # its sessions stop; its folder is written
            await self.matrix.aclose()

    def _speed_changed(self, speed: float) -> None:
        self.doc.speed = speed
        self.settings.setValue("speed_index", self.bar.speed.currentIndex())
        if self.doc.playing:
            self.doc.play(speed)

    def close_document(self) -> None:
        self.doc.close()
        self.setWindowTitle("Tool-Call Inspector")

    def export_png_dialog(self) -> None:
        path = dialogs.choose_png(self)
        if path:
            self.export_png(path)

    def export_png(self, path: str) -> bool:
        """Render the whole window to a PNG."""
        return bool(self.grab().save(path, "PNG"))

    def open_matrix(self, folder: str | None = None) -> bool:
        """Live ▸ Matrix…: the Matrix view, on a saved matrix ``folder`` if given."""
        self.matrix = opener.show(self, self.matrix, folder)
        return self.matrix.isVisible()

    def open_compare(self) -> None:
        from inspector.ui.compare.compare import show_compare  # made on first use

        self._compare = show_compare(self) or self._compare

    def serve_capture(self) -> None:
        """File ▸ Serve this capture…"""
        self.serving.serve()

    def show_proxies(self) -> None:
        """Live ▸ Proxy…: the Proxy dock (made on first use)."""
        from inspector.ui.proxy.dock import show_dock

        show_dock(self.proxies, self)

    def show_clients(self) -> None:
        self.views.show_clients()

    def running_sessions(self) -> tuple[object, ...]:
        return (self.live.session, self.proxies.shown)

    # -- persistence and desktop conventions --------------------------------------------

    def _restore(self) -> None:
        s = self.settings
        geometry = s.value("geometry")
        remembered = isinstance(geometry, QByteArray) and self.restoreGeometry(geometry)
        if remembered and (self.width() < 900 or self.height() < 600):
            remembered = False  # e.g. saved by a tiny offscreen screen
        self._fill_screen = screenfit.place(self, remembered)
        self.live_bar.restore(s)
        self._keep_toolbars_whole()
        split = s.value("split")
        if isinstance(split, QByteArray):
            self.split.restoreState(split)
        self._share_split()
        validation = str(s.value("validation", DEFAULT_MODE))
        empty_id = str(s.value("empty_id", DEFAULT_EMPTY_ID))
        self.doc.settings = Settings.from_strings(validation=validation, empty_id=empty_id)
        self.bar.show_settings(validation, empty_id)
        self.bar.speed.setCurrentIndex(int(str(s.value("speed_index", 0) or 0)))
        self.doc.speed = float(self.bar.speed.currentData())
        self.views.show_status()

    def _share_split(self, force: bool = False) -> None:
        """The lanes get about two thirds of the height and the tabs the rest, unless the
        user's own split (restored) gives each a fair share already: the lanes are what
        matters most, and the tabs are never squeezed out of sight."""
        sizes = self.split.sizes()
        lanes, tabs = self._in_split(self.lanes), self._in_split(self.tabs)
        total = sizes[lanes] + sizes[tabs] or self.split.height() or 600
        if force or sizes[lanes] < 0.4 * total or sizes[tabs] < 0.15 * total:
            sizes[lanes] = int(0.65 * total)
            sizes[tabs] = total - sizes[lanes]
            self.split.setSizes(sizes)

    def _in_split(self, widget: QWidget) -> int:
        """The index of the split's pane that holds ``widget``."""
        w: QWidget | None = widget
        while w is not None and w.parentWidget() is not self.split:
            w = w.parentWidget()
        return self.split.indexOf(w) if w is not None else -1

    def default_layout(self) -> None:
        """The layout a first start gets, whatever was remembered (screenshots use it)."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        self.setGeometry(screenfit.default_geometry(screen.availableGeometry()))
        self._share_split(force=True)

    def _keep_toolbars_whole(self) -> None:
        """The window is never narrower than its toolbars (so none hides controls behind its
        "»" menu, whose pop-up row would cover the lanes), unless the screen itself is."""
        need = max(needed_width(self.bar), needed_width(self.live_bar))
        screen = self.screen() or QGuiApplication.primaryScreen()
        self.setMinimumWidth(min(need + 8, screen.availableGeometry().width()))

    def show_fitted(self) -> None:
        """Show the window as :mod:`inspector.ui.base.screenfit` decided: maximized on a screen it
        fills (the window manager then fits the frame in), else at its size."""
        if self._fill_screen:
            self.showMaximized()
        else:
            self.show()

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
            self.live_bar.remember(self.settings)
        self.doc.pause()
        self.doc.cancel_load()
        self.views.clients_follower.stop()
        self.live.stop()  # the capture keeps every byte received; aclose() awaits the rest
        self.proxies.stop_all()
        self.serving.stop()
        for other in (self._compare, self.matrix):
            if other is not None:
                other.close()
        super().closeEvent(event)  # type: ignore[arg-type]
