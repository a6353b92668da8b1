"""While data streams in, the lanes' row is held: each lane keeps its own width, so a lane
that appears never resizes (and repaints) the ones on show; it is shown where it goes, never
first at the row's origin over the first lane; once the stream ends the lanes stretch to fill
the row, in a turn of the loop after the end's own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QObject

from inspector.ui.lanes import lane
from inspector.ui.shell.mainwindow import MainWindow
from inspector.ui.views import views
from ui.loading.test_load_turns import _calls_body
from ui.loading.test_progressive_ticks import progressive_window


@pytest.fixture
def window(qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> MainWindow:
    return progressive_window(qtbot, monkeypatch, 1900)  # room for two lanes and more


def _widths_while_loading(window: MainWindow, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """(held, lane widths) after every flush that streams, from the first lane on."""
    seen: list[Any] = []
    real_flush = views.DocumentViews.on_flush

    def on_flush(self: views.DocumentViews) -> None:
        real_flush(self)
        if self.doc.streaming and self.lanes.lanes:
            seen.append((self.lanes.held, [shown.width() for shown in self.lanes.lanes]))

    monkeypatch.setattr(views.DocumentViews, "on_flush", on_flush)
    window.views.doc.flushed.disconnect()
    window.views.doc.flushed.connect(window.views.on_flush)
    return seen


def test_lanes_keep_their_width_while_loading_and_stretch_after(
    window: MainWindow, qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _widths_while_loading(window, monkeypatch)
    at_end: list[bool] = []  # held as the end's re-judge was shown
    window.doc.rejudged.connect(lambda: at_end.append(window.lanes.held))
    assert window.open(str(_calls_body(tmp_path / "two.sse", 2, 40)))
    qtbot.waitUntil(lambda: not window.doc.loading, timeout=20_000)
    lanes = window.lanes
    assert [len(widths) for _, widths in seen][-1] == 2, seen  # the second came while loading
    assert all(held for held, _ in seen), seen
    assert {w for _, widths in seen for w in widths} == {lane.LANE_WIDTH}, seen  # none resized
    assert at_end and at_end[-1], at_end  # the end rebinds the held lanes ...
    qtbot.waitUntil(lambda: not lanes.held)  # ... and they stretch in a later turn
    room = lanes.viewport().width()
    qtbot.waitUntil(lambda: sum(shown.width() for shown in lanes.lanes) > 0.9 * room)
    assert all(shown.width() > lane.LANE_WIDTH for shown in lanes.lanes)
    assert all(shown.maximumWidth() > room for shown in lanes.lanes)


class _Paints(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.count += 1
        return False


def test_a_lane_appearing_off_screen_repaints_no_lane_on_show(
    window: MainWindow, qtbot: Any, tmp_path: Path
) -> None:
    assert window.open(str(_calls_body(tmp_path / "four.sse", 4, 3)))
    qtbot.waitUntil(lambda: not window.doc.loading, timeout=20_000)
    lanes, view = window.lanes, window.doc.view
    last = lanes.lanes.pop()  # three lanes on show, as if the fourth call had just begun
    lanes._row.removeWidget(last)
    last.hide()
    last.deleteLater()
    lanes.hold(True)  # as while data streams in
    qtbot.wait(50)
    spare = lanes.prepare()
    assert spare.x() > lanes.lanes[-1].geometry().right()  # it waits where it will show
    assert spare.x() > lanes.viewport().width()  # (off-screen)
    qtbot.wait(50)
    paints = _Paints()
    first = lanes.lanes[0].table.viewport()
    first.installEventFilter(paints)
    assert lanes.sync(view, rows=False, new_lanes=1)
    qtbot.wait(50)  # laid out and painted
    assert lanes.lanes[-1] is spare and spare.isVisible()
    assert paints.count == 0  # shown at the row's origin, it repainted the first lane whole
    assert spare.width() == lane.LANE_WIDTH


def test_a_rewound_replay_reshows_its_lanes_without_holding_the_row(
    window: MainWindow, qtbot: Any, tmp_path: Path
) -> None:
    assert window.open(str(_calls_body(tmp_path / "two.sse", 2, 3)))
    qtbot.waitUntil(lambda: not window.doc.loading, timeout=20_000)
    lanes = window.lanes
    qtbot.waitUntil(lambda: not lanes.held)
    qtbot.wait(50)  # stretched and laid out (a vertical scroll bar may take its room)
    widths = [shown.width() for shown in lanes.lanes]
    assert min(widths) > lane.LANE_WIDTH  # stretched
    view = window.doc.view
    lanes.rebind(None, "structural")  # rewound to before the first chunk: kept, hidden
    lanes.rebind(view, "structural", new_lanes=2)  # the same attempt streams again
    assert not lanes.held  # the lanes came back in their place, the row was not held
    qtbot.wait(50)
    assert [shown.width() for shown in lanes.lanes] == widths


def test_a_call_whose_lane_is_still_to_come_does_not_page_the_lanes(
    window: MainWindow, qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While data streams in, a new call's lane is built a flush later: until then the hint
    must not page ("lanes 1–0 of 1 →"): paging is for calls past MAX_LANES only."""
    texts: list[str] = []
    real_flush = views.DocumentViews.on_flush

    def on_flush(self: views.DocumentViews) -> None:
        real_flush(self)
        if self.doc.streaming and self.lanes.hint.isVisibleTo(self.lanes):
            texts.append(self.lanes.hint.text())

    monkeypatch.setattr(views.DocumentViews, "on_flush", on_flush)
    window.views.doc.flushed.disconnect()
    window.views.doc.flushed.connect(window.views.on_flush)
    window.resize(900, 900)  # some lanes off-screen: the hint has something true to say
    assert window.open(str(_calls_body(tmp_path / "six.sse", 6, 40)))
    qtbot.waitUntil(lambda: not window.doc.loading, timeout=20_000)
    assert texts, "the hint never showed while loading"
    assert not [t for t in texts if " of " in t], texts
