"""The Clients view: what each client library would have handed the agent from the same
bytes, beside the inspector's own assembly.

Invariants:
- The pane shows a :class:`ClientsVerdict` it is given (:mod:`.follow`
  decides when one is computed) and computes nothing of its own: its texts come from
  :mod:`inspector.core.reports.clientdiff`, its words from the one vocabulary.
- One row per replica, in :data:`~inspector.core.clients.registry.REPLICAS` order: the word
  with its symbol (``n/a`` is never ✓), the name as the verdict shows it (``(unverified)``),
  library and version, what went wrong, and the chunk it diverges at.
- Selecting a row shows that client's calls beside the inspector's, field by field; a field
  that differs is tinted *and* marked ``≠`` (colour is never alone).
- A click on the diverging chunk (its cell, or the Show chunk button) emits ``jump`` with the
  attempt and the wire event; the window selects it in the lanes and the raw wire.
"""

from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from inspector.core.reports import words
from inspector.core.reports.clientdiff import TOOLTIP_CHARS, comparison, short, what_happened
from inspector.core.reports.clients import ClientsVerdict
from inspector.core.reports.words import CLIENT_BREAKS
from inspector.ui.base import theme

COLUMNS = ("", "client", "library", "what it did", "diverges at")
WIDTHS = (134, 100, 118, 150, 78)
"""Fixed widths (the table never sizes to its contents); "what it did" stretches."""
WORD, NAME, LIBRARY, WHAT, DIVERGES = range(5)
WHERE = Qt.ItemDataRole.UserRole
"""The item data of a row's "diverges at" cell: (attempt, wire seq), or None."""
TINT = ("#fde2df", "#5c2b2b")
"""The background of a field that differs (light, dark); its ``≠`` says it too."""


def word_colour(word: str) -> QColor:
    """The colour of a client word: agreeing green, breaking red, n/a grey, pending blue."""
    entry = "valid" if word == "agrees" else "invalid" if word in CLIENT_BREAKS else None
    entry = entry or ("streaming" if word == "pending" else "unchecked")
    return theme.colour(theme.VERDICT[entry])


class _ElideMiddle(QStyledItemDelegate):
    """Cuts a long cell in its middle (a library's name, not its version)."""

    def initStyleOption(self, option: QStyleOptionViewItem, index: Any) -> None:
        super().initStyleOption(option, index)
        option.textElideMode = Qt.TextElideMode.ElideMiddle


def _item(text: str, tip: str | None = None) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
    item.setToolTip(tip if tip is not None else text)
    return item


def _table(columns: tuple[str, ...]) -> QTableWidget:
    t = QTableWidget(0, len(columns))
    t.setHorizontalHeaderLabels(list(columns))
    t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    t.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    t.verticalHeader().hide()
    t.verticalHeader().setDefaultSectionSize(t.fontMetrics().height() + 6)
    t.setWordWrap(False)
    t.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    return t


class ClientsPane(QStackedWidget):
    """The replicas' table and the selected client's calls beside the inspector's; or, in
    their place, why there is nothing to show (and a Run button for a large capture)."""

    jump = Signal(int, int)
    """Select this wire event (seq) of this attempt (session-wide number)."""
    run_requested = Signal()
    """The user asked for the replicas on a capture too large to run them unasked."""
    reduce_requested = Signal(str)
    """The context menu's "Reduce to a minimal capture…" on a client that breaks:
    ``client:NAME``."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.verdict: ClientsVerdict | None = None
        self.places: dict[int, str] = {}
        """Each attempt's name ("round 1 · attempt 2"), when the session has several."""
        self.table = _table(COLUMNS)
        for col, width in enumerate(WIDTHS):
            self.table.setColumnWidth(col, width)
        self.table.horizontalHeader().setSectionResizeMode(WHAT, QHeaderView.ResizeMode.Stretch)
        self.table.setItemDelegateForColumn(LIBRARY, _ElideMiddle(self.table))  # keeps versions
        self.table.itemSelectionChanged.connect(self._show_selected)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._context_menu)
        self.table.cellClicked.connect(self._clicked)
        self.table.cellActivated.connect(lambda row, _col: self._clicked(row, DIVERGES))
        self.title = QLabel()
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.title.setWordWrap(True)
        self.show_chunk = QPushButton()
        self.show_chunk.setObjectName("clients-show-chunk")
        self.show_chunk.setToolTip("Select this chunk in the lanes and the raw wire")
        self.show_chunk.clicked.connect(lambda: self._clicked(self.table.currentRow(), DIVERGES))
        self.show_chunk.hide()
        self.calls = _table(("", "call · field", "inspector", "client"))
        self.calls.setColumnWidth(0, 22)
        self.calls.setColumnWidth(1, 104)
        for col in (2, 3):  # the two sides share what is left
            self.calls.horizontalHeader().setSectionResizeMode(col, QHeaderView.ResizeMode.Stretch)
        head = QHBoxLayout()
        head.addWidget(self.title, 1)
        head.addWidget(self.show_chunk, 0, Qt.AlignmentFlag.AlignTop)
        detail = QWidget()
        lay = QVBoxLayout(detail)
        lay.setContentsMargins(4, 0, 0, 0)
        lay.addLayout(head)
        lay.addWidget(self.calls, 1)
        self.judged = QLabel()
        self.judged.setObjectName("clients-judged")
        self.judged.setToolTip(
            "The clients judge the final attempt of each round (the one the agent got), or "
            "the attempt you select in the Attempts pane"
        )
        listing = QWidget()
        side = QVBoxLayout(listing)
        side.setContentsMargins(0, 0, 0, 0)
        side.setSpacing(2)
        side.addWidget(self.judged)
        side.addWidget(self.table, 1)
        self.split = QSplitter(Qt.Orientation.Horizontal)
        self.split.addWidget(listing)
        self.split.addWidget(detail)
        self.split.setStretchFactor(0, 3)
        self.split.setStretchFactor(1, 2)
        self.split.setSizes([620, 380])
        self.message = QLabel()
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setWordWrap(True)
        self.run = QPushButton("Run the client replicas")
        self.run.setObjectName("clients-run")
        self.run.clicked.connect(self.run_requested)
        empty = QWidget()
        box = QVBoxLayout(empty)
        box.addStretch(1)
        box.addWidget(self.message)
        box.addWidget(self.run, 0, Qt.AlignmentFlag.AlignHCenter)
        box.addStretch(1)
        self.addWidget(self.split)
        self.addWidget(empty)
        self.show_message("No capture open.")

    # -- what is shown -------------------------------------------------------------------

    def show_message(self, text: str, *, run: bool = False) -> None:
        """Nothing to list: say why (with ``run``: offer to run the replicas)."""
        self.verdict = None
        self.message.setText(text)
        self.run.setVisible(run)
        self.setCurrentIndex(1)

    def show_verdict(self, verdict: ClientsVerdict, places: dict[int, str]) -> None:
        """List every replica's result (``places``: each attempt's name, given when the
        session has several attempts); the selected client stays selected."""
        self.setCurrentIndex(0)
        self.judged.setText(f"Judging {verdict.judged}" if verdict.judged else "")
        if verdict is self.verdict:
            return
        selected = self.selected()
        self.verdict, self.places = verdict, places
        t = self.table
        t.blockSignals(True)
        t.setRowCount(len(verdict.replicas))
        for row, replica in enumerate(verdict.replicas):
            name = replica.name
            result, word = verdict.results[name], verdict.words[name]
            expected = verdict.expected[name]
            word_item = _item(words.label(word), f"{word}: {words.MEANING.get(word, '')}")
            word_item.setForeground(word_colour(word))
            t.setItem(row, WORD, word_item)
            shown = verdict.shown_name(name)
            tip = f"{shown}: {replica.summary}\nfollows {replica.library} {replica.version}: "
            t.setItem(row, NAME, _item(shown, tip + replica.follows))
            t.setItem(row, LIBRARY, _item(f"{replica.library} {replica.version}"))
            what = what_happened(replica, result, word, expected)
            t.setItem(row, WHAT, _item(short(what), short(what, TOOLTIP_CHARS)))
            t.setItem(row, DIVERGES, self._where(result.attempt, result.diverges_at, places))
        t.blockSignals(False)
        names = [r.name for r in verdict.replicas]
        pick = selected if selected in names else next(iter(verdict.broken), None)
        t.selectRow(names.index(pick) if pick in names else 0)
        self._show_selected()

    @staticmethod
    def _where(attempt: int | None, seq: int | None, places: dict[int, str]) -> QTableWidgetItem:
        if seq is None or attempt is None:
            return _item("—", "Nothing diverges")
        of = f" of {places[attempt]}" if attempt in places else ""
        tip = f"Click: select wire event #{seq}{of} in the lanes and the raw wire"
        item = _item(f"chunk {seq}", tip)
        item.setData(WHERE, (attempt, seq))
        font = QFont(item.font())
        font.setUnderline(True)
        item.setFont(font)
        item.setForeground(theme.colour(("", "#1565c0", "#90caf9")))
        return item

    def selected(self) -> str | None:
        """The name of the replica whose row is selected."""
        row = self.table.currentRow()
        if self.verdict is None or not 0 <= row < len(self.verdict.replicas):
            return None
        return self.verdict.replicas[row].name

    def context_menu_for(self, row: int) -> QMenu | None:
        """A row's context menu: Reduce, for a client the session breaks (else None)."""
        v = self.verdict
        if v is None or not 0 <= row < len(v.replicas):
            return None
        name = v.replicas[row].name
        if v.words.get(name) not in CLIENT_BREAKS:
            return None
        menu = QMenu(self)
        act = menu.addAction("Reduce to a minimal capture…")
        act.setObjectName("action-reduce")
        act.triggered.connect(lambda _checked=False: self.reduce_requested.emit(f"client:{name}"))
        return menu

    def _context_menu(self, pos: Any) -> None:
        menu = self.context_menu_for(self.table.rowAt(pos.y()))
        if menu is not None:
            menu.popup(self.table.viewport().mapToGlobal(pos))

    def select(self, name: str) -> None:
        """Select the row of replica ``name``."""
        names = [r.name for r in self.verdict.replicas] if self.verdict else []
        if name in names:
            self.table.selectRow(names.index(name))

    # -- the selected client -------------------------------------------------------------

    def _show_selected(self) -> None:
        v, name = self.verdict, self.selected()
        if v is None or name is None:
            self.title.clear()
            self.calls.setRowCount(0)
            self.show_chunk.hide()
            return
        replica = next(r for r in v.replicas if r.name == name)
        result, word = v.results[name], v.words[name]
        what = what_happened(replica, result, word, v.expected[name])
        if result.attempt in self.places:  # several attempts: say which one this is about
            what = f"{self.places[result.attempt]}: {what}"
        colour = word_colour(word).name()
        self.title.setText(
            f'<span style="color:{colour}"><b>{escape(words.label(word))}</b></span> — '
            f"<b>{escape(v.shown_name(name))}</b><br>{escape(short(what, 200))}"
        )
        self.title.setToolTip(f"{replica.library} {replica.version}: {replica.summary}")
        where = self.table.item(self.table.currentRow(), DIVERGES)
        at = where.data(WHERE) if where is not None else None
        self.show_chunk.setVisible(at is not None)
        if at is not None:
            self.show_chunk.setText(f"Show chunk {at[1]}")
        self._fill_calls(name, word)

    def _fill_calls(self, name: str, word: str) -> None:
        assert self.verdict is not None
        t = self.calls
        t.setHorizontalHeaderLabels(["", "call · field", "inspector", name])
        t.clearSpans()
        if word in ("n/a", "pending"):  # nothing to compare: say why, in the table's place
            t.setRowCount(1)
            t.setItem(0, 1, _item(f"{name} is {word} here: {words.MEANING[word]}"))
            t.setSpan(0, 1, 1, 3)
            return
        rows, left_out = comparison(self.verdict.results[name], self.verdict.expected[name])
        t.setRowCount(len(rows) + (1 if left_out else 0))
        tint = QColor(TINT[1] if theme.is_dark() else TINT[0])
        for r, row in enumerate(rows):
            cells = [
                _item("≠" if row.differs else "=", "differs" if row.differs else "the same"),
                _item(row.label),
                _item(short(row.inspector), short(row.inspector, TOOLTIP_CHARS)),
                _item(short(row.client), short(row.client, TOOLTIP_CHARS)),
            ]
            for c, item in enumerate(cells):
                if row.differs:
                    item.setBackground(tint)
                t.setItem(r, c, item)
        if left_out:
            t.setItem(len(rows), 1, _item(f"… {left_out:,} more call positions not listed"))

    def _clicked(self, row: int, col: int) -> None:
        item = self.table.item(row, DIVERGES) if col == DIVERGES else None
        at = item.data(WHERE) if item is not None else None
        if at is not None:
            self.jump.emit(int(at[0]), int(at[1]))
