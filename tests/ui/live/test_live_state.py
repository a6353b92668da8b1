"""The Live state tells the truth: never "done" while a run is under way, nothing of the last
run once something else is on show; another stream starts at its first lane with nothing
selected; a second Run of the default scenario shows its retry again."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QSettings

from inspector.core.base.resources import resource
from inspector.ui.shell.mainwindow import MainWindow
from ui.waiting import WAIT_MS, live_ended, until

SAMPLES = resource("samples")


@pytest.fixture
def window(
    qtbot: Any, qloop: qasync.QEventLoop, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> Iterator[MainWindow]:
    QSettings("toolcall-inspector", "toolcall-inspector").clear()
    monkeypatch.setattr("inspector.ui.live.live.captures_dir", lambda: tmp_path)
    w = MainWindow()
    w.persist_layout = False
    w.live.demo_chunk_delay = 0.002
    qtbot.addWidget(w)
    w.resize(1280, 800)
    w.show()
    yield w
    qloop.run_until_complete(w.aclose())


def run_default(window: MainWindow, qloop: qasync.QEventLoop, seen: list[tuple[bool, str]]) -> None:
    """Run demo-glm-retry to its end, noting (Stop enabled?, state) at every state shown."""
    window.live_bar.select("demo", "demo-glm-retry", "weather")
    label = window.live_bar.state_label

    async def scenario() -> None:
        window.start_live()
        await until(lambda: window.live.session is not None and window.live.running)
        while window.live.running:
            seen.append((window.live_bar.stop.isEnabled(), label.text().strip()))
            await asyncio.sleep(0.005)
        await until(lambda: live_ended(window))

    qloop.run_until_complete(scenario())


def test_the_state_never_says_done_while_a_run_is_under_way(
    window: MainWindow, qloop: qasync.QEventLoop
) -> None:
    label = window.live_bar.state_label
    said: list[tuple[bool, str]] = []
    window.live.state_changed.connect(  # what the bar shows at each change, Stop beside it
        lambda _t: said.append((window.live_bar.stop.isEnabled(), label.text().strip()))
    )
    window.live_bar.stop.setEnabled(True)  # a second run starts after a first one ended:
    label.setText(" done · round 1 · attempt 2 ")  # the bar as the last run left it
    window.live_bar.show_running(True)
    assert label.text().strip() == "starting"
    window.live_bar.show_running(False)
    seen: list[tuple[bool, str]] = []
    run_default(window, qloop, seen)
    assert seen and all(not text.startswith("done") for stop, text in seen if stop), seen
    assert label.text().strip().startswith("done")  # and once it ended, it says so


def test_opening_something_else_clears_the_live_state_and_the_lanes_place(
    window: MainWindow, qloop: qasync.QEventLoop, qtbot: Any
) -> None:
    run_default(window, qloop, [])
    label = window.live_bar.state_label
    assert label.text().strip().startswith("done")
    assert window.open(str(SAMPLES / "ollama-parallel-calls-index-0.jsonl"))
    assert label.text().strip() == ""  # the state of a run that is not on show: nothing
    lanes = window.lanes
    qtbot.waitUntil(lambda: len(lanes.lanes) >= 3, timeout=WAIT_MS)
    lanes.lanes[0].table.selectRow(0)
    window.raw.table.selectRow(2)
    bar = lanes.horizontalScrollBar()
    bar.setValue(bar.maximum())
    assert bar.value() > 0 and lanes.lanes[0].table.selectionModel().hasSelection()
    assert window.open(str(SAMPLES / "glm-empty-string-continuations.jsonl"))
    assert bar.value() == 0
    assert not any(lane.table.selectionModel().hasSelection() for lane in lanes.lanes)
    assert not window.raw.table.selectionModel().hasSelection()


def test_a_second_run_of_the_default_scenario_shows_its_retry_again(
    window: MainWindow, qloop: qasync.QEventLoop
) -> None:
    for _ in range(2):
        run_default(window, qloop, [])
        session = window.live.session
        assert session is not None and session.state == "done"
        assert [r.outcome for r in session.records] == ["retried", "accepted"]
