"""The session timeline: stream chunks, calls open to close, tool execution, round boundaries.

Invariants:
- Painted with QPainter from core state only (no chart library: QtCharts would pull the
  175 MB Addons wheel). ``refresh`` recomputes the few rectangles once per flush; paintEvent
  only draws them. Their number does not grow with the stream: a long stream's row shows
  every n-th chunk (:data:`STREAM_TICKS`).
- Time runs left to right on each attempt's own clock (seconds since its request), one band
  per attempt titled "round R · attempt N" (N from 1 in each round, as the Live toolbar says
  it), so the overlap of tool execution with streaming is visible.
- Colour is never alone: bars carry a symbol or text (✔ / ✖, tool names, durations). A call
  bar says its word from :mod:`inspector.core.reports.words` ("✔ call · valid", "– call · not
  checked"): with validation off no call is drawn as a blue "✔ call".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from inspector.core.analysis.numbering import RoundAttempt, attempt_places
from inspector.core.analysis.session import Analysis, AttemptView
from inspector.core.base.model import SSEEvent
from inspector.core.reports import words
from inspector.core.reports.words import attempt_word, call_word
from inspector.ui.base import theme

ROW = 18
"""Pixels per timeline row."""
LEFT = 150
"""Pixels reserved for row labels."""
STREAM_TICKS = 2048
"""Ticks drawn at most on an attempt's stream row: the timeline is recomputed on every side
refresh and painted whole, so it must not grow with a million-event stream."""


@dataclass
class Bar:
    """One horizontal span (or a tick when ``t1 == t0``) on a row."""

    row: int
    t0: float
    t1: float
    colour: str
    text: str = ""


@dataclass
class Band:
    """One attempt: its title, its rows' labels, bars, and its time extent."""

    title: str
    labels: list[str]
    bars: list[Bar]
    end: float
    note: str = ""
    word: str = ""
    """The attempt's word with its symbol ("✔ accepted", "✂ interrupted")."""


def bands(analysis: Analysis | None) -> list[Band]:
    """The timeline's content, from core state (pure: no painting)."""
    if analysis is None:
        return []
    analysis.judge()
    places = attempt_places(analysis.attempts)
    mode = analysis.settings.validation
    out = [_band(view, places[view.number], mode) for view in analysis.attempts]
    for band, view, record in zip(out, analysis.attempts, analysis.records, strict=False):
        band.word = words.label(attempt_word(view, record, analysis.capture))
    for rnd in analysis.rounds if len(analysis.attempts) else []:
        if rnd.saved > 0.0005 and rnd.final in analysis.attempts:
            i = analysis.attempts.index(rnd.final)
            out[i].note = f"streaming dispatch saved {rnd.saved * 1000:.0f} ms vs sequential"
    return out


_CALL_COLOUR = {"valid": "#1e88e5", "streaming": "#1e88e5", "not checked": "#9e9e9e",
                "orphan": "#9e9e9e"}  # fmt: skip
"""A call bar's colour by its word; any other word (invalid, truncated) is red."""


def _stream_ticks(events: Sequence[SSEEvent]) -> list[Bar]:
    """The stream row: a tick per wire event, or for a long stream every n-th of them and the
    last (:data:`STREAM_TICKS` at most: a pause in the stream still shows as a gap)."""
    n = len(events)
    step = max(1, -(-n // STREAM_TICKS))
    seqs = [*range(0, n, step), *([n - 1] if n and (n - 1) % step else [])]
    return [Bar(0, t, t, "#607d8b") for t in (events[i].t for i in seqs)]


def _band(view: AttemptView, place: RoundAttempt, mode: str) -> Band:
    st = view.state
    events = st.events

    def t_of(seq: int) -> float:
        return events[seq].t if 0 <= seq < len(events) else 0.0

    labels, bars = ["stream"], _stream_ticks(events)
    for v in view.verdicts:
        call = v.call
        labels.append(f"#{call.slot} {call.name if isinstance(call.name, str) else '?'}")
        row = len(labels) - 1
        start = t_of(call.fragments[0].seq) if call.fragments else 0.0
        end = (
            t_of(call.close_seq)
            if call.close_seq is not None
            else (events[-1].t if events else start)
        )
        word = call_word(v, validation=mode)
        text = "streaming" if word == "streaming" else f"{words.SYMBOL[word]} call · {word}"
        bars.append(Bar(row, start, end, _CALL_COLOUR.get(word, "#e53935"), text))
    for r in view.results:
        if r.dispatched is None:
            continue
        lane = next((i + 1 for i, v in enumerate(view.verdicts) if v.call.slot == r.slot), None)
        if lane is None:
            continue
        t1 = r.completed.t if r.completed else r.dispatched.t + (r.duration or 0.0)
        mark = "✖" if r.is_error else "✔"
        bars.append(
            Bar(
                lane,
                r.dispatched.t,
                t1,
                "#fb8c00" if not r.is_error else "#8e24aa",
                f"{mark} {r.name} {1000 * (r.duration or t1 - r.dispatched.t):.0f} ms",
            )
        )
    end = max([b.t1 for b in bars] + [0.001])
    return Band(str(place), labels, bars, end)


class TimelineView(QWidget):
    """Paints :func:`bands` for the document's analysis."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bands: list[Band] = []
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)

    def refresh(self, analysis: Analysis | None) -> None:
        """Recompute the content (once per flush) and schedule a repaint."""
        self.bands = bands(analysis)
        rows = sum(len(b.labels) + 2 for b in self.bands)
        self.setMinimumHeight(max(80, rows * ROW + 10))
        self.update()

    def paintEvent(self, _event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        text = self.palette().text().color()
        if not self.bands:
            p.setPen(text)
            p.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, "No stream yet.")
            return
        scale_end = max(b.end for b in self.bands)
        width = max(50.0, self.width() - LEFT - 20)
        y = 4
        for band in self.bands:
            p.setPen(text)
            p.drawText(4, y + ROW - 5, f"{band.title}   {band.word}   {band.note}")
            y += ROW
            self._axis(p, y, width, scale_end, text)
            for i, label in enumerate(band.labels):
                p.setPen(text)
                p.drawText(4, y + (i + 1) * ROW - 5, label)
            for bar in band.bars:
                self._bar(p, bar, y, width, scale_end)
            y += (len(band.labels) + 1) * ROW

    def _axis(self, p: QPainter, y: int, width: float, end: float, colour: QColor) -> None:
        p.setPen(QPen(colour, 0.5))
        p.drawLine(LEFT, y, int(LEFT + width), y)
        p.drawText(int(LEFT + width) - 60, y - 2, f"{end * 1000:.0f} ms")

    def _bar(self, p: QPainter, bar: Bar, y: int, width: float, end: float) -> None:
        x0 = LEFT + bar.t0 / end * width
        x1 = LEFT + bar.t1 / end * width
        top = y + bar.row * ROW + 3
        colour = QColor(bar.colour)
        if bar.t1 - bar.t0 <= 0 or x1 - x0 < 1.5:
            p.setPen(QPen(colour, 1.2))
            p.drawLine(int(x0), top, int(x0), top + ROW - 6)
            return
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(colour)
        p.drawRoundedRect(QRectF(x0, top, x1 - x0, ROW - 6), 3, 3)
        if bar.text and x1 - x0 > 40:
            p.setPen(QColor("#ffffff") if not theme.is_dark() else QColor("#000000"))
            p.drawText(
                QRectF(x0 + 3, top - 1, x1 - x0 - 6, ROW - 4),
                Qt.AlignmentFlag.AlignVCenter,
                bar.text,
            )
