"""The Matrix view's grid: rows = targets, columns = scenarios, then the client-replica column
group; each cell a colour, a word with its symbol and a pass rate.

Invariants:
- The grid computes nothing of its own: texts come from :mod:`inspector.core.matrix.exports`
  (the same as ``matrix.md``), colours from its :data:`~inspector.core.matrix.exports.COLOURS`;
  colour is never alone (every cell says its word and symbol).
- Updates are coalesced: :meth:`MatrixGrid.mark` only notes a cell (it is called from the
  runner as sessions start and finish, 16 at a time); :meth:`MatrixGrid.flush`, on the view's
  clock, redraws the noted cells and their rows' client columns, never the whole table.
- Fixed column widths (the table never sizes to its contents): each wide enough for the
  longest word of its vocabulary in the grid's font (:func:`column_widths`), so no word is ever
  cut ("cut ar…"); the target column and the header stay put while the table scrolls.
- Which clients break: each target's line in its name's tooltip and, when a cell of the row
  is current, in the view's details line (:meth:`MatrixGrid.row_said`; redrawn with its row), the
  overall line and the client columns ``n/a`` on every row (hidden unless :attr:`show_na`)
  worked out by :meth:`MatrixGrid.audience` when a matrix is shown or a run ends
  (:mod:`inspector.core.matrix.audience`, the same words as ``matrix.html``).
- A legend under the grid (:meth:`MatrixGrid.legend`) explains every symbol, word and colour.
- A comparison (:meth:`show_changes`) marks each changed cell with ``▼ worse`` / ``▲ better``
  / ``Δ`` and what it was, on its second line and in its tooltip.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetrics
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from inspector.core.matrix.audience import breaks_line, hidden_line, na_everywhere, row_line
from inspector.core.matrix.cells import Cell
from inspector.core.matrix.diff import CLIENT_PREFIX, CellChange
from inspector.core.matrix.exports import COLOURS, cell_details, client_column
from inspector.core.matrix.result import MatrixResult
from inspector.core.reports.words import CLIENT_WORDS, MATRIX_WORDS, MEANING, SYMBOL, label
from inspector.ui.base import theme

TARGET_WIDTH = 150
"""The first column (the targets' names, elided in the middle; the full name in its tooltip)."""
KEY = Qt.ItemDataRole.UserRole
"""An item's (target, column): a scenario, or ``client: NAME``."""
MARKS = {"worse": "▼ worse", "better": "▲ better", "changed": "Δ", "added": "+ new"}


def column_widths(
    metrics: QFontMetrics, scenarios: list[str], replicas: list[str]
) -> tuple[int, int]:
    """(scenario, client) column widths that show every word in full: the widest matrix word
    with its symbol (its rate is on the second line), scenario name and ``▼ worse 3/3`` mark;
    the widest client word, client rate and name line (``openai-`` / ``python``)."""
    pad = 14
    scenario = [label(w) for w in MATRIX_WORDS] + ["▶ running", "▼ worse 10/10", *scenarios]
    client = [*CLIENT_WORDS, "✗ 10/10", *(ln for r in replicas for ln in _two_lines(r).split("\n"))]
    width = metrics.horizontalAdvance
    return max(map(width, scenario)) + pad, max(map(width, client)) + pad


def _two_lines(name: str) -> str:
    """A client's name on two lines at its last dash (``openai`` / ``python``)."""
    head, dash, tail = name.rpartition("-")
    return f"{head}-\n{tail}" if dash and head else name


class MatrixGrid(QTableWidget):
    """The matrix as a table (see the module docstring)."""

    def __init__(self) -> None:
        super().__init__(0, 0)
        font = QFont(self.font())
        font.setPointSizeF(max(7.0, font.pointSizeF() - 1))  # two lines a cell, many cells
        self.setFont(font)
        self.result: MatrixResult | None = None
        self.widths = column_widths(self.fontMetrics(), [], [])
        """(scenario, client) column widths in force (:func:`column_widths`)."""
        self._dirty: set[tuple[str, str]] = set()
        self.started: set[tuple[str, str]] = set()
        """Cells whose first session has started (shown ``running`` until a run is in)."""
        self.changes: dict[tuple[str, str], CellChange] = {}
        self.show_na = False
        """Show the client columns ``n/a`` on every row (hidden by default)."""
        self.hidden: list[str] = []
        """The client columns ``n/a`` on every row, as last worked out (:meth:`audience`)."""
        self.said: Callable[[str], object] | None = None
        """Told the overall line each time :meth:`audience` works it out (the view's label)."""
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setWordWrap(False)
        self.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.verticalHeader().setDefaultSectionSize(2 * self.fontMetrics().height() + 6)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.horizontalHeader().setDefaultAlignment(Qt.AlignmentFlag.AlignLeft)
        self.horizontalHeader().setMinimumHeight(2 * self.fontMetrics().height() + 8)
        self.verticalHeader().setTextElideMode(Qt.TextElideMode.ElideMiddle)

    # -- the whole matrix ----------------------------------------------------------------

    def show_result(self, result: MatrixResult) -> None:
        """Lay the grid out for ``result`` and fill every cell."""
        self.result, self.changes = result, {}
        self._dirty.clear()
        self.started.clear()
        cols = [*result.scenarios, *(CLIENT_PREFIX + r for r in result.replicas)]
        self.clear()
        self.setRowCount(len(result.rows))
        self.setColumnCount(len(cols))
        heads = [*result.scenarios, *(_two_lines(r) for r in result.replicas)]
        self.setHorizontalHeaderLabels(heads)
        self.setVerticalHeaderLabels([r.name for r in result.rows])
        self.verticalHeader().setFixedWidth(TARGET_WIDTH)
        self.widths = column_widths(self.fontMetrics(), result.scenarios, result.replicas)
        for c, col in enumerate(cols):
            client = col.startswith(CLIENT_PREFIX)
            self.setColumnWidth(c, self.widths[1] if client else self.widths[0])
            head = self.horizontalHeaderItem(c)
            if head is not None:
                head.setToolTip(f"client replica {col[len(CLIENT_PREFIX) :]}" if client else col)
        for r, row in enumerate(result.rows):
            head = self.verticalHeaderItem(r)
            if head is not None:
                head.setToolTip(f"{row.name}\n{row.profile} · {row.dialect} · {row.model}")
            self._fill_row(r, row.name, every=True)
        self.audience()

    def audience(self) -> str:
        """Work out the client columns ``n/a`` on every row and hide them (unless
        :attr:`show_na`); the line that says which clients break and what is hidden. Whole-
        matrix work: called when a matrix is shown and when a run ends, never per flush."""
        if self.result is None:
            return ""
        res = self.result
        self.hidden = na_everywhere(res)
        for i, replica in enumerate(res.replicas):
            hide = replica in self.hidden and not self.show_na
            self.setColumnHidden(len(res.scenarios) + i, hide)
        self._size_groups()
        hidden = hidden_line(self.hidden)
        line = breaks_line(res) + (f"\n{hidden}." if hidden else "")
        if self.said is not None:
            self.said(line)
        return line

    def row_said(self, row: int) -> str:
        """Which clients the target of ``row`` breaks (``breaks by-id`` / ``no client breaks``
        / ``not run``), "" outside the grid."""
        if self.result is None or not 0 <= row < len(self.result.rows):
            return ""
        target = self.result.rows[row].name
        return f"{target}: {row_line(self.result, target)}"

    def set_show_na(self, show: bool) -> None:
        """Show (or hide again) the client columns ``n/a`` on every row."""
        self.show_na = show
        self.audience()

    def adopt(self, result: MatrixResult) -> bool:
        """Show ``result`` in place of the one shown when both are laid out alike (rows,
        columns) and neither has a run or a comparison mark: every cell already reads the same
        (``… pending``), so nothing is refilled (~25 ms for the default matrix, on the loop a
        run starts from). False: nothing changed, call :meth:`show_result`."""
        old = self.result
        if (
            old is None
            or self.changes
            or (old.rows, old.scenarios, old.replicas)
            != (result.rows, result.scenarios, result.replicas)
            or any(c.runs for c in old)
            or any(c.runs for c in result)
        ):
            return False
        self.result = result
        self._dirty.clear()
        self.started.clear()
        return True

    def group_bar(self) -> QWidget:
        """A line over the header naming the column groups (scenarios, client replicas)."""
        bar = QWidget()
        lay = QHBoxLayout(bar)
        lay.setContentsMargins(TARGET_WIDTH + self.frameWidth(), 0, 0, 0)
        lay.setSpacing(0)
        self.scenarios_label = QLabel()
        self.clients_label = QLabel()
        for label_ in (self.scenarios_label, self.clients_label):
            label_.setStyleSheet("border-bottom: 2px solid palette(mid); font-weight: 600")
            lay.addWidget(label_)
        lay.addStretch(1)
        # the bar never widens the window (its labels are as wide as the columns they name)
        bar.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        bar.setMinimumWidth(0)
        self.horizontalScrollBar().valueChanged.connect(lambda _v: self._size_groups())
        self._size_groups()
        return bar

    def _size_groups(self) -> None:
        if not hasattr(self, "scenarios_label") or self.result is None:
            return
        n = len(self.result.scenarios)
        k = sum(1 for i in range(len(self.result.replicas)) if not self.isColumnHidden(n + i))
        self.scenarios_label.setText(f"scenarios ({n}): each cell its worst run's word, "
                                     "passing runs / runs")  # fmt: skip
        # scrolled sideways, the labels shrink from the left as their columns leave the view
        off = self.horizontalScrollBar().value() if self.columnCount() else 0
        shown = max(0, n * self.widths[0] - off)
        self.scenarios_label.setFixedWidth(shown)
        self.scenarios_label.setVisible(shown > 0)
        self.clients_label.setText(" client replicas: right calls / runs, then the word")
        self.clients_label.setFixedWidth(
            max(0, k * self.widths[1] - max(0, off - n * self.widths[0]))
        )
        self.clients_label.setVisible(k > 0)

    def legend(self) -> QLabel:
        """The grid's key, under it: each cell word with its symbol in its colours (its meaning
        in the tooltip), then the client words' colours, and how to read a cell."""
        chips = []
        for word in [w for w in MATRIX_WORDS if w != "pending"] + ["agrees", "breaks"]:
            fg, bg = _colours(word)
            text = label(word) if word != "breaks" else "✗ a client word (merged, cut arguments…)"
            chips.append(f'<span style="color:{fg.name()};background:{bg.name()}">'
                         f"&nbsp;{escape(text)}&nbsp;</span>")  # fmt: skip
        key = QLabel(
            "<b>Key</b> — a scenario cell: its worst run's word, then passing runs / runs. "
            "A client column: right calls / runs, then that library's worst word. "
            "Hover a cell for why.<br>" + " ".join(chips)
        )
        key.setObjectName("matrix-legend")
        key.setWordWrap(True)
        key.setToolTip("\n".join(f"{label(w)}: {MEANING.get(w, '')}" for w in MATRIX_WORDS))
        return key

    def key_at(self, row: int, col: int) -> tuple[str, str] | None:
        """The (target, column) of a grid position."""
        item = self.item(row, col)
        key = item.data(KEY) if item is not None else None
        return (str(key[0]), str(key[1])) if key else None

    def cell_at(self, row: int, col: int) -> Cell | None:
        """The scenario cell at a grid position (None for a client column)."""
        key = self.key_at(row, col)
        if self.result is None or key is None or key[1].startswith(CLIENT_PREFIX):
            return None
        return self.result.cell(*key)

    # -- live updates --------------------------------------------------------------------

    def mark(self, cell: Cell) -> None:
        """Note that ``cell`` changed (cheap: drawn at the next :meth:`flush`)."""
        self._dirty.add(cell.key)

    def mark_started(self, cell: Cell) -> None:
        """Note that ``cell``'s sessions started (drawn at the next :meth:`flush`)."""
        self.started.add(cell.key)
        self._dirty.add(cell.key)

    def settle(self) -> None:
        """The run ended: a cell still ``running`` (cancelled) goes back to ``pending``."""
        if self.result is not None:  # only those: a full redraw would stall the loop
            self._dirty |= {k for k in self.started if not self.result.cells[k].runs}
        self.started.clear()

    def flush(self) -> int:
        """Redraw the cells noted since the last flush (and their rows' client columns);
        returns how many."""
        if self.result is None or not self._dirty:
            return 0
        dirty, self._dirty = self._dirty, set()
        index = {row.name: r for r, row in enumerate(self.result.rows)}
        for target in {t for t, _ in dirty}:
            if target in index:
                self._fill_row(index[target], target, only={c for t, c in dirty if t == target})
        return len(dirty)

    def show_changes(self, changes: list[CellChange]) -> None:
        """Mark the cells that changed from another matrix (an empty list clears marks)."""
        self.changes = {(c.target, c.column): c for c in changes}
        if self.result is not None:
            for r, row in enumerate(self.result.rows):
                self._fill_row(r, row.name, every=True)

    # -- inside ----------------------------------------------------------------------------

    def _fill_row(
        self, r: int, target: str, *, only: set[str] | None = None, every: bool = False
    ) -> None:
        assert self.result is not None
        res = self.result
        for c, scenario in enumerate(res.scenarios):
            if every or (only is not None and scenario in only):
                cell = res.cell(target, scenario)
                rate = "" if cell.word == "pending" else cell.pass_rate
                word = label(cell.word)
                if cell.word == "pending" and cell.key in self.started:
                    word = "▶ running"
                self._put(r, c, cell.key, cell.word, word, rate, cell_details(cell))
        head = self.verticalHeaderItem(r)
        if head is not None:  # the row's own line: which clients it breaks (a header elides
            row = res.rows[r]  # a second line into the first: it is the tooltip's first line)
            head.setToolTip(f"{target}: {row_line(res, target)}\n"
                            f"{row.profile} · {row.dialect} · {row.model}")  # fmt: skip
        for i, replica in enumerate(res.replicas):
            cc = client_column(res, target, replica)
            rate = f"{cc.right}/{cc.judged}" if cc.judged else ""
            tip = f"{replica} over {target}'s runs: {cc.word}"
            tip += f" ({cc.right} of {cc.judged} runs with the right calls)" if cc.judged else ""
            tip += f"\n{cc.word}: {MEANING.get(cc.word, '')}"
            key = (target, CLIENT_PREFIX + replica)
            if rate:  # narrow: "✓ 6/6" over "agrees"
                first, second = f"{SYMBOL.get(cc.word, '')} {rate}".strip(), cc.word
            else:
                first, second = label(cc.word), ""
            self._put(r, len(res.scenarios) + i, key, cc.colour_key, first, second, tip)

    def _put(
        self, r: int, c: int, key: tuple[str, str], colour: str, word: str, rate: str, tip: str
    ) -> None:
        change = self.changes.get(key)
        second = rate
        if change is not None:
            second = f"{MARKS.get(change.kind, 'Δ')} {rate}".strip()
            tip += f"\n\n{change.kind}: {change.arrow}"
        item = self.item(r, c)
        if item is None:
            item = QTableWidgetItem()
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
            item.setData(KEY, key)
            self.setItem(r, c, item)
        item.setText(f"{word}\n{second}")
        item.setToolTip(tip)
        fg, bg = _colours(colour)
        item.setForeground(QBrush(fg))
        item.setBackground(QBrush(bg))
        if item.font().bold() != (change is not None):  # marks a change (with its words)
            font = QFont(item.font())
            font.setBold(change is not None)
            item.setFont(font)


def _colours(word: str) -> tuple[QColor, QColor]:
    entry = COLOURS.get(word, COLOURS["pending"])
    return (QColor(entry[2]), QColor(entry[3])) if theme.is_dark() else (
        QColor(entry[0]), QColor(entry[1]))  # fmt: skip
