"""The toolbar: the two judgement settings, the tools source, and the replay controls.

Invariants:
- Widgets here only emit the user's intent; the Document decides and the window re-syncs the
  widgets from the Document (so keyboard shortcuts and menus agree with them).
- The play button reads as what it will do: "Pause" while replaying, "Resume" when paused part
  way (it goes on from there), "Replay" at the start or the end. Its width is that of the
  longest of the three, so a change of word lays nothing out again.
- The whole row fits 1280 px: only the slider grows with the window.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt, Signal, SignalInstance
from PySide6.QtWidgets import (
    QComboBox,
    QLabel,
    QSizePolicy,
    QSlider,
    QStyle,
    QToolBar,
    QToolButton,
    QWidget,
)

from inspector.core.base.settings import ABSENT, LITERAL, VALIDATION_MODES
from inspector.core.clients.registry import LITERAL_MATCHES

EMPTY_ID_TIP = (
    'absent: the inspector\'s own reading: an id of "" is no id, and the fragment continues '
    "the call it belongs to\n"
    f'literal: "" is looked up as an id, as the {LITERAL_MATCHES} client replica (the legacy '
    "accumulator) does: its continuations are lost, as that client loses them"
)
"""The empty-id choice's tooltip: one line per choice, in the box's order."""
SPEEDS = (("1× (recorded)", 1.0), ("10×", 10.0), ("100×", 100.0), ("instant", math.inf))


class InspectorToolBar(QToolBar):
    """Validation mode, empty-id handling, tools, and replay controls."""

    validation_changed = Signal(str)
    empty_id_changed = Signal(str)
    tools_requested = Signal(str)
    """"capture" (the capture's own tools) or "file" (ask for a tools file)."""
    speed_changed = Signal(float)
    seek_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Inspector", parent)
        self.setObjectName("inspector-toolbar")
        self.validation = self._combo(
            "Validation", [(m, m) for m in VALIDATION_MODES], self.validation_changed
        )
        self.empty_id = self._combo(
            "Empty id",
            [('absent ("" = omitted)', ABSENT), (f"literal — as {LITERAL_MATCHES}", LITERAL)],
            self.empty_id_changed,
        )
        self.empty_id.setToolTip(EMPTY_ID_TIP)
        for i, tip in enumerate(EMPTY_ID_TIP.split("\n")):
            self.empty_id.setItemData(i, tip, Qt.ItemDataRole.ToolTipRole)
        self.tools = self._combo(
            "Tools", [("from capture", "capture"), ("load file…", "file")], self.tools_requested
        )
        self.addSeparator()
        self.play = QToolButton()
        self.play.setObjectName("replay-play")
        self.play.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.play.setToolTip("Replay, pause, resume (Space); F5 replays from the start")
        self.addWidget(self.play)
        self._playing, self._position, self._total = False, 0, 0
        self.step = QToolButton()
        self.step.setText("Step")
        self.step.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.step.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_MediaSkipForward))
        self.step.setToolTip("Feed one more chunk")
        self.addWidget(self.step)
        self.speed = self._combo("Speed", list(SPEEDS), None)
        self.speed.currentIndexChanged.connect(
            lambda _i: self.speed_changed.emit(float(self.speed.currentData()))
        )
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setMinimumWidth(96)  # the toolbar fits a first start at 1280×800 (90 %)
        self.slider.setToolTip("Scrub: lanes show the state after this many chunks")
        self.slider.sliderMoved.connect(self.seek_requested)
        self.addWidget(self.slider)
        self.position = QLabel(" 0 / 0 ")
        self.position.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self._sized_for: tuple[int, str] = (-1, "")
        self._why = ""  # said in place of the counter while a count would mislead (no stream)
        self.show_position(0, 9999)  # sized for a usual capture from the start: the window's
        self.position.setText(" 0 / 0 ")  # minimum width then holds what a session shows
        self._position = self._total = 0
        self.addWidget(self.position)
        self._fix_play_width()
        self.show_playing(False)

    def _combo(
        self, label: str, items: list[tuple[str, object]], signal: SignalInstance | None
    ) -> QComboBox:
        self.addWidget(QLabel(f" {label}: "))
        box = QComboBox()
        for text, data in items:
            box.addItem(text, data)
        if signal is not None:
            box.activated.connect(lambda _i, b=box, s=signal: s.emit(b.currentData()))
        self.addWidget(box)
        return box

    def show_settings(self, validation: str, empty_id: str) -> None:
        """Reflect the Document's settings without emitting."""
        for box, value in ((self.validation, validation), (self.empty_id, empty_id)):
            box.blockSignals(True)
            box.setCurrentIndex(max(0, box.findData(value)))
            box.blockSignals(False)

    def show_position(self, position: int, total: int) -> None:
        """Slider and counter follow the replay."""
        self.slider.blockSignals(True)
        self.slider.setRange(0, total)
        if not self.slider.isSliderDown():
            self.slider.setValue(position)
        self.slider.blockSignals(False)
        if (total, self._why) != self._sized_for:  # a fixed size: a label whose width
            self._sized_for = (total, self._why)  # follows its text makes the whole window
            widest = f" {'8' * len(str(total))} / {total} chunks "  # lay out on every flush
            fm = self.position.fontMetrics()
            room = max(fm.horizontalAdvance(widest), fm.horizontalAdvance(f" {self._why} "))
            self.position.setFixedSize(room + 4, self.position.sizeHint().height())
        self.position.setText(f" {self._why} " if self._why else f" {position} / {total} chunks ")
        if (position, total) != (self._position, self._total):
            self._position, self._total = position, total
            self.show_playing(self._playing)

    def set_replayable(self, replayable: bool, why: str = "", *, uncounted: bool = False) -> None:
        """Replay controls on or off (a file still loading, a live session or a cancelled load
        has no replay); ``why`` shows in place of the position when off, and stays there
        (``uncounted``) when no count would be true: a capture without a byte of stream."""
        for w in (self.play, self.step, self.speed, self.slider):
            w.setEnabled(replayable)
        self._why = why if uncounted and not replayable else ""
        if self._why:
            self.show_position(self._position, self._total)  # sized to hold it whole
        elif not replayable and why:
            self.position.setText(f" {why} ")
        self.position.setToolTip("" if replayable else "Nothing to replay here yet")

    def show_playing(self, playing: bool) -> None:
        """The play button reads as what it will do (see the module docstring)."""
        self._playing = playing
        text = self.play_word(playing, self._position, self._total)
        if text != self.play.text():
            self.play.setText(text)
            pix = QStyle.StandardPixmap
            icon = pix.SP_MediaPause if text == "Pause" else pix.SP_MediaPlay
            self.play.setIcon(self.style().standardIcon(icon))

    @staticmethod
    def play_word(playing: bool, position: int, total: int) -> str:
        """What pressing the play button does now."""
        if playing:
            return "Pause"
        return "Resume" if 0 < position < total else "Replay"

    def _fix_play_width(self) -> None:
        self.play.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_MediaPlay))
        widths = []
        for word in ("Replay", "Resume", "Pause"):
            self.play.setText(word)
            widths.append(self.play.sizeHint().width())
        self.play.setFixedWidth(max(widths))
        self.play.setText("")


def needed_width(bar: QToolBar) -> int:
    """The narrowest ``bar`` can be with every control in its row (none in its "»" menu):
    its size hint, less what the widgets that may shrink (elided text) can give up."""
    slack = 0
    for act in bar.actions():
        w = bar.widgetForAction(act)
        if w is not None and _shrinks(w):
            slack += max(
                0, w.sizeHint().width() - max(w.minimumSizeHint().width(), w.minimumWidth())
            )
    return bar.sizeHint().width() - slack


def _shrinks(w: QWidget) -> bool:
    flag = QSizePolicy.PolicyFlag.ShrinkFlag.value
    return bool(w.sizePolicy().horizontalPolicy().value & flag)
