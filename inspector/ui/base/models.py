"""Thin Qt item models over core state: wire events, one call's fragments, findings.

Invariants:
- The core is the one source of truth. A model keeps only a reference to core lists and the
  number of rows it has announced; ``sync()`` announces what the core appended since (one
  row-range insert per flush), ``reset`` swaps the reference (re-judge, seek, new file).
- No model parses or judges anything: rows are read from core objects on demand, and
  per-fragment JSON state comes from :mod:`inspector.core.calls.progress` (lazy, O(new bytes)).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QStyledItemDelegate, QStyleOptionViewItem, QTableView

from inspector.core.base.model import EventKind, SSEEvent, presence
from inspector.core.calls.accumulator import ToolCall
from inspector.core.calls.progress import FragmentRow, progress_of, visible
from inspector.core.reports.report import Finding
from inspector.ui.base import theme

_Index = QModelIndex | QPersistentModelIndex
SEQ_ROLE = Qt.ItemDataRole.UserRole + 1
"""Every model answers this role with the wire event sequence number behind a row."""
_D = Qt.ItemDataRole
_ANSWERED = frozenset(
    int(r) for r in (_D.DisplayRole, _D.FontRole, _D.ForegroundRole, _D.ToolTipRole, SEQ_ROLE)
)
"""The roles the models answer. A view asks some seven roles per painted cell; the others are
turned away before any row is looked up (painting goes through Python once per role)."""


def _font(mono: bool, strike: bool, italic: bool) -> QFont:
    """One QFont per variant, made once (a font per painted cell costs a C++ object each)."""
    key = (mono, strike, italic)
    font = _FONTS.get(key)
    if font is None:
        font = QFont("monospace") if mono else QFont()
        font.setStrikeOut(strike)
        font.setItalic(italic)
        _FONTS[key] = font
    return font


_FONTS: dict[tuple[bool, bool, bool], QFont] = {}


class _Table(QAbstractTableModel):
    """Shared plumbing: fixed headers, a row count announced in ranges."""

    HEADERS: tuple[str, ...] = ()

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows = 0

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self._rows

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.HEADERS[section] if 0 <= section < len(self.HEADERS) else None
        return None

    def _grow_to(self, n: int) -> int:
        """Announce rows up to ``n`` as one inserted range; returns how many were added."""
        if n <= self._rows:
            return 0
        added = n - self._rows
        self.beginInsertRows(QModelIndex(), self._rows, n - 1)
        self._rows = n
        self.endInsertRows()
        return added

    def _reset_to(self, n: int) -> None:
        self.beginResetModel()
        self._rows = n
        self.endResetModel()


class EventsModel(_Table):
    """The raw wire: every SSE event as received, comments and decode errors included."""

    HEADERS = ("#", "t (ms)", "kind", "event", "bytes", "data")

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._events: Sequence[SSEEvent] = ()

    def set_events(self, events: Sequence[SSEEvent]) -> None:
        """Show another stream's events (a new attempt, file or seek)."""
        self._events = events
        self._reset_to(len(events))

    def sync(self, events: Sequence[SSEEvent] | None = None) -> int:
        """Announce events the core appended since the last flush.

        ``events`` is the list on show now: when a new attempt (or the first one) has begun
        since the last flush it is another list, and the model rebinds to it."""
        if events is not None and events is not self._events:
            self.set_events(events)
            return len(events)
        return self._grow_to(len(self._events))

    def event(self, row: int) -> SSEEvent | None:  # type: ignore[override]
        """The event at ``row`` (row == seq)."""
        return self._events[row] if 0 <= row < self._rows else None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role not in _ANSWERED:
            return None
        ev = self.event(index.row()) if index.isValid() else None
        if ev is None:
            return None
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(ev, col)
        if role == SEQ_ROLE:
            return ev.seq
        if role == Qt.ItemDataRole.ToolTipRole and col == 5:
            return ev.data[:4000] if ev.kind != EventKind.COMMENT else ev.comment
        if role == Qt.ItemDataRole.ForegroundRole:
            if ev.kind == EventKind.ERROR:
                return theme.colour(theme.VERDICT["invalid"])
            if ev.kind == EventKind.COMMENT:
                return theme.colour(theme.PRESENCE["omitted"])
        if role == Qt.ItemDataRole.FontRole and ev.kind == EventKind.COMMENT:
            return _font(False, False, True)
        return None

    @staticmethod
    def _display(ev: SSEEvent, col: int) -> Any:
        if col == 0:
            return str(ev.seq)
        if col == 1:
            return f"{ev.t * 1000:.1f}"
        if col == 2:
            return ev.kind
        if col == 3:
            return ev.event
        if col == 4:
            return f"{ev.start}–{ev.end}"
        body = ": " + ev.comment if ev.kind == EventKind.COMMENT else ev.data
        return body if len(body) <= 240 else body[:239] + "…"


class FragmentsModel(_Table):
    """One lane's fragments: identity as received, the fragment made visible (after the JSON
    paths it writes, when the wire names them: Gemini's ``partialArgs``), JSON state; for a
    free-form input (:attr:`free_text`: a custom tool's) the JSON column says ``text``, never
    a JSON state or error."""

    HEADERS = ("#", "t (ms)", "id", "name", "fragment", "len", "JSON")
    JSON_COLUMN = 6
    FREE_TEXT = "text (not JSON)"
    """What the JSON column says of a free-form input's fragments."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._call: ToolCall | None = None
        self._events: Sequence[SSEEvent] = ()
        self._last: tuple[int, ToolCall, FragmentRow] | None = None
        self._free_text = False

    @property
    def free_text(self) -> bool:
        """The call's input is free-form text: not read as JSON (set by the lane)."""
        return self._free_text

    @free_text.setter
    def free_text(self, on: bool) -> None:
        if on != self._free_text:
            self._free_text = on
            if self._rows:
                col = self.JSON_COLUMN
                self.dataChanged.emit(self.index(0, col), self.index(self._rows - 1, col))

    def set_call(self, call: ToolCall | None, events: Sequence[SSEEvent]) -> None:
        """Show another call (after a re-judge the calls are new objects)."""
        self._call, self._events = call, events
        self._reset_to(call.fragment_count if call is not None else 0)

    def sync(self) -> int:
        """Announce the fragments routed to the call since the last flush (their JSON state
        is worked out only when a row is shown)."""
        return self._grow_to(self._call.fragment_count) if self._call is not None else 0

    def row_of_seq(self, seq: int) -> int | None:
        """The first row whose fragment came from wire event ``seq``."""
        if self._call is None:
            return None
        for i, f in enumerate(self._call.fragments[: self._rows]):
            if f.seq == seq:
                return i
        return None

    def fragment(self, row: int) -> FragmentRow | None:
        """The row's data, computing JSON progress up to it on first sight. The last row
        asked for is kept: a view asks for each cell's roles one call at a time, row by row."""
        if self._call is None or not 0 <= row < self._rows:
            return None
        last = self._last
        if last is not None and last[0] == row and last[1] is self._call:
            return last[2]
        r = progress_of(self._call, self._events, upto=row + 1).rows[row]
        self._last = (row, self._call, r)
        return r

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role not in _ANSWERED:
            return None
        r = self.fragment(index.row()) if index.isValid() else None
        if r is None:
            return None
        col = index.column()
        if col == self.JSON_COLUMN and self._free_text:  # a custom input: never judged as JSON
            if role == Qt.ItemDataRole.DisplayRole:
                return self.FREE_TEXT
            if role == Qt.ItemDataRole.ToolTipRole:
                return "free-form input (a custom tool's): shown as text, not read as JSON"
            return r.seq if role == SEQ_ROLE else None
        if role == Qt.ItemDataRole.DisplayRole:
            paths = self._paths(index.row()) if col == 4 else None
            return f"{paths} ▸ {self._display(r, col)}" if paths else self._display(r, col)
        if role == SEQ_ROLE:
            return r.seq
        if role == Qt.ItemDataRole.FontRole:
            return self._font(r, col)
        if role == Qt.ItemDataRole.ForegroundRole:
            return self._foreground(r, col)
        if role == Qt.ItemDataRole.ToolTipRole:
            paths = self._paths(index.row()) if col == 4 else None
            tip = self._tooltip(r, col)
            return f"JSON path {paths}\n{tip}" if paths and r.accepted else tip
        return None

    def _paths(self, row: int) -> str | None:
        """The JSON paths a fragment writes (Gemini's streamed arguments: ``jsonPaths``)."""
        frags = self._call.fragments if self._call is not None else ()
        extra = frags[row].extra if 0 <= row < len(frags) else None
        paths = extra.get("jsonPaths") if extra else None
        return ", ".join(paths) if isinstance(paths, list) and paths else None

    @staticmethod
    def _display(r: FragmentRow, col: int) -> Any:
        if col == 4:
            return visible(r.text) + ("  (done: restates all)" if r.final else "")
        if col == 0:
            return str(r.seq)
        if col == 1:
            return f"{r.t * 1000:.1f}"
        if col in (2, 3):
            return theme.shown(r.id if col == 2 else r.name)
        return str(r.length) if col == 5 else r.state

    @staticmethod
    def _font(r: FragmentRow, col: int) -> QFont | None:
        italic = col in (2, 3) and presence(r.id if col == 2 else r.name) == "omitted"
        return _font(col == 4, not r.accepted, italic)

    @staticmethod
    def _foreground(r: FragmentRow, col: int) -> QColor | None:
        if not r.accepted:
            return theme.colour(theme.PRESENCE["omitted"])
        if col in (2, 3):
            kind = presence(r.id if col == 2 else r.name)
            return theme.colour(theme.PRESENCE[kind]) if kind != "value" else None
        if col == 6 and r.error:
            return theme.colour(theme.VERDICT["invalid"])
        return None

    @staticmethod
    def _tooltip(r: FragmentRow, col: int) -> str | None:
        if not r.accepted:
            return (
                f"dropped: id {theme.shown(r.id)} was looked up literally and no call "
                "has it (empty-id: literal)"
            )
        if col in (2, 3):
            value = r.id if col == 2 else r.name
            return f"{'id' if col == 2 else 'name'} as received: {presence(value)}"
        if col == 4:
            return repr(r.text)[:2000]
        if col == FragmentsModel.JSON_COLUMN:  # the whole state, however narrow the column
            return f"JSON after this fragment: {r.state}"
        return None


class _ElideRight(QStyledItemDelegate):
    """Cut a cell's text at its end: "open: in string (de…" keeps what matters first."""

    def initStyleOption(self, option: QStyleOptionViewItem, index: _Index) -> None:
        super().initStyleOption(option, index)
        option.textElideMode = Qt.TextElideMode.ElideRight


def elide_json_column(table: QTableView) -> None:
    """A fragment table's JSON column elides at the right (the table elides the middle of
    fragments, whose both ends matter); the tooltip has the whole state."""
    table.setItemDelegateForColumn(FragmentsModel.JSON_COLUMN, _ElideRight(table))


class FindingsModel(_Table):
    """Validation problems, provider quirks and warnings: what is wrong and where."""

    HEADERS = ("", "code", "where", "message")
    SYMBOL: ClassVar[dict[str, str]] = {
        "error": "✖ problem",
        "quirk": "⚑ quirk",
        "warning": "⚠ warning",
    }

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._items: list[Finding] = []

    def set_findings(self, items: list[Finding]) -> None:
        """Replace the list (findings are recomputed per flush from the judged analysis)."""
        if [(f.kind, f.code, f.where, f.message) for f in items] == [
            (f.kind, f.code, f.where, f.message) for f in self._items
        ]:
            self._items = items
            return
        self._items = items
        self._reset_to(len(items))

    def finding(self, row: int) -> Finding | None:
        """The finding at ``row``."""
        return self._items[row] if 0 <= row < self._rows else None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role not in _ANSWERED:
            return None
        f = self.finding(index.row()) if index.isValid() else None
        if f is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return (self.SYMBOL.get(f.kind, f.kind), f.code, f.where, f.message)[index.column()]
        if role == SEQ_ROLE:
            return f.chunks[0] if f.chunks else None
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == 0:
            return theme.colour(
                theme.VERDICT["invalid"] if f.kind == "error" else theme.PRESENCE["repaired"]
            )
        if role == Qt.ItemDataRole.ToolTipRole:
            return f.message
        return None
