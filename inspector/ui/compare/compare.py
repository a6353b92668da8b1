"""Compare: one stream judged under two settings side by side, with the differences marked.

Invariants:
- Both sides are fresh core analyses of the same capture; the differences come from
  :func:`inspector.core.reports.compare.compare` and the window only lays them out.
- It opens over the window's document (:func:`show_compare`), never larger than the screen.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from inspector.core.analysis.session import Analysis
from inspector.core.base.settings import (
    ABSENT,
    EMPTY_ID_POLICIES,
    LITERAL,
    VALIDATION_MODES,
    Settings,
)
from inspector.core.capture.records import Capture
from inspector.core.providers import REGISTRY
from inspector.core.reports.compare import Comparison, compare
from inspector.core.verdicts.tools import ToolRegistry
from inspector.ui.base import dialogs, screenfit
from inspector.ui.document.host import Host
from inspector.ui.lanes.lanes import LanesView


class _Side(QWidget):
    """One side: its two settings and its lanes."""

    def __init__(self, title: str, settings: Settings, owner: CompareWindow) -> None:
        super().__init__()
        self.settings = settings
        self.validation = QComboBox()
        self.validation.addItems(list(VALIDATION_MODES))
        self.validation.setCurrentText(settings.validation)
        self.empty_id = QComboBox()
        self.empty_id.addItems(list(EMPTY_ID_POLICIES))
        self.empty_id.setCurrentText(settings.empty_id)
        for box in (self.validation, self.empty_id):
            box.currentTextChanged.connect(lambda _t: owner.recompute())
        row = QHBoxLayout()
        row.addWidget(QLabel(f"<b>{title}</b>  validation"))
        row.addWidget(self.validation)
        row.addWidget(QLabel("empty id"))
        row.addWidget(self.empty_id)
        row.addStretch(1)
        self.lanes = LanesView(compact=True)
        lay = QVBoxLayout(self)
        lay.addLayout(row)
        lay.addWidget(self.lanes, 1)

    def current(self) -> Settings:
        return self.settings.with_strings(
            validation=self.validation.currentText(), empty_id=self.empty_id.currentText()
        )


class CompareWindow(QWidget):
    """Left vs right settings over the same capture (absent vs literal by default)."""

    def __init__(
        self,
        capture: Capture,
        tools: ToolRegistry | None,
        parent: QWidget | None = None,
        base: Analysis | None = None,
    ) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setWindowTitle("Compare — Tool-Call Inspector")
        self.capture, self.tools = capture, tools
        self.base = base
        """The window's own analysis of the whole capture, if it has one: each side is a
        fork of it (no second read of a large capture), unless a side changes the dialect."""
        self.left = _Side("Left", Settings(empty_id=ABSENT), self)
        self.right = _Side("Right", Settings(empty_id=LITERAL), self)
        self.summary = QListWidget()
        self.summary.setMaximumHeight(120)
        self.comparison: Comparison | None = None
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.left)
        split.addWidget(self.right)
        lay = QVBoxLayout(self)
        lay.addWidget(self.summary)
        lay.addWidget(split, 1)
        self.resize(1500, 800)
        self.recompute()

    def _judged(self, settings: Settings) -> Analysis:
        base = self.base
        if (
            base is not None
            and base.settings.dialect == settings.dialect
            and all(view.state.ended for view in base.attempts)
        ):
            return base.fork(settings)
        return Analysis.from_capture(self.capture, settings, self.tools, providers=REGISTRY)

    def recompute(self) -> None:
        """Judge both sides afresh and mark what differs."""
        left = self._judged(self.left.current())
        right = self._judged(self.right.current())
        self.comparison = compare(left, right)
        for side, analysis in ((self.left, left), (self.right, right)):
            side.lanes.rebind(analysis.final, analysis.settings.validation)
        self.summary.clear()
        lines = self.comparison.lines() if self.comparison.differs else []
        self.summary.addItems(lines or ["No differences: both settings judge this stream alike."])
        marks_l: dict[int, str] = {}
        marks_r: dict[int, str] = {}
        for d in self.comparison.calls:
            changed = d.verdict_changed or d.arguments_changed or d.identity_changed
            note = "verdict differs" if d.verdict_changed else "differs"
            if d.dropped_left_only or d.dropped_right_only:
                note += " · fragments dropped on one side"
            if changed or d.dropped_left_only or d.dropped_right_only:
                if d.left is not None:
                    marks_l[d.left.call.slot] = note
                if d.right is not None:
                    marks_r[d.right.call.slot] = note
        self.left.lanes.mark(marks_l)
        self.right.lanes.mark(marks_r)


def show_compare(host: Host) -> CompareWindow | None:
    """View ▸ Compare: the capture on show under two settings, in a window of its own over
    ``host``; None (and a dialog saying why) when no whole capture is on show."""
    doc, parent = host.doc, host.window()
    r = doc.replayer
    if r is None:
        dialogs.nothing_to_compare(parent, doc.loading)
        return None
    base = r.analysis if r.at_end else None  # the whole capture read: sides fork it
    window = CompareWindow(r.capture, doc.tools, parent, base)
    dialogs.close_on_keys(window)
    screen = parent.screen() or QGuiApplication.primaryScreen()  # never larger than it
    window.setGeometry(screenfit.clamped(window.geometry(), screen.availableGeometry()))
    window.show()
    return window
