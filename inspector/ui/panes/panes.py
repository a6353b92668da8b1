"""The panes under the lanes: raw wire events, problems and quirks, and the turn's summary.

Invariant: panes show core state through thin models; linking (fragment <-> raw event,
finding -> chunks) goes through wire event sequence numbers only, which every row carries.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import (
    QItemSelectionModel,
    QModelIndex,
    QPersistentModelIndex,
    QRect,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import QFont, QTextCursor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFormLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QPlainTextEdit,
    QSplitter,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QTreeWidget,
    QTreeWidgetItem,
    QWidget,
)

from inspector.core.analysis.numbering import attempt_places
from inspector.core.analysis.session import AttemptView
from inspector.core.base.kinds import CallKind
from inspector.core.base.model import EventKind, SSEEvent
from inspector.core.reports import words
from inspector.core.reports.kinds import kind_word
from inspector.core.reports.report import shown
from inspector.core.reports.words import attempt_word, call_word
from inspector.ui.base.models import SEQ_ROLE, EventsModel, FindingsModel
from inspector.ui.lanes.parts import tail_of

MAX_CALL_ITEMS = 200
"""Calls listed at most under an attempt in the Attempts tree (then "… N more calls")."""
TEXT_TAIL = 64 * 1024
"""The Turn pane shows at most this many trailing characters of a text it shows afresh."""


def _table(model: Any, stretch: int, widths: tuple[int, ...]) -> QTableView:
    """A row-selecting table with FIXED column widths: sizing columns to their contents makes
    Qt read every row through Python on each insert, which stalls a fast replay."""
    t = QTableView()
    t.setModel(model)
    t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    t.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    t.verticalHeader().hide()
    t.verticalHeader().setDefaultSectionSize(t.fontMetrics().height() + 6)
    t.setWordWrap(False)
    h = t.horizontalHeader()
    h.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    for col, width in enumerate(widths):
        t.setColumnWidth(col, width)
    h.setSectionResizeMode(stretch, QHeaderView.ResizeMode.Stretch)
    return t


class RawWirePane(QSplitter):
    """Every SSE event as received, and the selected one in full."""

    event_selected = Signal(int)
    """The user selected a raw event: its seq."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.model = EventsModel(self)
        self.table = _table(self.model, 5, (50, 64, 60, 84, 96))
        self.detail = QPlainTextEdit(readOnly=True)
        self.detail.setFont(QFont("monospace"))
        self.detail.setPlaceholderText("Select an event (or a fragment in a lane) to see it here.")
        self.addWidget(self.table)
        self.addWidget(self.detail)
        self.setSizes([700, 400])
        self.table.selectionModel().currentRowChanged.connect(self._row_changed)
        self._state: Any = None  # the stream shown: its framing says what a frame held
        self.masked: Sequence[tuple[int, int]] = ()
        """Byte ranges of the attempt's body the capture writer masked (the session's key)."""

    def sync(self, state: Any) -> None:
        """Show ``state``'s events (a StreamState, or None): the new ones since the last
        call, or all of another stream's."""
        self._state = state
        self.model.sync(state.events if state is not None else None)

    def reset(self, state: Any) -> None:
        """Show ``state``'s events afresh (new call objects after a re-judge)."""
        self._state = state
        self.model.set_events(state.events if state is not None else [])

    def frame_headers(self, ev: SSEEvent) -> Any:
        """The headers of the binary frame ``ev`` was cut from (name, value pairs), or None
        for an SSE event or a JSON line: what the stream's framing kept of them."""
        decoder = self._state.decoder if self._state is not None else None
        headers = getattr(decoder, "headers", None)
        return headers(ev) if headers is not None else None

    def set_masked(self, masked: Sequence[tuple[int, int]]) -> None:
        """The masked byte ranges of the attempt on show (its events' offsets are the same)."""
        self.masked = masked

    def _row_changed(self, current: Any, _previous: Any) -> None:
        seq = self.model.data(current, SEQ_ROLE)
        if seq is None:
            return
        self._show(int(seq))
        self.event_selected.emit(int(seq))

    def _show(self, seq: int) -> None:
        ev = self.model.event(seq)
        if ev is None:
            return
        head = f"#{ev.seq}  {ev.kind}  event={ev.event!r}  bytes {ev.start}–{ev.end}  "
        head += f"t={ev.t * 1000:.1f} ms" + (f"  id={ev.id!r}" if ev.id else "")
        headers = self.frame_headers(ev)
        if headers is not None:  # a binary frame: its headers, then its payload
            head += f"\n\nframe headers ({len(headers)}):\n"
            head += "\n".join(f"  {name}: {value!r}" for name, value in headers)
            head += "\n\npayload:"
        spans = [(a, b) for a, b in self.masked if a < ev.end and b > ev.start]
        if spans:
            where = ", ".join(f"{a}–{b}" for a, b in spans)
            head += (f"\nmasked when recorded: bytes {where} (the session's key, as * of the "
                     "same length)")  # fmt: skip
        if ev.kind == EventKind.COMMENT:
            body = ": " + ev.comment
        else:
            try:
                body = json.dumps(json.loads(ev.data), indent=2, ensure_ascii=False)
            except ValueError:
                body = ev.data
        self.detail.setPlainText(head + "\n\n" + body)

    def select_seq(self, seq: int) -> None:
        """Select and scroll to event ``seq`` without echoing the selection back."""
        if seq >= self.model.rowCount():
            return
        index = self.model.index(seq, 0)
        sm = self.table.selectionModel()
        sm.blockSignals(True)
        sm.setCurrentIndex(
            index,
            QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows,
        )
        sm.blockSignals(False)
        self.table.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)
        self._show(seq)


class FindingsPane(QTableView):
    """Problems, quirks and warnings; activating one jumps to its first chunk."""

    jump = Signal(int)
    """Jump to this wire event seq."""
    reduce_requested = Signal(str)
    """The context menu's "Reduce to a minimal capture…" on a row: its ``--keep`` text."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._context_menu)
        self.model_ = FindingsModel(self)
        self.setModel(self.model_)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.verticalHeader().hide()
        h = self.horizontalHeader()
        h.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        h.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.clicked.connect(self._clicked)
        self.activated.connect(self._clicked)

    def _clicked(self, index: Any) -> None:
        seq = self.model_.data(index, SEQ_ROLE)
        if seq is not None:
            self.jump.emit(int(seq))

    def keep_of(self, row: int) -> str | None:
        """What reducing at ``row`` keeps: ``quirk:CODE`` for a quirk, ``invalid:CODE`` for a
        call's problem; None for a warning or a note (nothing a capture can be reduced to)."""
        f = self.model_.finding(row)
        if f is None:
            return None
        return {"quirk": f"quirk:{f.code}", "error": f"invalid:{f.code}"}.get(f.kind)

    def context_menu_for(self, row: int) -> QMenu | None:
        """The row's context menu (None when it offers nothing)."""
        keep = self.keep_of(row)
        if keep is None:
            return None
        menu = QMenu(self)
        act = menu.addAction("Reduce to a minimal capture…")
        act.setObjectName("action-reduce")
        act.triggered.connect(lambda _checked=False: self.reduce_requested.emit(keep))
        return menu

    def _context_menu(self, pos: Any) -> None:
        menu = self.context_menu_for(self.indexAt(pos).row())
        if menu is not None:
            menu.popup(self.viewport().mapToGlobal(pos))


class TurnPane(QWidget):
    """Text, reasoning, finish reason, usage and provider errors of the attempt, compactly."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        form = QFormLayout(self)
        self.finish = QLabel()
        self.usage = QLabel()
        self.usage.setWordWrap(True)
        self.errors = QLabel()
        self.errors.setWordWrap(True)
        self.text = PiecesText()
        self.reasoning = PiecesText()
        for w in (self.text, self.reasoning):
            w.setMaximumHeight(90)
        form.addRow("Finish reason", self.finish)
        form.addRow("Usage", self.usage)
        form.addRow("Provider errors", self.errors)
        form.addRow("Text", self.text)
        form.addRow("Reasoning", self.reasoning)

    def show_view(self, view: AttemptView | None) -> None:
        """Refresh from the attempt (cheap: joins a few lists)."""
        st = view.state if view else None
        self.finish.setText(repr(st.finish_reason) if st and st.finish else "—")
        self.usage.setText(json.dumps(st.usage) if st and st.usage else "—")
        self.errors.setText(
            "; ".join(str(e.value) for e in st.errors) if st and st.errors else "none"
        )
        self.text.follow(st.text if st else None)
        self.reasoning.follow(st.reasoning if st else None)


class PiecesText(QPlainTextEdit):
    """Text that arrives in pieces (an attempt's text or reasoning), shown as it grows: only
    the pieces that arrived since are appended, so a refresh costs what arrived, not the whole
    text; another list of pieces (another attempt) shows its last :data:`TEXT_TAIL` characters.
    """

    def __init__(self) -> None:
        super().__init__(readOnly=True)
        self._pieces: Sequence[str] | None = None  # the list on show (its identity)
        self._count = 0  # of its pieces, how many are shown

    def follow(self, pieces: Sequence[str] | None) -> None:
        """Show ``pieces`` (None: nothing), appending what arrived since the last call."""
        if pieces is not self._pieces or len(pieces or ()) < self._count:
            self._pieces, self._count = pieces, len(pieces or ())
            self.setPlainText(tail_of(pieces or (), TEXT_TAIL))
        elif pieces is not None and len(pieces) > self._count:
            new = "".join(pieces[self._count :])
            self._count = len(pieces)
            cursor = self.textCursor()
            cursor.movePosition(QTextCursor.MoveOperation.End)
            cursor.insertText(new)


class AttemptsPane(QTreeWidget):
    """Attempts as a tree: each physical request with its outcome and reason, its calls below;
    under "Round R" items when a tool loop has several rounds. An attempt is labelled with its
    number within its round ("round R · attempt N", N from 1 in each round). Attempts and calls
    are said in the one vocabulary (:mod:`inspector.core.reports.words`): with validation off a
    call is "not checked", never "valid".

    Selecting an attempt shows its lanes; selecting a call also selects its lane.

    An outcome that does not fit its column ("↻ retried · stream_invalid_tool_call →
    retry_streaming" in a 1152 px window) wraps onto more lines: it is never cut.
    """

    attempt_selected = Signal(int)
    """1-based session-wide attempt number, as in the capture (0: follow the latest)."""
    call_selected = Signal(int, int)
    """(attempt, lane slot)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setHeaderLabels(["attempt / call", "outcome"])
        self.setRootIsDecorated(True)
        self.setWordWrap(True)  # rows as tall as their wrapped outcome (the column's width)
        self.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.setItemDelegateForColumn(1, _WrappedInColumn(self))
        self.header().sectionResized.connect(lambda *_a: self.scheduleDelayedItemsLayout())
        self._shape: list[tuple[Any, ...]] = []
        self.itemClicked.connect(self._clicked)

    def show_analysis(self, analysis: Any, current: int | None) -> None:
        """Rebuild only when what would be shown changed (cheap per flush)."""
        if analysis is None or not analysis.attempts:
            if self._shape:
                self.clear()
                self._shape = []
            return
        records = analysis.records
        results = {(view.number, r.slot): r for view in analysis.attempts for r in view.results}
        places = attempt_places(analysis.attempts)
        mode = analysis.settings.validation
        shape = [
            (
                view.round,
                r.attempt,
                places[view.number].attempt,
                (word := attempt_word(view, r, analysis.capture)),
                *words.retry_facts(word, r),  # no reason for a retry that never happened
                tuple(
                    (
                        v.call.slot,
                        # a nameless item is named by its wire type; what the
                        # provider runs says so (it is none of the agent's calls)
                        _lane_name(v.call)
                        + (" · hosted" if kind_word(v.call) == CallKind.HOSTED else ""),
                        call_word(v, validation=mode),
                        _result_text(results.get((view.number, v.call.slot))),
                    )
                    for v in view.verdicts[:MAX_CALL_ITEMS]
                ),
                len(view.state.calls),
            )
            for r, view in zip(records, analysis.attempts, strict=False)
        ]
        if shape == self._shape:
            return
        self._shape = shape
        self.clear()
        looped = len({s[0] for s in shape}) > 1
        parents: dict[int, QTreeWidgetItem] = {}
        for rnd, number, in_round, outcome, reason, recovery, calls, total in shape:
            top = self._attempt_item(number, in_round, outcome, reason, recovery, calls)
            if total > len(calls):  # a tree of thousands of calls takes seconds to build
                more = QTreeWidgetItem([f"… {total - len(calls):,} more calls", ""])
                more.setToolTip(0, "The lanes page through every call (the hint over them)")
                more.setData(0, Qt.ItemDataRole.UserRole, (number, None))
                top.addChild(more)
            if looped:
                if rnd not in parents:
                    parents[rnd] = QTreeWidgetItem([f"Round {rnd}", ""])
                    parents[rnd].setData(0, Qt.ItemDataRole.UserRole, (number, None))
                    self.addTopLevelItem(parents[rnd])
                    parents[rnd].setExpanded(True)
                parents[rnd].addChild(top)
            else:
                self.addTopLevelItem(top)
            top.setExpanded(True)
            if current == number or (current is None and number == len(shape)):
                top.setSelected(True)
        self.resizeColumnToContents(0)

    @staticmethod
    def _attempt_item(
        number: int,
        in_round: int,
        outcome: str,
        reason: str | None,
        recovery: str | None,
        calls: tuple[tuple[Any, ...], ...],
    ) -> QTreeWidgetItem:
        label = words.label(outcome) + (f" · {reason}" if reason else "")
        label += f" → {recovery}" if recovery else ""
        top = QTreeWidgetItem([f"Attempt {in_round}", label])  # N from 1 in each round
        top.setToolTip(1, f"{label}\n{outcome}: {words.MEANING.get(outcome, '')}")
        top.setData(0, Qt.ItemDataRole.UserRole, (number, None))
        for slot, name, word, result in calls:
            child = QTreeWidgetItem([f"#{slot} {name}", words.label(word)])
            child.setToolTip(1, f"{word}: {words.MEANING[word]}")
            child.setData(0, Qt.ItemDataRole.UserRole, (number, slot))
            if result:
                leaf = QTreeWidgetItem(["⇦ result", result])
                leaf.setData(0, Qt.ItemDataRole.UserRole, (number, slot))
                child.addChild(leaf)
                child.setExpanded(True)
            top.addChild(child)
        return top

    def select_attempt(self, number: int) -> None:
        """Select attempt ``number``'s item (as a click would, without emitting)."""
        for item in self.findItems("*", Qt.MatchFlag.MatchWildcard | Qt.MatchFlag.MatchRecursive):
            attempt = item.text(0).startswith("Attempt")  # a round's item carries one too
            if attempt and item.data(0, Qt.ItemDataRole.UserRole) == (number, None):
                self.setCurrentItem(item)
                return

    def _clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        number, slot = item.data(0, Qt.ItemDataRole.UserRole)
        self.attempt_selected.emit(number)
        if slot is not None:
            self.call_selected.emit(number, slot)


class _WrappedInColumn(QStyledItemDelegate):
    """A cell as tall as its text wrapped to its column's width (a tree asks its delegate
    for a row's height with no width, so Qt's own word wrap never adds a line)."""

    def __init__(self, tree: QTreeWidget) -> None:
        super().__init__(tree)
        self._tree = tree

    def sizeHint(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        sized = QStyleOptionViewItem(option)
        sized.rect = QRect(0, 0, self._tree.columnWidth(index.column()), 1)  # (a copy: assign)
        sized.features |= QStyleOptionViewItem.ViewItemFeature.WrapText
        return super().sizeHint(sized, index)

    def initStyleOption(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        super().initStyleOption(option, index)
        option.features |= QStyleOptionViewItem.ViewItemFeature.WrapText  # painted wrapped


def _result_text(result: Any) -> str:
    """A tool result in one short line for the tree ("" when none landed yet)."""
    if result is None:
        return ""
    took = f" {result.duration * 1000:.0f} ms" if result.duration is not None else ""
    return ("✖ " + (result.error_kind or "error") if result.is_error else "✔ ok") + took


def _lane_name(call: Any) -> str:
    """A call's name as received; a nameless item (an image_generation_call) is named by its
    wire type, a nameless function call reads as its omission ("(omitted)")."""
    if isinstance(call.name, str):
        return call.name
    return shown(call.name) if call.kind == CallKind.FUNCTION else call.item_type
