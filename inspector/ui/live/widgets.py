"""The Live toolbar's own widgets: a line of text that elides what does not fit (or, for a
line that is no use in part, gives way entirely), and the model box whose list says what each
model does, its description word-wrapped under its name.

Invariants:
- Neither changes its size hint with its text, so the toolbar they sit in is never laid out
  again when what they say changes (a state change, another model chosen).
- A line is never shown as a stub: an ``ElidedLabel(whole_or_nothing=True)`` paints its text
  whole, else the first of its shorter forms (``set_text``) that fits whole, else nothing
  (``shown()`` says which); ``text()`` and the tooltip always have it whole.
- The model list's rows are as tall as their wrapped description at the popup's width, so no
  description is cut however narrow the window.
"""

from __future__ import annotations

from PySide6.QtCore import (
    QModelIndex,
    QPersistentModelIndex,
    QRect,
    QSize,
    Qt,
    SignalInstance,
)
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QLabel,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QWidget,
)

ABOUT_ROLE = Qt.ItemDataRole.UserRole + 1
"""A model item's description (the demo scenario's, from ``GET /v1/models``)."""


class ElidedLabel(QLabel):
    """A line of text that takes the room it is given: its size hint is fixed (``width``) and
    it paints what fits, elided; ``text()`` and the tooltip keep the whole of it."""

    def __init__(
        self,
        width: int,
        parent: QWidget | None = None,
        *,
        least: int = 60,
        whole_or_nothing: bool = False,
    ) -> None:
        super().__init__(parent)
        self._width = width
        self._least = min(width, least)
        """A toolbar short of room never squeezes it below this (what must stay whole)."""
        self._whole_or_nothing = whole_or_nothing
        """A text that does not fit is not painted at all (a stub of it says nothing)."""
        self._shorter: tuple[str, ...] = ()
        """Shorter forms of the text, shortest last, painted when the text does not fit."""

    def sizeHint(self) -> QSize:
        return QSize(self._width, super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:
        return QSize(self._least, super().minimumSizeHint().height())

    def setText(self, text: str) -> None:
        self.set_text(text)

    def set_text(self, text: str, *shorter: str) -> None:
        """Say ``text``; a whole-or-nothing label short of room paints the first of
        ``shorter`` that fits whole instead (its tooltip has ``text`` whole)."""
        self._shorter = shorter
        super().setText(text)
        self.setToolTip(text.strip())

    def shown(self) -> str:
        """What is painted at the label's present width: the text, elided, or (whole or
        nothing) the text whole or ``""``."""
        room = self.contentsRect().width()
        text = self.text()
        if self._whole_or_nothing:
            fits = (
                t for t in (text, *self._shorter) if self.fontMetrics().horizontalAdvance(t) <= room
            )
            return next(fits, "")
        metrics = self.fontMetrics()
        if metrics.horizontalAdvance(text) <= room:  # whole: elidedText() can cut a text
            return text  # exactly as wide as the room (its rounding of the last glyph)
        return metrics.elidedText(text, Qt.TextElideMode.ElideRight, room)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        rect = self.contentsRect()
        shown = self.shown()
        painter.setPen(self.palette().color(self.foregroundRole()))
        painter.drawText(
            rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), shown
        )
        painter.end()


POPUP_WIDTH = 620
"""The model list's least width in pixels: wider than the model box, so a description wraps
on a few lines (at most 234 characters: 3 lines), whatever the window's width."""
PAD = 6
"""The room around a row's text, in pixels."""


class ModelItems(QStyledItemDelegate):
    """The model list shows each model's name in bold and, under it, what it does,
    word-wrapped to the list's width (a row is as tall as its text)."""

    def __init__(self, box: QComboBox) -> None:
        super().__init__(box)
        self._box = box

    def wrap_width(self, option: QStyleOptionViewItem) -> int:
        """The description's width: the row's (or the popup's, before it is shown)."""
        width = option.rect.width()
        if width <= 0:
            width = max(self._box.view().viewport().width(), POPUP_WIDTH)
        return max(100, width - 2 * PAD)

    def _fonts(self, option: QStyleOptionViewItem) -> tuple[QFont, QFont]:
        name = QFont(option.font)
        name.setBold(True)
        return name, QFont(option.font)

    def about_rect(self, option: QStyleOptionViewItem, about: str) -> QRect:
        """The description's wrapped bounding box (its origin at 0, 0)."""
        return QFontMetrics(self._fonts(option)[1]).boundingRect(
            QRect(0, 0, self.wrap_width(option), 10_000), int(Qt.TextFlag.TextWordWrap), about
        )

    def sizeHint(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        self.initStyleOption(option, index)
        about = str(index.data(ABOUT_ROLE) or "")
        name_height = QFontMetrics(self._fonts(option)[0]).height()
        height = name_height + 2 * PAD
        if about:
            height += self.about_rect(option, about).height() + 2
        return QSize(self.wrap_width(option) + 2 * PAD, height)

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        name, about = opt.text, str(index.data(ABOUT_ROLE) or "")
        opt.text = ""
        style = opt.widget.style() if opt.widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        name_font, about_font = self._fonts(opt)
        rect = opt.rect.adjusted(PAD, PAD, -PAD, -PAD)
        painter.save()
        painter.setPen(opt.palette.color(role))
        painter.setFont(name_font)
        name_height = QFontMetrics(name_font).height()
        painter.drawText(
            QRect(rect.left(), rect.top(), rect.width(), name_height),
            int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
            name,
        )
        if about:
            if not selected:
                painter.setPen(opt.palette.color(QPalette.ColorRole.PlaceholderText))
            painter.setFont(about_font)
            painter.drawText(
                QRect(rect.left(), rect.top() + name_height + 2, rect.width(), rect.height()),
                int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
                | int(Qt.TextFlag.TextWordWrap),
                about,
            )
        painter.restore()


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
        self.setItemDelegate(ModelItems(self))
        self.setMaxVisibleItems(12)  # rows of 2 to 4 lines: the list stays on a laptop screen
        self.view().setMinimumWidth(POPUP_WIDTH)
        self.view().setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
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
