"""The capture a document shows, for the features that act on it whole (File ▸ Serve this
capture…, Reduce to a minimal capture…).

Invariant: it reads, never changes, the document; a HAR file gives its session's capture only
through the analysis on show (the file itself is no capture).
"""

from __future__ import annotations

from inspector.core.base.errors import InspectorError
from inspector.core.capture.reader import load
from inspector.core.capture.records import Capture
from inspector.core.replay.harsessions import is_har_file
from inspector.ui.document.host import Host


def capture_on_show(host: Host) -> Capture | None:
    """The capture the window shows (a replay, an opened file), or None."""
    doc = host.doc
    if doc.replayer is not None:
        return doc.replayer.capture
    analysis = doc.analysis
    if analysis is not None and analysis.capture is not None:
        return analysis.capture
    path = doc.path or ""
    if not path or is_har_file(path):
        return None
    try:
        return load(path)
    except InspectorError:
        return None
