"""Opening a large file progressively in the real window (pytest-qt, offscreen): it is usable
from the first records, ends as the replay of the whole file, and Cancel keeps what was read.

"Large" is made small here: every file opens progressively, a few records per read."""

from __future__ import annotations

import gc
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, real_fixture
from PySide6.QtWidgets import QMessageBox

from inspector.core.capture import readahead
from inspector.core.capture.reader import load
from inspector.core.replay import loading
from inspector.ui.document import document
from inspector.ui.loading import progressive
from inspector.ui.shell.mainwindow import MainWindow
from ui.waiting import WAIT_MS

SAMPLES = REPO / "resources" / "samples"
BIG = SAMPLES / "large-arguments.jsonl"


@pytest.fixture
def window(qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> MainWindow:
    monkeypatch.setattr(document, "PROGRESSIVE_BYTES", 0)
    monkeypatch.setattr(progressive, "LOAD_SLICE", 0.0)  # one read per slice
    monkeypatch.setattr(progressive, "LOAD_FLUSH", 0.05)
    monkeypatch.setattr(loading, "RECORDS_PER_READ", 25)
    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    return w


def _lanes(w: MainWindow) -> list[tuple[str, str]]:
    return [(lane.header.text(), lane.status.text()) for lane in w.lanes.lanes]


def _opened_at_once(qtbot: Any, path: Path) -> list[tuple[str, str]]:
    """The lanes when the same file opens the ordinary way."""
    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    w.open(str(path))
    lanes = _lanes(w)
    w.close()
    return lanes


def test_a_large_file_is_usable_while_it_loads_and_ends_as_its_replay(
    window: MainWindow, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A slow machine, made certain: each slice takes at least 2 ms, so the load lasts over a
    # second and flushes show it part-read (on a quiet machine the whole file is in ~0.2 s,
    # before the first flush had a chance to show the raw pane).
    step = loading.ProgressiveLoad.step

    def slow_step(self: loading.ProgressiveLoad, budget: float) -> bool:
        time.sleep(0.002)
        return step(self, budget)

    monkeypatch.setattr(loading.ProgressiveLoad, "step", slow_step)
    assert window.open(str(BIG))
    doc = window.doc
    assert doc.loading and not window.load_bar.isHidden()  # reading, on a worker thread
    qtbot.waitUntil(lambda: BIG.name in window.windowTitle(), timeout=WAIT_MS)  # bytes in

    def partial() -> bool:  # a flush has shown some of the file, and more is to come
        return doc.loading and bool(window.lanes.lanes) and window.raw.model.rowCount() > 0

    qtbot.waitUntil(partial, timeout=WAIT_MS)
    view = doc.view
    assert view is not None and window.raw.model.rowCount() <= len(view.state.events)
    assert "Loading" in window.load_bar.label.text()
    assert not window.bar.play.isEnabled() and not window.bar.slider.isEnabled()
    assert "loading" in window.bar.position.text()
    window._apply(validation="strict")  # the window answers while loading
    assert doc.analysis is not None and doc.analysis.settings.validation == "strict"
    qtbot.waitUntil(lambda: not doc.loading, timeout=30_000)
    assert window.load_bar.isHidden()
    assert window.bar.play.isEnabled() and window.bar.slider.isEnabled()
    assert doc.replayer is not None and doc.replayer.at_end
    window._apply(validation="structural")
    monkeypatch.setattr(document, "PROGRESSIVE_BYTES", 1 << 40)
    assert _lanes(window) == _opened_at_once(qtbot, BIG)
    doc.seek(3)  # the loaded file is a replay like any other
    assert doc.replayer.position == 3


def test_cancel_keeps_what_was_read_and_the_window_goes_on(window: MainWindow, qtbot: Any) -> None:
    window.open(str(BIG))
    doc = window.doc
    qtbot.waitUntil(
        lambda: doc.view is not None and len(doc.view.state.events) > 5, timeout=WAIT_MS
    )
    window.load_bar.button.click()
    assert not doc.loading and window.load_bar.isHidden()
    assert not window.bar.play.isEnabled()  # what was read is shown, but not replayable
    view = doc.view
    assert view is not None
    kept = len(view.state.events)
    qtbot.wait(50)
    assert doc.view is not None and len(doc.view.state.events) == kept  # nothing more read
    assert window.lanes.lanes and window.raw.model.rowCount() == kept
    window._apply(empty_id="literal")  # what was read can still be judged
    assert window.open(str(real_fixture("gpt-4o-two-tools-usage-chunk")))
    qtbot.waitUntil(lambda: not doc.loading, timeout=WAIT_MS)
    assert len(window.lanes.lanes) == 2


def test_cancel_while_the_file_is_read_keeps_the_open_document(
    window: MainWindow, qtbot: Any
) -> None:
    window.open(str(real_fixture("gpt-4o-two-tools-usage-chunk")))
    qtbot.waitUntil(lambda: not window.doc.loading, timeout=WAIT_MS)
    title = window.windowTitle()
    window.open(str(BIG))
    assert window.doc.loading
    window.load_bar.button.click()  # before the worker thread hands the bytes over
    qtbot.wait(300)  # the read ends meanwhile; its bytes are dropped
    assert not window.doc.loading and window.windowTitle() == title
    assert len(window.lanes.lanes) == 2


def test_a_missing_file_fails_from_the_worker_with_a_dialog(
    window: MainWindow, qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a: shown.append(a[2]))
    path = tmp_path / "gone.jsonl"
    path.write_bytes(BIG.read_bytes())
    monkeypatch.setattr(
        readahead,
        "read_file",
        lambda p: (_ for _ in ()).throw(progressive.InspectorError(f"{p}: permission denied")),
    )
    window.open(str(path))
    qtbot.waitUntil(lambda: bool(shown), timeout=WAIT_MS)
    assert "permission denied" in shown[0]
    assert not window.doc.loading and window.load_bar.isHidden()


def test_a_corrupt_record_mid_file_shows_its_line_and_keeps_the_records_before_it(
    window: MainWindow, qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a: shown.append(a[2]))
    lines = BIG.read_bytes().splitlines()
    path = tmp_path / "cut.jsonl"
    path.write_bytes(b"\n".join([*lines[:40], b'{"type": "chunk", "att', *lines[40:]]) + b"\n")
    window.open(str(path))
    qtbot.waitUntil(lambda: bool(shown), timeout=WAIT_MS)
    assert "line 41" in shown[0] and "cut.jsonl" in shown[0]
    assert not window.doc.loading and window.load_bar.isHidden()
    assert window.doc.view is not None and window.doc.view.state.events


def _count_read_aheads(monkeypatch: pytest.MonkeyPatch) -> list[readahead.ProcessAhead]:
    """Every file past 4 KB reads ahead (past its first 2 KB); returns the processes started."""
    monkeypatch.setattr(loading, "AHEAD_PAST", 2048)
    started: list[readahead.ProcessAhead] = []
    init = readahead.ProcessAhead.__init__

    def counted(self: readahead.ProcessAhead, *args: Any) -> None:
        init(self, *args)
        started.append(self)

    monkeypatch.setattr(readahead.ProcessAhead, "__init__", counted)
    return started


def test_a_large_file_read_ahead_in_another_process_ends_as_its_replay(
    window: MainWindow, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    started = _count_read_aheads(monkeypatch)
    assert window.open(str(BIG))
    qtbot.waitUntil(lambda: not window.doc.loading, timeout=30_000)
    assert len(started) == 1  # the window held the file's head only: the process read the rest
    assert window.doc.replayer is not None
    assert window.doc.replayer.capture.attempts == load(BIG).attempts
    assert started[0]._process.poll() is not None  # not left running
    monkeypatch.setattr(document, "PROGRESSIVE_BYTES", 1 << 40)
    assert _lanes(window) == _opened_at_once(qtbot, BIG)


def test_cancel_stops_the_read_ahead_process(
    window: MainWindow, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    started = _count_read_aheads(monkeypatch)
    # the 2.8 MB file is more than the pipe holds: the process waits on it, still running
    window.open(str(BIG))
    qtbot.waitUntil(lambda: window.doc.view is not None, timeout=WAIT_MS)  # fed, not all read
    assert len(started) == 1 and started[0]._process.poll() is None
    window.load_bar.button.click()
    assert started[0]._process.poll() is not None  # killed with the load
    window.open(str(BIG))
    qtbot.waitUntil(lambda: len(started) == 2, timeout=WAIT_MS)
    window.load_bar.button.click()  # while the head is read: killed once it is handed over
    qtbot.waitUntil(lambda: started[1]._process.poll() is not None, timeout=WAIT_MS)


def test_the_collector_is_paused_while_a_file_is_fed_and_back_after(
    window: MainWindow, qtbot: Any
) -> None:
    assert gc.isenabled()
    window.open(str(BIG))
    qtbot.waitUntil(lambda: window.doc.view is not None, timeout=WAIT_MS)
    assert window.doc.loading and not gc.isenabled()
    qtbot.waitUntil(lambda: not window.doc.loading, timeout=30_000)
    assert gc.isenabled()
    window.open(str(BIG))
    qtbot.waitUntil(lambda: window.doc.view is not None and not gc.isenabled(), timeout=WAIT_MS)
    window.load_bar.button.click()  # stopped: back on too
    assert gc.isenabled()
