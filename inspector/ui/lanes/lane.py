"""A lane: one tool call as it arrives (header, fragment table, buffer, parsed arguments).

Invariants:
- A lane is a view of one core :class:`ToolCall` and its :class:`CallVerdict`; it holds no
  state of its own beyond what it has already shown (row count, buffer length).
- The verdict is said in the one vocabulary (:mod:`inspector.core.reports.words`): with
  validation off a lane says "not checked", never "valid".
- A call written in the assistant text says **from text** and its format where a wire call
  shows its index; a fragment that names the JSON paths it writes (Gemini's ``partialArgs``)
  shows them before its text.
- A lane says its item's kind and wire item type; a hosted item's lane is muted, a custom
  input is shown as text, and results the stream carried sit beside the call
  (:mod:`inspector.ui.lanes.kinds`).
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
    QRegion,
    QResizeEvent,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from inspector.core.analysis.continuation import ToolResult
from inspector.core.analysis.session import CallVerdict
from inspector.core.base.model import SSEEvent, presence
from inspector.core.calls.accumulator import ToolCall
from inspector.core.calls.textcalls import written_as
from inspector.core.reports import words
from inspector.core.reports.words import call_word
from inspector.ui.base import theme
from inspector.ui.base.models import SEQ_ROLE, FragmentsModel
from inspector.ui.lanes import kinds
from inspector.ui.lanes.highlight import JsonHighlighter
from inspector.ui.lanes.parts import ClientsBadge, StatusLabel, TailBuffer

BORDER = 3
"""Pixels along a lane's edges its verdict border is painted in (a 2 px pen, 1 px in)."""
LANE_WIDTH = 540
COLUMN_WIDTHS = (52, 62, 80, 72, 150, 36, 110)
"""Fragment table: #, t, id, name, fragment (stretches), len, JSON state."""
PARSED_LIMIT = 256 * 1024
"""Pretty-printed arguments beyond this are cut (with a note)."""
COMPACT_WIDTH = 400
COMPACT_HIDDEN = (1, 5)
"""Columns the compare view hides (time and running length)."""


_COLOUR_OF: dict[str, str] = {"not checked": "unchecked", "truncated": "invalid"}
"""The theme's VERDICT entry whose colour a word takes (others: the entry of the same name)."""


def lane_verdict(v: CallVerdict | None, call: ToolCall, mode: str) -> tuple[str, str, str]:
    """(label, light colour, dark colour) of the call's word (:func:`call_word`)."""
    word = call_word(v, validation=mode, open_=call.open)
    _, light, dark = theme.VERDICT[_COLOUR_OF.get(word, word)]
    return words.label(word), light, dark


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
        self._colour = ""
        self._parsed_for: ToolCall | None = None
        self._finished_for: tuple[int, str] | None = None
        self.header = QLabel()
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setWordWrap(True)
        self.reported_line, self.reported = kinds.widgets()
        self._reported_for: tuple[object, int] | None = None
        self.status = StatusLabel()
        self.clients = ClientsBadge()
        """Which client libraries would not hand this call over as shown (the Clients view)."""
        self._refreshed: tuple[object, ...] = ()
        self.model = FragmentsModel(self)
        self.table = self._make_table()
        for col in COMPACT_HIDDEN if compact else ():
            self.table.hideColumn(col)
        self.buffer = TailBuffer()
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
        top = QHBoxLayout()
        top.addWidget(self.header, 1)
        top.addWidget(self.clients, 0, Qt.AlignmentFlag.AlignTop)
        lay.addLayout(top)
        lay.addWidget(self.status)
        lay.addWidget(self.result_line)
        lay.addWidget(self.reported_line)
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
        self.buffer.reset()
        self.parsed.clear()
        self._parsed_for = None
        self._finished_for = None
        self._refreshed = ()
        self._colour = ""
        self.status.set_note("error", None, self.status_width())
        self.clients.show_marks(None)
        self.show_result(None)
        kinds.show_kind(self)
        kinds.show_reported(self, None)

    def bind(
        self, call: ToolCall, verdict: CallVerdict | None, events: Sequence[SSEEvent], mode: str
    ) -> None:
        """Show a call. Another call object (a re-judge made new ones) resets everything; the
        same one (a validation flip) only refreshes the verdict."""
        if call is self.call:
            self.sync(verdict, mode)
            return
        old, self.call, self.verdict = self.call, call, verdict
        self.clients.show_marks(None)  # another call: the clients' verdict comes again
        self.model.set_call(call, events)
        if not self.buffer.keep_for(old, call):  # a re-judge that kept the text keeps it
            self.buffer.show_call(call)
        self.status.set_note("error", None, self.status_width())  # _finish sets it again
        self._finished_for = None
        kinds.show_kind(self)
        self._refresh(mode)

    def sync(
        self, verdict: CallVerdict | None, mode: str, rows: bool = True, streaming: bool = False
    ) -> None:
        """Once per flush: new buffer text (out of sight it may wait while data streams in:
        :meth:`TailBuffer.follow`), header and completion state, and (with ``rows``) the new
        fragment rows."""
        if self.call is None:
            return
        self.verdict = verdict
        if rows:
            self.model.sync()
        self.buffer.follow(self.call, streaming)
        self._refresh(mode)

    def _refresh(self, mode: str) -> None:
        call, v = self.call, self.verdict
        if call is None:
            return
        rows = self.model.rowCount()  # the header counts what the table shows: while data
        # streams in, rows are announced less often than the header is refreshed
        seen = (
            call,
            v,
            mode,
            call.length,
            rows,
            call.open,
            call.truncated,
            call.dropped_count,
            call.id,
            call.name,
            theme.is_dark(),
        )
        if seen == self._refreshed:  # nothing on show changed (a closed lane, every flush)
            return
        self._refreshed = seen
        label, light, dark = lane_verdict(v, call, mode)
        colour = dark if theme.is_dark() else light
        repaired = v.repaired_id if v else None
        dropped = call.dropped_count  # of the rows on show: counted only when some were
        if dropped and rows < call.fragment_count:  # dropped (empty-id literal), else O(1)
            dropped = call.accepted[:rows].count(False)
        written = written_as(call)  # a call written in the text has no wire index
        where = f"<b>from text</b> ({escape(written)})" if written else _ident("index", call.index)
        header = (
            f"<b>#{call.slot}</b> &nbsp; {where} &nbsp; {kinds.kind_html(call)}<br>"
            f"{_ident('id', call.id, repaired)}<br>{kinds.name_html(call, _ident)}"
        )
        if header != self.header.text():
            self.header.setText(header)
        size = (
            f"{len(call.arguments.encode()):,} bytes" if not call.open else f"{call.length:,} chars"
        )  # bytes once, when complete
        facts = (
            f"{rows - dropped} fragments"
            + (f", <s>{dropped} dropped</s>" if dropped else "")
            + f" · {size}"
        )
        if call.truncated and "truncated" not in label:
            facts += " · truncated"
        status = f'<span style="color:{colour}"><b>{label}</b></span> &nbsp; {facts}'
        self.status.set_base(status, self.status_width())
        if colour != self._colour:
            self._colour = colour
            self.update(self.border())  # painted here (a style sheet would re-polish the
            # subtree); the border alone: the whole lane would repaint its table (~5 ms)
        if not call.open:
            self._finish(v)

    def paintEvent(self, event: QPaintEvent) -> None:
        """The verdict colour as a 2 px border (drawn here: setting a style sheet on every
        verdict change re-polishes the lane's whole subtree, tens of milliseconds each)."""
        super().paintEvent(event)
        if self._colour:
            painter = QPainter(self)
            painter.setPen(QPen(QColor(self._colour), 2))
            painter.drawRect(self.rect().adjusted(1, 1, -1, -1))
            painter.end()

    def border(self) -> QRegion:
        """Where the verdict border is painted: a strip along the lane's edges."""
        r = self.rect()
        inner = r.adjusted(BORDER, BORDER, -BORDER, -BORDER)
        return QRegion(r).subtracted(QRegion(inner))

    def status_width(self) -> int:
        """The width the status line has in this lane."""
        margins = self._lay.contentsMargins()
        return self.contentsRect().width() - margins.left() - margins.right()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.status.fit(self.status_width())

    def _finish(self, v: CallVerdict | None) -> None:
        """Completion work, once per (call, verdict): pretty JSON and the error mark."""
        assert self.call is not None
        stamp = (id(self.call), repr([(p.code, p.offset) for p in v.problems]) if v else "")
        if self._finished_for == stamp:
            return
        self._finished_for = stamp
        kinds.show_kind(self)  # complete: whether its input reads as JSON is known now
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
        try:  # a free-form input (a custom tool's) is shown as it is, never read as JSON
            pretty = (
                call.arguments
                if self.model.free_text
                else json.dumps(json.loads(call.arguments or "{}"), indent=2, ensure_ascii=False)
            )
        except ValueError:
            pretty = ""
        if len(pretty) > PARSED_LIMIT:
            pretty = pretty[:PARSED_LIMIT] + f"\n… ({len(pretty) - PARSED_LIMIT:,} more characters)"
        self.parsed.setPlainText(pretty or "(not valid JSON; see Buffer)")

    def _mark_error(self, v: CallVerdict | None) -> None:
        bad = next((p for p in (v.problems if v else []) if p.code == "invalid_json"), None)
        if bad is None or self.call is None:
            self.buffer.setExtraSelections([])
            self.status.set_note("error", None, self.status_width())
            return
        if self.buffer.mark_error(self.call.arguments, bad.offset, bad.message):
            self.tabs.setCurrentWidget(self.buffer)
        self.status.set_note("error", f"✖ {escape(bad.message)}", self.status_width())

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
            where += (
                f" · dispatched at chunk {result.dispatched.chunks} "
                f"({result.dispatched.t * 1000:.0f} ms"
                f"{', after the stream' if result.dispatched.ended else ', mid-stream'})"
            )
        if result.completed is not None:
            where += (
                f" · landed at chunk {result.completed.chunks} ({result.completed.t * 1000:.0f} ms)"
            )
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
            index,
            QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows,
        )
        self.table.selectionModel().blockSignals(False)
        self.table.blockSignals(False)
        self.table.scrollTo(index)
        return True
