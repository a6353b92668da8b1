"""The open document: the :class:`Source` on show, the settings it is judged under, and how
sources come and go (its clock and replay controls: :class:`.player.Player`).

Invariants:
- One source at a time: a capture's replay, a file being loaded, a live session, or what one
  of the last two left (:mod:`inspector.core.replay.sources`). Every new source is announced by
  ``loaded`` and views rebind to it (``rejudged``); a loading file becoming its replay is a
  new source too.
- A large file opens progressively (:mod:`inspector.ui.loading.progressive`): the current source
  stays on show while the bytes are read, then a :class:`LoadingSource` shows them as they are
  fed, usable from the first records. When the file is in, the document shows its replay (the
  same state, now replayable); Cancel keeps what was read. One thread owns the core.
- The user's settings and tools apply to every source that comes, and at once to the one on
  show.
- A raw body that is not a stream (:mod:`inspector.core.reports.gate`) is never shown as an
  attempt: the document shows no source and ``notice`` says why, also for a large file (the
  gate runs before the first slice is fed).
"""

from __future__ import annotations

import os

from PySide6.QtCore import QObject, Signal

from inspector.core.analysis.session import Analysis, AttemptView
from inspector.core.base.errors import InspectorError
from inspector.core.base.settings import AUTO, Settings
from inspector.core.capture.readahead import Opening
from inspector.core.capture.reader import load
from inspector.core.capture.records import Capture
from inspector.core.replay.loading import ProgressiveLoad
from inspector.core.replay.sources import (
    KeptSource,
    LiveSource,
    LoadingSource,
    ReplaySource,
    Source,
)
from inspector.core.reports.gate import not_a_stream, unknown_dialect
from inspector.core.verdicts.tools import ToolRegistry
from inspector.ui.document.player import Player
from inspector.ui.loading.progressive import ProgressiveOpen

PROGRESSIVE_BYTES = 4 * 1024 * 1024
"""Files larger than this open progressively (:mod:`inspector.ui.loading.progressive`), with a
progress bar and Cancel."""


class Document(Player):
    """The source on show, the settings it is judged under, and how sources are opened."""

    loaded = Signal(str)
    """A new source is on show (its display name)."""
    progress = Signal(int, int)
    """Progressive open: (done, total) bytes read, or steps fed once a replay catches up;
    (-1, 0) when loading stopped (finished, cancelled or failed)."""
    failed = Signal(str, str)
    """(path, one-line reason) when a file could not be opened."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.settings = Settings()
        """Settings every view is judged under."""
        self.tools: ToolRegistry | None = None
        """Tools the user loaded (None: use the source's own)."""
        self.continued = False
        """True while a live session's own capture takes its place (``loaded`` is emitted for
        the same stream): views keep their scroll and selection then, and only then."""
        self.attempt: int | None = None
        """The attempt the user picked (1-based), or None to follow the latest."""
        self.notice: str | None = None
        """Why the file last opened is shown as no attempt ("not a stream: …"), or None."""
        self.refused: tuple[Capture, str] | None = None
        """The capture last refused as of an unknown dialect, and its name: a dialect chosen
        next (:meth:`apply_settings`) opens it read as that one."""
        self._opener = ProgressiveOpen(self)
        o = self._opener
        o.read.connect(self._on_read)
        o.finished.connect(self._show)
        o.kept.connect(self._keep)
        o.flush.connect(self._flush)
        o.progress.connect(self.progress)
        o.failed.connect(self.failed)

    # -- state ---------------------------------------------------------------------------

    @property
    def path(self) -> str | None:
        """The file behind the source, if any."""
        return self.source.path if self.source is not None else None

    @property
    def view(self) -> AttemptView | None:
        """The attempt on show."""
        a = self.analysis
        if a is None or not a.attempts:
            return None
        n = self.attempt
        return a.attempts[n - 1] if n is not None and 0 < n <= len(a.attempts) else a.attempts[-1]

    @property
    def loading(self) -> bool:
        """Is a large file being opened progressively?"""
        return self._opener.busy

    @property
    def streaming(self) -> bool:
        """Is data arriving: the replay clock running, a file loading or a live session?"""
        return self._timer.isActive() or self._opener.feeding

    # -- opening -------------------------------------------------------------------------

    def open_path(self, path: str, *, play: bool = False) -> bool:
        """Open a capture or raw SSE body; large files open progressively."""
        try:
            size = os.path.getsize(path)
        except OSError:
            size = 0
        try:
            if size > PROGRESSIVE_BYTES and not play:
                self.cancel_load()
                self._opener.start(path, size)  # the current document stays until it is read
                return True
            capture = load(path)
        except InspectorError as exc:
            self.failed.emit(path, str(exc))
            return False
        self.open_capture(capture, path, play=play)
        return True

    def open_capture(self, capture: Capture, name: str, *, play: bool = False) -> None:
        """Show ``capture``: replay it from the start, or jump straight to its end."""
        self.pause()
        self.cancel_load()
        self.refused = None
        notice = not_a_stream(capture, name) or self._unknown(capture, name)
        if notice is not None:
            self._show_notice(name, notice)
            return
        self._show(ReplaySource.of(capture, name, self.settings, self.tools, at_end=not play))
        if play:
            self.play()

    def show_notice(self, name: str, notice: str) -> None:
        """Show no attempt from ``name``, and why (a HAR entry whose body its exporter left
        out, a reply that is no stream): one line in the lanes' place, never an empty view."""
        self.pause()
        self.cancel_load()
        self._show_notice(name, notice)

    def attach_live(self, analysis: Analysis, name: str) -> None:
        """Follow a live session's Analysis: flush at 60 Hz until :meth:`stop_live_view`."""
        self.pause()
        self.cancel_load()
        self._show(LiveSource(analysis, name), clock=True)

    def stop_live_view(self, capture_path: str | None = None) -> None:
        """The live session ended: one last flush, then the clock stops. With the session's
        capture, the document becomes that capture (the same state, now replayable)."""
        live = self.source
        if not isinstance(live, LiveSource):
            return
        self._keep(live.kept())
        replay = live.replay(capture_path, self.settings, self.tools)
        if replay is not None:
            attempt = self.attempt
            self.continued = True  # the same stream, now replayable: views keep their place
            try:
                self._show(replay)
            finally:
                self.continued = False
            if attempt is not None and attempt <= len(live.analysis.attempts):
                self.attempt = attempt

    def close(self) -> None:
        """Forget the document and stop every timer and worker."""
        self.pause()
        self.cancel_load()
        self._timer.stop()
        self.source, self.notice = None, None
        self._rejudged()

    def _show(self, source: Source, *, clock: bool = False) -> None:
        """Put ``source`` on show (``clock``: start flushing at once, so views binding to a
        streaming document see it streaming)."""
        self._timer.stop()
        self.source, self.attempt, self.notice = source, None, None
        if clock:
            self._timer.start()
        self.loaded.emit(source.name)
        self._rejudged()

    # -- progressive open (inspector.ui.loading.progressive) --------------------------------------

    def _on_read(self, path: str, opening: Opening) -> None:
        try:
            load = ProgressiveLoad(
                opening.data, path, self.settings, self.tools, ahead=opening.ahead,
                size=opening.size,
            )  # fmt: skip
        except InspectorError as exc:  # a header that cannot be read
            self._opener.fail(path, str(exc))
            return
        capture, self.refused = load.reader.capture, None  # a raw body is read whole at once
        notice = not_a_stream(capture, path)
        if notice is None and capture.kind == "raw-sse":
            notice = self._unknown(capture, path)
        if notice is not None:
            load.close()
            self.progress.emit(-1, 0)
            self._show_notice(path, notice)
            return
        source = LoadingSource(load, path)
        self.pause()
        self._show(source)
        self._opener.feed(source)

    def _unknown(self, capture: Capture, name: str) -> str | None:
        """The unknown-dialect line for ``capture`` read as the settings say (kept, so that a
        dialect chosen next reads it), or None."""
        notice = unknown_dialect(capture, self.settings.dialect, name)
        self.refused = (capture, name) if notice is not None else None
        return notice and f"{notice}. Open it again to choose a dialect to read it as."

    def _show_notice(self, name: str, notice: str) -> None:
        """Show no attempt, and why (a file that is not a stream)."""
        self._timer.stop()
        self.source, self.attempt, self.notice = None, None, notice
        self.loaded.emit(name)
        self._rejudged()

    def _keep(self, source: KeptSource) -> None:
        """Show what a source that stopped growing holds: one last flush, the clock stops."""
        self._timer.stop()
        self.source = source
        self._flush()

    def stop_loading(self) -> None:
        """Cancel: stop reading and keep what was read, shown as it stands (not replayable,
        like a live session that ended); a file not read yet leaves the document as it was."""
        self._opener.stop()

    def cancel_load(self) -> None:
        """Drop a progressive open and what it read (another file or a session replaces it)."""
        if isinstance(self.source, LoadingSource):
            self.source = None
        self._opener.cancel()

    # -- settings ------------------------------------------------------------------------

    def apply_settings(self, settings: Settings) -> None:
        """Re-judge the source at once under new settings (a loading file whose dialect
        changes is opened again: the dialect decides how every byte is read)."""
        self.settings = settings
        source, refused = self.source, self.refused
        if source is None and refused is not None and settings.dialect != AUTO:
            self.open_capture(*refused)  # a stream of no known dialect, now read as one
            return
        if source is not None and not source.apply(settings) and source.path is not None:
            self.open_path(source.path)
            return
        self._rejudged()

    def set_tools(self, tools: ToolRegistry | None) -> None:
        """Judge against the user's tools (None: back to the source's own)."""
        self.tools = tools
        if self.source is not None:
            self.source.set_tools(tools)
        self._rejudged()
