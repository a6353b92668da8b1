"""Two parts of a lane that stream: the growing argument buffer and the status line.

Invariants:
- Both change on every flush while their call streams, so neither may cost more than what
  arrived: the buffer appends only the new text and shows at most ``BUFFER_TAIL`` trailing
  characters (one long line is laid out whole on every change); the status line has a fixed
  size, changed only when its width or line count changes (a label sized by its text makes its
  lane, then every lane, lay out and repaint on each change).
- They show core state and keep none of their own beyond how much of it they have shown.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QTextEdit, QWidget

from inspector.core.calls.accumulator import ToolCall

BUFFER_TAIL = 2 * 1024
"""The buffer view shows at most this many trailing characters (the tooltip says so; the
Parsed tab has the whole call once it completes). Laying out one long line costs ~1.5 ms per
KiB on every append and reset, and a streaming lane appends on every flush: 2 KiB (some 20
lines of a lane, several times what it shows) keeps that to a few milliseconds."""


class TailBuffer(QPlainTextEdit):
    """A call's argument buffer as it grows: its tail, appended to flush by flush."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setFont(QFont("monospace"))
        self.start = 0
        """Characters of the arguments before the part on show."""
        self.shown = 0
        """Characters of the arguments shown so far (counted from the start of the text)."""
        self._parts = 0  # of the call's parts, how many are in the text

    def reset(self) -> None:
        """Show nothing."""
        self.clear()
        self.start = self.shown = self._parts = 0

    def show_call(self, call: ToolCall) -> None:
        """Show ``call``'s arguments afresh (their tail, read from the last pieces: never the
        whole text, which a streaming lane would join on every flush)."""
        tail = tail_of(call.parts, BUFFER_TAIL)
        self.start = call.length - len(tail)
        self.setPlainText(tail)
        self.shown, self._parts = call.length, len(call.parts)
        note = f"showing the last {len(tail):,} of {call.length:,} characters"
        self.setToolTip(note if self.start else "")

    def keep_for(self, old: ToolCall | None, call: ToolCall) -> bool:
        """Take ``call`` in place of ``old`` without redrawing if the text is the same (a
        re-judge that kept it); False when it has to be shown afresh."""
        if old is None or not old.length == self.shown == call.length:
            return False
        if old.arguments != call.arguments:
            return False
        self._parts = len(call.parts)
        return True

    def follow(self, call: ToolCall, streaming: bool = False) -> None:
        """Once per flush: append what arrived since (or show the tail afresh when the text
        on show would grow past twice the tail). While data streams in (``streaming``), a
        buffer scrolled out of sight is not shown afresh: it catches up at a flush that finds
        it in sight, or once the stream stands still."""
        if call.length <= self.shown:
            return
        if call.length - self.start > 2 * BUFFER_TAIL:
            if not (streaming and self.visibleRegion().isEmpty()):
                self.show_call(call)
            return
        new = "".join(call.parts[self._parts :])
        cursor = self.textCursor()
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(new)
        self.shown += len(new)
        self._parts = len(call.parts)

    def mark_error(self, args: str, offset: int | None, message: str) -> bool:
        """Mark the character at byte ``offset`` of ``args`` in red; False when there is no
        offset or it lies before the part on show (nothing is marked then)."""
        if offset is None:
            self.setExtraSelections([])
            return False
        char = len(args.encode()[:offset].decode(errors="ignore")) - self.start
        if char < 0:
            self.setExtraSelections([])
            return False
        sel = QTextEdit.ExtraSelection()
        fmt = QTextCharFormat()
        fmt.setBackground(QColor("#e53935"))
        fmt.setForeground(QColor("#ffffff"))
        sel.format = fmt
        cursor = self.textCursor()
        cursor.setPosition(min(char, len(args) - self.start))
        cursor.movePosition(QTextCursor.MoveOperation.Right, QTextCursor.MoveMode.KeepAnchor)
        if not cursor.hasSelection():  # error at end of input: mark the last character
            cursor.movePosition(QTextCursor.MoveOperation.Left, QTextCursor.MoveMode.KeepAnchor)
        sel.cursor = cursor
        self.setExtraSelections([sel])
        self.setToolTip(message)
        return True


_FIGURES = re.compile(r"[0-9]")


def tail_of(parts: Sequence[str], limit: int) -> str:
    """The last ``limit`` characters of ``"".join(parts)``, joining only the last pieces."""
    pieces: list[str] = []
    size, i = 0, len(parts)
    while i > 0 and size < limit:
        i -= 1
        pieces.append(parts[i])
        size += len(parts[i])
    text = "".join(reversed(pieces))
    return text[size - limit :] if size > limit else text


class StatusLabel(QLabel):
    """A rich-text status line of a fixed size that follows its text and width: a base line
    (verdict and counts, replaced on every change) and notes under it, one per kind (the JSON
    error, a compare mark), each replaced or removed, never appended to."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setWordWrap(True)
        self._size = (0, 0)
        self._shape = (0, "")  # last measured: the width and the text, its figures as 0
        self._base = ""
        self._notes: dict[str, str] = {}
        self._measure = QLabel(self)  # a hidden twin: a label's own heightForWidth never
        self._measure.setTextFormat(Qt.TextFormat.RichText)  # goes below its (fixed) height
        self._measure.setWordWrap(True)
        self._measure.hide()

    def set_base(self, html: str, width: int) -> None:
        """The first line (the notes stay)."""
        if html != self._base:
            self._base = html
            self._show(width)

    def set_note(self, kind: str, html: str | None, width: int) -> None:
        """Put (or with None, take away) the note of ``kind``."""
        if html is None:
            if self._notes.pop(kind, None) is not None:
                self._show(width)
        elif self._notes.get(kind) != html:
            self._notes[kind] = html
            self._show(width)

    def _show(self, width: int) -> None:
        self.setText("<br>".join([self._base, *self._notes.values()]))
        self.fit(width)

    def fit(self, width: int) -> None:
        """Take ``width`` and the height the text needs there. The text is measured again only
        when its shape changed, not when only its figures did (digits share one width in the
        UI fonts): a streaming lane's counts change on every flush, and measuring rich text
        costs most of a millisecond."""
        width = max(width, 50)
        if not self.text():  # a lane built ahead, bound to no call yet
            return
        shape = (width, _FIGURES.sub("0", self.text()))
        if shape == self._shape:
            return
        self._shape = shape
        self._measure.setText(self.text())
        size = (width, self._measure.heightForWidth(width))
        if size != self._size:
            self._size = size
            self.setFixedSize(*size)


class ClientsBadge(QLabel):
    """``✗ 2 clients`` beside a lane's header when some client library would not hand its call
    over as shown (the tooltip names them, with the word); hidden otherwise. It changes only
    when the clients' verdict does (never per flush), so its style sheet costs nothing."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lane-clients-badge")
        self.setTextFormat(Qt.TextFormat.PlainText)
        self._colour = ""
        self.hide()

    def show_marks(self, text: str | None, tooltip: str = "", colour: str = "") -> None:
        """Show ``text`` in ``colour`` (a bordered badge), or hide the badge (None)."""
        if text is None:
            if not self.isHidden():
                self.hide()
            return
        if colour != self._colour:
            self._colour = colour
            self.setStyleSheet(
                f"QLabel {{ color: {colour}; border: 1px solid {colour}; border-radius: 3px;"
                " padding: 0px 4px; font-weight: bold; }"
            )
        if text != self.text():
            self.setText(text)
        self.setToolTip(tooltip)
        if self.isHidden():
            self.show()


def holds_seq(call: ToolCall, seq: int) -> bool:
    """Was a fragment of ``call`` read from wire event ``seq``?"""
    frags = call.fragments
    if not frags or not frags[0].seq <= seq <= frags[-1].seq:
        return False
    return any(f.seq == seq for f in frags)
