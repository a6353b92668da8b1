"""Reduce to a minimal capture… (a quirk's or a client row's context menu): the capture on show
reduced while the row's property holds (:mod:`inspector.core.reduce`), written beside the
original (or in the recorded-sessions folder when that is not writable), and opened in a window
of its own beside this one.

Invariants:
- The reduction is judged as ``reduce`` and ``analyze`` judge (the settings on show); what
  cannot be reduced (a stall, a property the capture does not show) is one information line,
  never a traceback.
- The new window is another process (``toolcall-inspector open PATH``): the original stays on
  show here, untouched. :data:`launch` is what starts it (tests replace it).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QProcess, Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from inspector.core.base.errors import InspectorError
from inspector.core.base.settings import Settings
from inspector.core.clients.registry import REPLICAS
from inspector.core.providers import REGISTRY
from inspector.core.reduce.keep import parse_keep
from inspector.core.reduce.reducer import reduce_capture
from inspector.ui.base.dialogs import headless_instead
from inspector.ui.document.host import Host
from inspector.ui.document.onshow import capture_on_show
from inspector.ui.live import live

TITLE = "Reduce to a minimal capture"
CHOICES = {"empty-id": ("absent", "literal"), "validation": ("off", "structural", "strict")}


def _open_beside(path: str) -> bool:
    return QProcess.startDetached(sys.executable, ["-m", "inspector.cli", "open", path])[0]


launch: Callable[[str], bool] = _open_beside
"""Open a file in a new window beside this one."""


def out_path(source: str | None, keep: str) -> Path:
    """``<name>.min-<keep>.jsonl`` beside ``source`` (or in the sessions folder)."""
    stem = Path(source or "session").stem
    name = f"{stem}.min-{re.sub(r'[^A-Za-z0-9_.-]+', '-', keep)}"
    folder = Path(source).parent if source else live.captures_dir()
    suffix = ".sse" if source and Path(source).suffix == ".sse" else ".jsonl"
    return folder / (name + suffix)


def reduce_on_show(host: Host, keep_text: str) -> Path | None:
    """Reduce the capture on show while ``keep_text`` holds; the file written, or None."""
    capture = capture_on_show(host)
    if capture is None:
        _say(host, "Nothing to reduce: open a capture first.")
        return None
    settings: Settings = host.doc.settings
    QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
    try:
        keep = parse_keep(keep_text, [r.name for r in REPLICAS], CHOICES)
        result = reduce_capture(capture, keep, settings, REGISTRY)
        path = out_path(capture.path, keep.text)
        try:
            path.write_bytes(result.data)
        except OSError:
            live.captures_dir().mkdir(parents=True, exist_ok=True)
            path = live.captures_dir() / path.name
            path.write_bytes(result.data)
    except (InspectorError, OSError) as exc:
        _say(host, str(exc))
        return None
    finally:
        QApplication.restoreOverrideCursor()
    host.statusBar().showMessage(f"{result.summary(keep)}: {path}", 15_000)
    launch(str(path))
    return path


def _say(host: Host, text: str) -> None:
    if not headless_instead(f"{TITLE}: {text}"):
        QMessageBox.information(host.window(), TITLE, text)
