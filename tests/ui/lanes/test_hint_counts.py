"""The lanes' hint counts as off-screen only the lanes the user cannot see: a lane filling
the view is in view (Compare's narrow halves said "3 lanes · 3 off-screen" with lane 0 on
show)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSettings

from inspector.core.base.resources import resource
from inspector.ui.lanes.lanes import LanesView
from inspector.ui.shell.mainwindow import MainWindow
from ui.waiting import WAIT_MS

SAMPLES = resource("samples")

INDEX_0 = SAMPLES / "ollama-parallel-calls-index-0.jsonl"


def test_compares_lanes_never_count_the_lane_on_show_as_off_screen(qtbot: Any) -> None:
    QSettings("toolcall-inspector", "toolcall-inspector").clear()
    w = MainWindow()
    w.persist_layout = False
    qtbot.addWidget(w)
    w.default_layout()
    w.show()
    assert w.open(str(INDEX_0))
    w.open_compare()  # View ▸ Compare settings side by side… (Ctrl+D)
    view = w._compare
    assert view is not None
    halves = [lv for lv in view.findChildren(LanesView) if lv.lanes]
    assert halves, "Compare shows no lanes"
    for lanes in halves:
        qtbot.waitUntil(lambda lv=lanes: lv.hint.isVisible(), timeout=WAIT_MS)
        bar = lanes.horizontalScrollBar()
        bar.setValue(0)
        n = len([lane for lane in lanes.lanes if not lane.isHidden()])
        assert lanes.out_of_view() < n  # lane 0 is in view
        text = lanes.hint.text()
        assert f"{n} off-screen" not in text, text
    view.close()
