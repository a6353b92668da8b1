"""Lanes: one column per tool call, in lane order, filling as fragments arrive.

Invariants:
- A lane is a view of one core :class:`ToolCall` and its :class:`CallVerdict`; it holds no
  state of its own beyond what it has already shown (row count, buffer length).
- ``sync`` is called once per flush: the fragment table inserts a row range and the buffer
  appends only the new text. JSON pretty-printing and highlighting happen once, when the call
  completes (or after a re-judge), never per fragment.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from html import escape

from PySide6.QtCore import QItemSelectionModel, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QPainter,
    QPaintEvent,
    QPen,
    QResizeEvent,
    QTextCharFormat,
    QTextCursor,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QScrollArea,
    QSplitter,
    QTableView,
    QTabWidget,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from ..core.accumulator import ToolCall
from ..core.analysis import AttemptView, CallVerdict
from ..core.continuation import ToolResult
from ..core.model import SSEEvent, presence
from . import theme
from .highlight import JsonHighlighter
from .models import SEQ_ROLE, FragmentsModel

LANE_WIDTH = 540
COLUMN_WIDTHS = (52, 62, 80, 72, 150, 36, 110)
"""Fragment table: #, t, id, name, fragment (stretches), len, JSON state."""
BUFFER_TAIL = 2 * 1024
"""The buffer view shows at most this many trailing characters (the tooltip says so; the
Parsed tab has the whole call once it completes). Laying out one long line costs ~1.5 ms per
KiB on every append and reset, and a streaming lane appends on every flush: 2 KiB (some 20
lines of a lane, several times what it shows) keeps that to a few milliseconds."""
PARSED_LIMIT = 256 * 1024
"""Pretty-printed arguments beyond this are cut (with a note)."""
COMPACT_WIDTH = 400
COMPACT_HIDDEN = (1, 5)
"""Columns the compare view hides (time and running length)."""


def verdict_key(v: CallVerdict | None, call: ToolCall, mode: str) -> str:
    """Which VERDICT entry a lane shows."""
    if v is None or call.open:
        return "streaming"
    if v.orphan:
        return "orphan"
    if not v.valid:
        return "invalid"
    return "unchecked" if mode == "off" else "valid"


def _ident(label: str, value: object, repaired: str | None = None) -> str:
    kind = "repaired" if repaired else presence(value)
    shown = repaired if repaired else theme.shown(value)
    return f"{label} <b>{escape(str(shown))}</b> {theme.badge_html(kind)}"


class LaneWidget(QFrame):
    """One call: header, fragment table, growing buffer, parsed arguments."""

    fragment_selected = Signal(int)
    """A fragment row was selected: the wire event seq behind it."""

    def __init__(self, parent: QWidget | None = None, compact: bool = False) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setMinimumWidth(COMPACT_WIDTH if compact else LANE_WIDTH)
        self.compact = compact
        """Compare view: fewer columns so two sets of lanes fit side by side."""
        self.call: ToolCall | None = None
        self.verdict: CallVerdict | None = None
        self._shown_len = 0
        self._shown_start = 0
        self._parts_shown = 0
        self._colour = ""
        self._parsed_for: ToolCall | None = None
        self._finished_for: tuple[int, str] | None = None
        self.header = QLabel()
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setWordWrap(True)
        self.status = QLabel()
        self.status.setTextFormat(Qt.TextFormat.RichText)
        self.status.setWordWrap(True)
        self._status_size = (0, 0)
        self._measure = QLabel(self)
        self._measure.setTextFormat(Qt.TextFormat.RichText)
        self._measure.setWordWrap(True)
        self._measure.hide()
        self._refreshed: tuple[object, ...] = ()
        self.model = FragmentsModel(self)
        self.table = self._make_table()
        for col in COMPACT_HIDDEN if compact else ():
            self.table.hideColumn(col)
        self.buffer = QPlainTextEdit(readOnly=True)
        self.buffer.setFont(QFont("monospace"))
        self.parsed = QPlainTextEdit(readOnly=True)
        self.parsed.setFont(QFont("monospace"))
        self._highlighter = JsonHighlighter(self.parsed.document())
        self.tabs = QTabWidget()
        self.tabs.addTab(self.buffer, "Buffer")
        self.tabs.addTab(self.parsed, "Parsed")
        self.result = QPlainTextEdit(readOnly=True)
        self.result.setFont(QFont("monospace"))
        self.result_line = QLabel()
        self.result_line.setTextFormat(Qt.TextFormat.RichText)
        self.result_line.setWordWrap(True)
        self.result_line.hide()
        self._result_for: object = None
        self.tabs.currentChanged.connect(lambda _i: self._fill_parsed())
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(self.tabs)
        split.setSizes([260, 140])
        lay = self._lay = QVBoxLayout(self)
        lay.addWidget(self.header)
        lay.addWidget(self.status)
        lay.addWidget(self.result_line)
        lay.addWidget(split, 1)

    def _make_table(self) -> QTableView:
        t = QTableView()
        t.setModel(self.model)
        t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        t.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        t.verticalHeader().hide()
        t.setWordWrap(False)
        t.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        h = t.horizontalHeader()
        h.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        h.setStretchLastSection(False)
        for col, width in enumerate(COLUMN_WIDTHS):
            t.setColumnWidth(col, width)
        h.setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)
        t.verticalHeader().setDefaultSectionSize(t.fontMetrics().height() + 6)
        t.selectionModel().currentRowChanged.connect(self._row_changed)
        return t

    def _row_changed(self, current: object, _previous: object) -> None:
        seq = self.model.data(current, SEQ_ROLE)  # type: ignore[arg-type]
        if seq is not None:
            self.fragment_selected.emit(int(seq))

    # -- binding -------------------------------------------------------------------------

    def unbind(self) -> None:
        """Show nothing (the lane is kept hidden for reuse)."""
        self.call = self.verdict = None
        self.model.set_call(None, ())
        self.buffer.clear()
        self.parsed.clear()
        self._shown_len = self._shown_start = self._parts_shown = 0
        self._parsed_for = None
        self._finished_for = None
        self._refreshed = ()
        self._colour = ""
        self.show_result(None)

    def bind(self, call: ToolCall, verdict: CallVerdict | None, events: Sequence[SSEEvent],
             mode: str) -> None:
        """Show a call. Another call object (a re-judge made new ones) resets everything; the
        same one (a validation flip) only refreshes the verdict."""
        if call is self.call:
            self.sync(verdict, mode)
            return
        old, self.call, self.verdict = self.call, call, verdict
        self.model.set_call(call, events)
        if (old is not None and old.length == self._shown_len == call.length
                and old.arguments == call.arguments):  # a re-judge that kept the text: keep
            self._parts_shown = len(call.parts)  # the buffer (laying out 16 KiB costs ~10 ms)
        else:
            self._show_buffer(call.arguments)
        self._finished_for = None
        self._refresh(mode)

    def sync(self, verdict: CallVerdict | None, mode: str, rows: bool = True) -> None:
        """Once per flush: new buffer text, header and completion state, and (with ``rows``)
        the new fragment rows."""
        if self.call is None:
            return
        self.verdict = verdict
        if rows:
            self.model.sync()
        call = self.call
        if call.length > self._shown_len:
            if call.length - self._shown_start > 2 * BUFFER_TAIL:
                self._show_buffer(call.arguments)
            else:  # only the parts that arrived since the last flush: O(new text)
                new = "".join(call.parts[self._parts_shown:])
                cursor = self.buffer.textCursor()
                cursor.movePosition(QTextCursor.MoveOperation.End)
                cursor.insertText(new)
                self._shown_len += len(new)
                self._parts_shown = len(call.parts)
        self._refresh(mode)

    def _show_buffer(self, args: str) -> None:
        """Show the buffer, or its last BUFFER_TAIL characters: a text widget holding
        megabytes on one line makes every append and paint slow."""
        self._shown_start = max(0, len(args) - BUFFER_TAIL)
        self.buffer.setPlainText(args[self._shown_start:])
        self._shown_len = len(args)
        self._parts_shown = len(self.call.parts) if self.call is not None else 0
        note = f"showing the last {BUFFER_TAIL:,} of {len(args):,} characters"
        self.buffer.setToolTip(note if self._shown_start else "")

    def _refresh(self, mode: str) -> None:
        call, v = self.call, self.verdict
        if call is None:
            return
        seen = (call, v, mode, call.length, len(call.fragments), call.open, call.truncated,
                call.dropped_count, call.id, call.name, theme.is_dark())
        if seen == self._refreshed:  # nothing on show changed (a closed lane, every flush)
            return
        self._refreshed = seen
        key = verdict_key(v, call, mode)
        label, light, dark = theme.VERDICT[key]
        colour = dark if theme.is_dark() else light
        repaired = v.repaired_id if v else None
        dropped = call.dropped_count
        header = (f"<b>#{call.slot}</b> &nbsp; {_ident('index', call.index)}<br>"
                  f"{_ident('id', call.id, repaired)}<br>{_ident('name', call.name)}")
        if header != self.header.text():
            self.header.setText(header)
        size = (f"{len(call.arguments.encode()):,} bytes" if not call.open
                else f"{call.length:,} chars")  # bytes once, when complete
        facts = (f"{len(call.fragments) - dropped} fragments"
                 + (f", <s>{dropped} dropped</s>" if dropped else "") + f" · {size}")
        if call.truncated:
            facts += " · truncated"
        status = f'<span style="color:{colour}"><b>{label}</b></span> &nbsp; {facts}'
        if not self.status.text().startswith(status):
            self._set_status(status)
        if colour != self._colour:
            self._colour = colour
            self.update()  # the border is painted (a style sheet would re-polish the subtree)
        if not call.open:
            self._finish(v)

    def _set_status(self, html: str) -> None:
        """The status line changes on every flush while the call streams. A label sized by its
        text would make the lane, then every lane, lay out and repaint each time: it gets a
        fixed size instead, changed only when the lane's width or the line count changes."""
        self.status.setText(html)
        self._fit_status()

    def _fit_status(self) -> None:
        margins = self._lay.contentsMargins()
        width = max(self.contentsRect().width() - margins.left() - margins.right(), 50)
        measure = self._measure  # a hidden twin: the label's own heightForWidth never goes
        measure.setText(self.status.text())  # below its current (fixed) height
        size = (width, measure.heightForWidth(width))
        if size != self._status_size:
            self._status_size = size
            self.status.setFixedSize(*size)

    def paintEvent(self, event: QPaintEvent) -> None:
        """The verdict colour as a 2 px border (drawn here: setting a style sheet on every
        verdict change re-polishes the lane's whole subtree, tens of milliseconds each)."""
        super().paintEvent(event)
        if self._colour:
            painter = QPainter(self)
            painter.setPen(QPen(QColor(self._colour), 2))
            painter.drawRect(self.rect().adjusted(1, 1, -1, -1))
            painter.end()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_status()

    def _finish(self, v: CallVerdict | None) -> None:
        """Completion work, once per (call, verdict): pretty JSON and the error mark."""
        assert self.call is not None
        stamp = (id(self.call), repr([(p.code, p.offset) for p in v.problems]) if v else "")
        if self._finished_for == stamp:
            return
        self._finished_for = stamp
        if self.tabs.currentWidget() is self.parsed:
            self._fill_parsed()
        self._mark_error(v)

    def _fill_parsed(self) -> None:
        """Pretty-print and highlight the arguments: only when the tab is shown, once."""
        call = self.call
        if call is None or call.open or self._parsed_for is call:
            return
        if self._parsed_for is not None and self._parsed_for.arguments == call.arguments:
            self._parsed_for = call  # the same text (a re-judge): what is shown stays right
            return
        self._parsed_for = call
        try:
            pretty = json.dumps(json.loads(call.arguments or "{}"), indent=2, ensure_ascii=False)
        except ValueError:
            pretty = ""
        if len(pretty) > PARSED_LIMIT:
            pretty = pretty[:PARSED_LIMIT] + f"\n… ({len(pretty) - PARSED_LIMIT:,} more characters)"
        self.parsed.setPlainText(pretty or "(not valid JSON; see Buffer)")

    def _mark_error(self, v: CallVerdict | None) -> None:
        bad = next((p for p in (v.problems if v else []) if p.code == "invalid_json"), None)
        if bad is None or bad.offset is None or self.call is None:
            self.buffer.setExtraSelections([])
            return
        args = self.call.arguments
        char = len(args.encode()[: bad.offset].decode(errors="ignore")) - self._shown_start
        if char < 0:  # the error lies before the part of the buffer on show
            self._set_status(self.status.text() + f"<br>✖ {escape(bad.message)}")
            return
        sel = QTextEdit.ExtraSelection()
        fmt = QTextCharFormat()
        fmt.setBackground(QColor("#e53935"))
        fmt.setForeground(QColor("#ffffff"))
        sel.format = fmt
        cursor = self.buffer.textCursor()
        cursor.setPosition(min(char, len(args) - self._shown_start))
        cursor.movePosition(QTextCursor.MoveOperation.Right, QTextCursor.MoveMode.KeepAnchor)
        if not cursor.hasSelection():  # error at end of input: mark the last character
            cursor.movePosition(QTextCursor.MoveOperation.Left, QTextCursor.MoveMode.KeepAnchor)
        sel.cursor = cursor
        self.buffer.setExtraSelections([sel])
        self.buffer.setToolTip(bad.message)
        self._set_status(self.status.text() + f"<br>✖ {escape(bad.message)}")
        self.tabs.setCurrentWidget(self.buffer)

    def show_result(self, result: ToolResult | None) -> None:
        """A tool result landed for this call (tool loop): when, how long, and what it says."""
        if result is self._result_for:
            return
        self._result_for = result
        if result is None:
            self.result_line.hide()
            idx = self.tabs.indexOf(self.result)
            if idx >= 0:
                self.tabs.removeTab(idx)
            return
        mark = "✖ tool error" if result.is_error else "✔ result"
        where = ""
        if result.dispatched is not None:
            where += (f" · dispatched at chunk {result.dispatched.chunks} "
                      f"({result.dispatched.t * 1000:.0f} ms"
                      f"{', after the stream' if result.dispatched.ended else ', mid-stream'})")
        if result.completed is not None:
            where += (f" · landed at chunk {result.completed.chunks} "
                      f"({result.completed.t * 1000:.0f} ms)")
        took = f" in {result.duration * 1000:.0f} ms" if result.duration is not None else ""
        title = f" — <b>{escape(result.title)}</b>" if result.title else ""
        self.result_line.setText(f"⇦ {mark}{took}{where}{title}")
        self.result_line.show()
        body = {"output": result.output}
        if result.metadata:
            body["metadata"] = result.metadata
        if result.error_kind:
            body["error_kind"] = result.error_kind
        self.result.setPlainText(json.dumps(body, indent=2, ensure_ascii=False, default=str))
        if self.tabs.indexOf(self.result) < 0:
            self.tabs.addTab(self.result, "Result")

    def select_seq(self, seq: int) -> bool:
        """Select the fragment that came from wire event ``seq`` (without re-emitting)."""
        row = self.model.row_of_seq(seq)
        if row is None:
            return False
        index = self.model.index(row, 0)
        self.table.blockSignals(True)
        self.table.selectionModel().blockSignals(True)
        self.table.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows)
        self.table.selectionModel().blockSignals(False)
        self.table.blockSignals(False)
        self.table.scrollTo(index)
        return True


class LanesView(QScrollArea):
    """All lanes of one attempt side by side, in lane order."""

    fragment_selected = Signal(int)
    """Re-emitted from any lane: the wire event seq of the selected fragment."""

    def __init__(self, parent: QWidget | None = None, compact: bool = False) -> None:
        super().__init__(parent)
        self.compact = compact
        self.setWidgetResizable(True)
        self._inner = QWidget()
        self._row = QHBoxLayout(self._inner)
        self._row.setContentsMargins(4, 4, 4, 4)
        self._empty = QLabel("No tool calls in this attempt (yet).")
        self._empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._row.addWidget(self._empty, 1)
        self.setWidget(self._inner)
        self.lanes: list[LaneWidget] = []
        """The lanes on show, one per call, in lane order."""
        self._spare: list[LaneWidget] = []  # hidden, unbound: reused before building new ones
        self._keep_for: object = None  # the recorded attempt a rewind will show again
        self.bound_to: AttemptView | None = None
        """The attempt the lanes show; another one (a retry began) means rebind."""
        self._mode = "structural"

    def rebind(self, view: AttemptView | None, mode: str) -> None:
        """Bind lanes to the current calls (after a re-judge, seek or new file)."""
        old, self._mode, self.bound_to = self.bound_to, mode, view
        # A rewound replay (F5, a seek back) will show the same calls again: hidden lanes keep
        # their place in the row, so a lane that reappears mid-replay is only painted, without
        # laying out the row (tens of milliseconds). Anything else gives the space back.
        if view is None:
            if old is not None:  # rewound to before the first chunk
                self._keep_for = old.source
        elif old is None:  # the attempt (re)appears: still the rewound one?
            if view.source is None or view.source is not self._keep_for:
                self._keep_for = None
        elif (view.source is not None and view.source is old.source
              and len(view.state.events) < len(old.state.events)):  # a seek back
            self._keep_for = view.source
        else:  # another attempt or file, or a re-judge
            self._keep_for = None
        rewound = self._keep_for is not None
        calls = view.state.calls if view else []
        verdicts = view.verdicts if view else []
        while len(self.lanes) > len(calls):  # kept, hidden, for reuse
            lane = self.lanes.pop()
            lane.unbind()
            lane.hide()
            self._spare.append(lane)
        for lane in self._spare:
            policy = lane.sizePolicy()
            if policy.retainSizeWhenHidden() != rewound:
                policy.setRetainSizeWhenHidden(rewound)
                lane.setSizePolicy(policy)
        for i, call in enumerate(calls):
            lane = self.lanes[i] if i < len(self.lanes) else self._add_lane()
            lane.bind(call, verdicts[i] if i < len(verdicts) else None,
                      view.state.events if view else (), mode)
        self._results(view)
        self._empty.setVisible(not calls)

    def sync(self, view: AttemptView | None, rows: bool = True) -> None:
        """Once per flush: new lanes for new calls, then each lane's own sync (fragment rows
        only with ``rows``: announcing rows repaints every table, see MainWindow._on_flush)."""
        if view is None:
            return
        calls, verdicts = view.state.calls, view.verdicts
        for i, call in enumerate(calls):
            v = verdicts[i] if i < len(verdicts) else None
            if i >= len(self.lanes):
                self._add_lane().bind(call, v, view.state.events, self._mode)
            elif self.lanes[i].call is not call:
                self.lanes[i].bind(call, v, view.state.events, self._mode)
            else:
                self.lanes[i].sync(v, self._mode, rows)
        self._results(view)
        self._empty.setVisible(not calls)

    def _results(self, view: AttemptView | None) -> None:
        by_slot = {r.slot: r for r in view.results} if view is not None else {}
        for lane in self.lanes:
            lane.show_result(by_slot.get(lane.call.slot) if lane.call is not None else None)

    def _add_lane(self) -> LaneWidget:
        """The next lane: a spare one if any (a rewound replay left them; building and
        polishing a lane mid-replay costs a frame of tens of milliseconds), else a new one."""
        if self._spare:
            lane = self._spare.pop()
            lane.show()
        else:
            lane = LaneWidget(compact=self.compact)
            lane.fragment_selected.connect(self.fragment_selected)
            self._row.insertWidget(len(self.lanes) + len(self._spare), lane, 1)
        self.lanes.append(lane)
        return lane

    def select_seq(self, seq: int) -> LaneWidget | None:
        """Select the fragment from wire event ``seq`` in whichever lane has it."""
        for lane in self.lanes:
            if lane.select_seq(seq):
                self.ensureWidgetVisible(lane)
                return lane
        return None

    def mark(self, slots: dict[int, str]) -> None:
        """Compare view: put a note (e.g. "≠ verdict differs") on the given lanes."""
        for lane in self.lanes:
            note = slots.get(lane.call.slot) if lane.call else None
            if note:
                lane.status.setText(lane.status.text() + f"<br><b>≠ {escape(note)}</b>")
