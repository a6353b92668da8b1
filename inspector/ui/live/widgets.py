"""The Live toolbar's own widgets: a line of text that elides what does not fit, and the model
box whose list says what each model does.

Invariant: neither changes its size hint with its text, so the toolbar they sit in is never
laid out again when what they say changes (a state change, another model chosen).
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSize, Qt, SignalInstance
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QComboBox, QLabel, QStyledItemDelegate, QStyleOptionViewItem, QWidget

ABOUT_ROLE = Qt.ItemDataRole.UserRole + 1
"""A model item's description (the demo scenario's, from ``GET /v1/models``)."""


class ElidedLabel(QLabel):
    """A line of text that takes the room it is given: its size hint is fixed (``width``) and
    it paints what fits, elided; ``text()`` and the tooltip keep the whole of it."""

    def __init__(self, width: int, parent: QWidget | None = None, *, least: int = 60) -> None:
        super().__init__(parent)
        self._width = width
        self._least = min(width, least)
        """A toolbar short of room never squeezes it below this (what must stay whole)."""

    def sizeHint(self) -> QSize:
        return QSize(self._width, super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:
        return QSize(self._least, super().minimumSizeHint().height())

    def setText(self, text: str) -> None:
        super().setText(text)
        self.setToolTip(text.strip())

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        rect = self.contentsRect()
        shown = self.fontMetrics().elidedText(
            self.text(), Qt.TextElideMode.ElideRight, rect.width()
        )
        painter.setPen(self.palette().color(self.foregroundRole()))
        painter.drawText(
            rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), shown
        )
        painter.end()


class _ModelItems(QStyledItemDelegate):
    """The model list shows each model with what it does ("demo-clean — A conforming …")."""

    def initStyleOption(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        super().initStyleOption(option, index)
        about = index.data(ABOUT_ROLE)
        if about:
            option.text = f"{option.text}  —  {about}"


class ModelBox(QComboBox):
    """The model: typed, or chosen from the list (which shows what each model does)."""

    def __init__(self, wanted: SignalInstance) -> None:
        super().__init__()
        self._wanted = wanted
        self.setObjectName("live-model")
        self.setEditable(True)
        self.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)  # Enter runs; it adds nothing
        self.setMinimumContentsLength(17)  # room for the state beside it at 1152 px
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.setItemDelegate(_ModelItems(self))
        self.setMaxVisibleItems(20)
        self.view().setTextElideMode(Qt.TextElideMode.ElideRight)
        self.view().setMinimumWidth(620)
        edit = self.lineEdit()
        assert edit is not None  # an editable combo box has one
        self.edit = edit
        """The text field: Enter in it runs the model."""
        edit.setPlaceholderText("model name")

    def fill(self, models: list[tuple[str, str]], current: str) -> None:
        """List ``models`` ((name, description) pairs), keeping ``current`` as the text."""
        self.blockSignals(True)
        self.clear()
        for name, about in models:
            self.addItem(name)
            if about:
                self.setItemData(self.count() - 1, about, ABOUT_ROLE)
                self.setItemData(self.count() - 1, f"{name}: {about}", Qt.ItemDataRole.ToolTipRole)
        self.setCurrentIndex(self.findText(current))  # the list opens on it (-1: none)
        self.setEditText(current)
        self.blockSignals(False)

    def showPopup(self) -> None:
        if self.count() <= 1:
            self._wanted.emit()
        super().showPopup()
