"""What one turn of the event loop may hold while a file loads or a replay streams, counted
(never timed): the tick after a flush feeds nothing, the last call's closing is validated
ahead of the views, a new lane is built in one flush and shown in a later one, the lanes on
show are not moved when one is added, a lane's verdict border repaints only itself, and the
lanes' paging hint takes its own strip under the lanes instead of covering the last row."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QObject

from inspector.core.analysis import judgement
from inspector.core.replay.sources import LoadingSource
from inspector.ui.lanes import lane
from inspector.ui.lanes import lanes as lanes_module
from inspector.ui.loading.progressive import ProgressiveOpen
from inspector.ui.shell.mainwindow import MainWindow
from inspector.ui.views import views
from ui.loading.test_progressive_ticks import _chunk, progressive_window

CALLS = 6
PIECES = 30


def _calls_body(path: Path, calls: int, pieces: int, pings: int = 0) -> Path:
    """A raw body of ``calls`` calls of ``pieces`` fragments each, streamed one after another
    (then ``pings`` keep-alive comments after the finish reason)."""
    chunks = []
    for i in range(calls):
        chunks.append(_chunk(i, '{"text": "', head=True))
        chunks += [_chunk(i, f"piece {n} of call {i}, ") for n in range(pieces)]
        chunks.append(_chunk(i, '"}'))
    chunks += [_chunk(0, "", finish="tool_calls"), b": ping\n\n" * pings, b"data: [DONE]\n\n"]
    path.write_bytes(b"".join(chunks))
    return path


@pytest.fixture
def body(tmp_path: Path) -> Path:
    return _calls_body(tmp_path / "calls.sse", CALLS, PIECES)


@pytest.fixture
def flushing(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Ticks of the loader and what they did, in order ("step", "flush", "idle", ...);
    patched before the window exists (its timer connects then)."""
    done: list[str] = []
    real_slice = ProgressiveOpen._slice

    def tick(self: ProgressiveOpen) -> None:
        done.append("idle")  # replaced by what the tick did, if anything
        real_slice(self)

    def record(kind: str, real: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if done and done[-1] == "idle":
                done[-1] = kind
            return real(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(ProgressiveOpen, "_slice", tick)
    monkeypatch.setattr(LoadingSource, "step", record("step", LoadingSource.step))
    monkeypatch.setattr(ProgressiveOpen, "_work", record("work", ProgressiveOpen._work))
    on_flush = record("flush", views.DocumentViews.on_flush)
    monkeypatch.setattr(views.DocumentViews, "on_flush", on_flush)
    return done


@pytest.fixture
def window(qtbot: Any, monkeypatch: pytest.MonkeyPatch, flushing: list[str]) -> MainWindow:
    return progressive_window(qtbot, monkeypatch)


def _load(window: MainWindow, qtbot: Any, path: Path) -> None:
    assert window.open(str(path))
    qtbot.waitUntil(lambda: not window.doc.loading, timeout=20_000)


def test_the_tick_after_a_flush_feeds_nothing(
    window: MainWindow, qtbot: Any, body: Path, flushing: list[str]
) -> None:
    _load(window, qtbot, body)
    after = [flushing[i + 1] for i, kind in enumerate(flushing[:-1]) if kind == "flush"]
    assert len(after) > 10, flushing
    assert set(after) == {"idle"}, after  # the loop lays out and paints what the flush changed
    assert flushing.count("step") > 10


def test_no_flush_validates_a_call_that_closed_it_was_judged_ahead(
    window: MainWindow, qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    closed_in: dict[str, int] = defaultdict(int)  # where closed calls were validated
    where = ["load"]
    real_judge = judgement.judge_call
    real_flush = views.DocumentViews.on_flush

    def judge_call(state: Any, call: Any, *args: Any) -> Any:
        if not call.open:
            closed_in[where[0]] += 1
        return real_judge(state, call, *args)

    def on_flush(self: views.DocumentViews) -> None:
        where[0] = "flush"
        try:
            real_flush(self)
        finally:
            where[0] = "load"

    monkeypatch.setattr(judgement, "judge_call", judge_call)
    monkeypatch.setattr(views.DocumentViews, "on_flush", on_flush)
    window.views.doc.flushed.disconnect()
    window.views.doc.flushed.connect(window.views.on_flush)
    _load(window, qtbot, _calls_body(tmp_path / "pings.sse", CALLS, PIECES, pings=40))
    assert closed_in["load"] >= CALLS, closed_in  # every call, validated once it closed ...
    assert closed_in["flush"] == 0, closed_in  # ... ahead of the views, the last one too


def test_a_lane_is_built_in_one_flush_and_shown_in_a_later_one(
    window: MainWindow, qtbot: Any, body: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    per_flush: list[tuple[int, int]] = []  # (lanes built, lanes shown) by each flush
    built = [0]
    real_init = lane.LaneWidget.__init__
    real_flush = views.DocumentViews.on_flush

    def init(self: lane.LaneWidget, *args: Any, **kwargs: Any) -> None:
        built[0] += 1
        real_init(self, *args, **kwargs)

    def on_flush(self: views.DocumentViews) -> None:
        made, shown = built[0], len(self.lanes.lanes)
        real_flush(self)
        per_flush.append((built[0] - made, len(self.lanes.lanes) - shown))

    monkeypatch.setattr(lane.LaneWidget, "__init__", init)
    monkeypatch.setattr(views.DocumentViews, "on_flush", on_flush)
    window.views.doc.flushed.disconnect()
    window.views.doc.flushed.connect(window.views.on_flush)
    _load(window, qtbot, body)
    assert len(window.lanes.lanes) == CALLS
    streamed = per_flush[:-1]  # the last flush catches up (not streaming)
    assert sum(shown for _, shown in streamed) >= 3, per_flush  # lanes came while loading
    assert not [f for f in streamed if f[0] and f[1]], per_flush  # never built and shown at once
    assert max(b for b, _ in streamed) == 1, per_flush  # one built per flush at most


class _Moves(QObject):
    """Counts Move and Resize events of the watched widgets."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.Move, QEvent.Type.Resize):
            self.count += 1
        return False


def test_the_lanes_on_show_stay_put_when_a_lane_is_added(
    window: MainWindow, qtbot: Any, tmp_path: Path
) -> None:
    _load(window, qtbot, _calls_body(tmp_path / "four.sse", 4, 3))
    lanes = window.lanes
    assert len(lanes.lanes) == 4  # wider than the window: the row is as wide as its lanes
    view = window.doc.view
    moves = _Moves()
    for shown in lanes.lanes[:3]:
        shown.installEventFilter(moves)
    last = lanes.lanes.pop()  # three lanes on show, as if the fourth call had just begun
    lanes._row.removeWidget(last)
    last.hide()
    last.deleteLater()
    qtbot.wait(20)
    assert lanes.wants_spare(view)
    lanes.prepare()  # its lane, built ahead
    assert not lanes.wants_spare(view)
    qtbot.wait(20)
    moves.count = 0
    assert lanes.sync(view, rows=False, new_lanes=1)  # the fourth lane appears ...
    qtbot.wait(50)  # ... laid out and painted
    assert len(lanes.lanes) == 4
    assert moves.count == 0  # no lane on show was squeezed, then moved back


def test_a_verdict_colour_repaints_the_border_only(window: MainWindow, qtbot: Any) -> None:
    shown = lane.LaneWidget()
    qtbot.addWidget(shown)
    shown.resize(540, 400)
    border = shown.border()
    assert border.contains(shown.rect().topLeft()) and border.contains(shown.rect().bottomRight())
    assert not border.contains(shown.rect().center())  # the table, buffer and header are not
    assert border.boundingRect() == shown.rect()


@pytest.mark.parametrize("height", [260, 420])
def test_the_paging_hint_takes_its_own_strip_under_the_lanes(
    window: MainWindow, qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, height: int
) -> None:
    monkeypatch.setattr(lanes_module, "MAX_LANES", 4)
    window.views.split.setSizes([height, 900 - height])  # a short lane area (a dock open)
    _load(window, qtbot, _calls_body(tmp_path / "ten.sse", 10, 2))
    lanes, hint = window.lanes, window.lanes.hint
    qtbot.waitUntil(hint.isVisible)
    assert hint.text().startswith("lanes 1–4 of 10")
    viewport = lanes.viewport().geometry()
    assert not viewport.intersects(hint.geometry())  # under the lanes' last rows, not on them
    assert lanes.rect().contains(hint.geometry())  # and still in the lanes view
    for shown in lanes.lanes:
        on_screen = shown.geometry().translated(viewport.topLeft() - lanes.widget().pos() * -1)
        assert not on_screen.intersected(viewport).intersects(hint.geometry())
    assert lanes.viewportMargins().bottom() == hint.height() + 2 * lanes_module.HINT_GAP
    window.open(str(_calls_body(tmp_path / "one.sse", 1, 2)))  # one lane: no hint, no strip
    qtbot.waitUntil(lambda: not window.doc.loading and not hint.isVisible(), timeout=20_000)
    assert lanes.viewportMargins().bottom() == 0
