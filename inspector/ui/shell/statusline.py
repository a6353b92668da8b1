"""The window's status bar: its message elides with "…" beside the permanent widgets (the
first-run hint, the load progress) instead of running under them, and keeps a capture's path.

Invariants:
- The message is painted, never laid out: a new message changes no size hint, so nothing is
  laid out again per update (DEVELOPERS.md). ``currentMessage()`` and the tooltip keep the
  whole text.
- What does not fit is elided at its end with "…", except a trailing ``capture: PATH``: that
  stays in sight (the head is elided before it), taking at most :data:`PATH_SHARE` of the
  room; a longer path is elided in its middle, keeping its start and its file name.
- A part of the message set as the one to keep (the dynamic property :data:`KEEP`, e.g. the
  session's headline, the verdict) stays whole while it fits the room at all: what follows it
  (dialect, settings, counts) is elided first, then what precedes it (the file name, in its
  middle). The property is a string, so a feature sets it without importing the shell.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics, QPainter, QPaintEvent
from PySide6.QtWidgets import QSizeGrip, QStatusBar, QStyle, QStyleOption, QWidget

CAPTURE = "capture: "
"""Where a status message names its capture file: from here on, it is kept whole."""
KEEP = "keep-whole"
"""The status bar's property naming the part of its message kept whole (see above)."""
PATH_SHARE = 0.5
"""The largest share of the message's room the kept ``capture: PATH`` takes."""


def elided(text: str, metrics: QFontMetrics, width: int, keep: str = "") -> str:
    """``text`` as it fits in ``width`` pixels, ``keep`` whole if it is in it and fits (see
    the module's invariants)."""
    if metrics.horizontalAdvance(text) <= width:
        return text
    at = text.find(keep) if keep else -1
    if at >= 0 and metrics.horizontalAdvance(keep) <= width:
        before, after = text[:at], text[at + len(keep) :]
        room = width - metrics.horizontalAdvance(before + keep)
        if room >= metrics.horizontalAdvance(" …"):  # the file stays; the rest is elided
            return before + keep + metrics.elidedText(after, Qt.TextElideMode.ElideRight, room)
        tail = " …" if after else ""
        room = width - metrics.horizontalAdvance(keep + tail)
        head = metrics.elidedText(before, Qt.TextElideMode.ElideMiddle, room) if before else ""
        return head + keep + tail
    cut = text.rfind(CAPTURE)
    if cut > 0:
        label = " · " + CAPTURE  # the head's own separator is elided with it
        most = int(PATH_SHARE * width) - metrics.horizontalAdvance(label)
        path = metrics.elidedText(text[cut + len(CAPTURE) :], Qt.TextElideMode.ElideMiddle, most)
        tail = label + path  # a long path keeps its start and its file name
        room = width - metrics.horizontalAdvance(tail)
        head = text[:cut].rstrip(" ·…")
        return metrics.elidedText(head, Qt.TextElideMode.ElideRight, room).rstrip() + tail
    return metrics.elidedText(text, Qt.TextElideMode.ElideRight, width)


class StatusBar(QStatusBar):
    """A status bar whose message elides (its whole text is the tooltip)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("status-bar")
        self.messageChanged.connect(self.setToolTip)

    def message_width(self) -> int:
        """The room the message has: up to the first visible permanent widget (or the size
        grip), as Qt's own status bar measures it."""
        right = self.width() - 12
        for child in self.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly):
            if child.isVisible():  # with a message shown, only permanent widgets are
                right = min(right, child.x() - 2)
        return max(0, right - 6)

    def paintEvent(self, event: QPaintEvent) -> None:
        message = self.currentMessage()
        if not message:
            super().paintEvent(event)
            return
        painter = QPainter(self)
        option = QStyleOption()
        option.initFrom(self)
        for child in self.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly):
            if child.isVisible() and not isinstance(child, QSizeGrip):
                option.rect = child.geometry().adjusted(-1, -1, 1, 1)  # as QStatusBar frames
                self.style().drawPrimitive(
                    QStyle.PrimitiveElement.PE_FrameStatusBarItem, option, painter, child
                )
        width = self.message_width()
        painter.setPen(self.palette().windowText().color())
        painter.drawText(
            6,
            0,
            width,
            self.height(),
            int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
            elided(message, self.fontMetrics(), width, str(self.property(KEEP) or "")),
        )
        painter.end()
