"""The desktop window under pytest-qt (offscreen): real widgets over real recordings."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, real_fixture, running_timers
from core.calls.test_empty_id_continuations import glm_stream
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QMessageBox

from inspector.core.base.resources import resource
from inspector.ui.base.models import SEQ_ROLE
from inspector.ui.lanes.lanes import LanesView
from inspector.ui.shell.mainwindow import MainWindow
from ui.waiting import WAIT_MS


@pytest.fixture
def window(qtbot: Any) -> MainWindow:
    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    return w


@pytest.fixture
def glm_file(tmp_path: Path) -> str:
    path = tmp_path / "glm-empty-id.sse"
    path.write_bytes(glm_stream(""))
    return str(path)


def lane_texts(lanes: LanesView) -> list[str]:
    return [lane.header.text() + lane.status.text() for lane in lanes.lanes]


@pytest.mark.parametrize(
    "name, lanes, verdicts",
    [
        ("gpt-4o-two-tools-usage-chunk", 2, ["valid", "valid"]),
        ("anthropic-max-tokens-mid-arguments", 1, ["INVALID"]),
        ("mistral-no-index-whole-call", 1, ["valid"]),
        ("gemini-3-function-call", 1, ["valid"]),
        ("responses-lmstudio-no-deltas", 1, ["valid"]),
    ],
)
def test_real_streams_open_with_lanes_badges_and_verdicts(
    window: MainWindow, name: str, lanes: int, verdicts: list[str]
) -> None:
    assert window.open(str(real_fixture(name)))
    texts = lane_texts(window.lanes)
    assert len(texts) == lanes
    for text, verdict in zip(texts, verdicts, strict=True):
        assert verdict in text
    if name == "mistral-no-index-whole-call":
        assert "index <b>(omitted)</b>" in texts[0] and "omitted" in texts[0]
    if name == "gemini-3-function-call":
        assert "repaired" in texts[0] and "call00000" in texts[0]


def test_literal_shows_the_dropped_fragments_and_the_json_error(
    window: MainWindow, glm_file: str
) -> None:
    window._apply(empty_id="literal")
    window.open(glm_file)
    assert len(window.lanes.lanes) == 2
    for lane in window.lanes.lanes:
        assert lane.buffer.toPlainText() == "{"
        assert "INVALID" in lane.status.text() and "end of input" in lane.status.text()
        assert lane.buffer.extraSelections(), "the error offset is marked in the buffer"
        model = lane.model
        rows = [model.fragment(r) for r in range(model.rowCount())]
        dropped = [i for i, r in enumerate(rows) if r is not None and not r.accepted]
        assert len(dropped) >= 4 and rows[0] is not None and rows[0].accepted
        font = model.data(model.index(dropped[0], 4), Qt.ItemDataRole.FontRole)
        assert font.strikeOut()
        assert not model.data(model.index(0, 4), Qt.ItemDataRole.FontRole).strikeOut()
        assert "dropped" in model.data(model.index(dropped[0], 4), Qt.ItemDataRole.ToolTipRole)
    # flipping to absent re-judges the open stream without reopening it
    window.bar.empty_id.setCurrentIndex(window.bar.empty_id.findData("absent"))
    window.bar.empty_id.activated.emit(window.bar.empty_id.currentIndex())
    assert window.doc.settings.empty_id == "absent"
    for lane in window.lanes.lanes:
        assert "✔ valid" in lane.status.text()
        assert lane.buffer.toPlainText().startswith("{") and len(lane.buffer.toPlainText()) > 1
        assert not lane.buffer.extraSelections()


def test_fragment_and_raw_event_select_each_other(window: MainWindow) -> None:
    window.open(str(real_fixture("gpt-4o-two-tools-usage-chunk")))
    lane = window.lanes.lanes[1]
    lane.table.selectRow(3)
    seq = lane.model.data(lane.model.index(3, 0), SEQ_ROLE)
    assert window.raw.table.currentIndex().row() == seq
    assert f"#{seq}" in window.raw.detail.toPlainText()
    window.raw.table.selectRow(4)  # an event of call 0
    first = window.lanes.lanes[0]
    assert first.table.currentIndex().row() >= 0
    assert first.model.data(first.table.currentIndex(), SEQ_ROLE) == 4


def test_fewer_calls_elsewhere_give_the_lanes_space_back(window: MainWindow, qtbot: Any) -> None:
    window.open(str(real_fixture("gpt-4o-two-tools-usage-chunk")))
    second = window.lanes.lanes[1]
    window.open(str(real_fixture("anthropic-tool-use")))  # another file: one call
    assert len(window.lanes.lanes) == 1 and second.isHidden()
    assert not second.sizePolicy().retainSizeWhenHidden()  # no blank place left for it
    row = window.lanes.viewport().width()
    qtbot.waitUntil(lambda: window.lanes.lanes[0].width() > 0.9 * row)  # it takes the row


def test_lane_status_shrinks_back_when_its_error_line_goes(
    window: MainWindow, glm_file: str
) -> None:
    """The status label has a fixed size (it changes every flush); flipping from an invalid
    call (status + error line) to a valid one must give the lines back."""
    window._apply(empty_id="literal")
    window.open(glm_file)
    tall = [lane.status.height() for lane in window.lanes.lanes]
    window._apply(empty_id="absent")
    short = [lane.status.height() for lane in window.lanes.lanes]
    line = window.lanes.lanes[0].status.fontMetrics().lineSpacing()
    assert all(t >= 2 * line for t in tall)
    assert all(h < 2 * line for h in short), (tall, short)


def test_status_notes_are_replaced_not_piled_up(window: MainWindow, glm_file: str) -> None:
    """Re-judging an invalid lane again and again keeps one error line; a compare mark is one
    line, and goes when the sides stop differing."""
    window._apply(empty_id="literal")
    window.open(glm_file)
    first = [lane.status.text() for lane in window.lanes.lanes]
    assert all(t.count("✖") == 2 for t in first)  # the verdict mark and one error line
    for mode in ("strict", "structural", "strict", "structural"):
        window._apply(validation=mode)
    view = window.doc.view
    for _ in range(3):
        window.lanes.rebind(None, "structural")
        window.lanes.rebind(view, "structural")
    assert [lane.status.text() for lane in window.lanes.lanes] == first
    lanes = window.lanes
    for _ in range(3):
        lanes.mark({0: "verdict differs"})
    assert lanes.lanes[0].status.text().count("≠") == 1
    lanes.mark({})
    assert "≠" not in lanes.lanes[0].status.text()
    assert [lane.status.text() for lane in lanes.lanes] == first


def test_selection_survives_a_rejudge(window: MainWindow, glm_file: str) -> None:
    window.open(glm_file)
    window.lanes.lanes[1].table.selectRow(2)
    seq = window.views.selected_seq
    window._apply(validation="strict")
    assert window.views.selected_seq == seq
    assert window.raw.table.currentIndex().row() == seq


def test_findings_pane_lists_quirks_and_jumps(window: MainWindow) -> None:
    window.open(str(real_fixture("qwen3-max-empty-id-continuations")))
    model = window.problems.model_
    codes = [model.finding(r).code for r in range(model.rowCount())]  # type: ignore[union-attr]
    assert "empty_string_continuation_id" in codes
    row = codes.index("empty_string_continuation_id")
    window.problems.clicked.emit(model.index(row, 1))
    assert window.raw.table.currentIndex().row() == 1


def test_turn_pane_and_status_bar(window: MainWindow) -> None:
    window.open(str(real_fixture("anthropic-tool-use")))
    assert window.turn.finish.text() == "'tool_use'"
    assert "check the current weather" in window.turn.text.toPlainText()
    status = window.statusBar().currentMessage()
    assert "anthropic" in status and "1 call(s), 0 invalid" in status


def test_scrub_shows_the_state_at_that_point(window: MainWindow) -> None:
    window.open(str(real_fixture("gpt-4o-two-tools-usage-chunk")))
    final = window.lanes.lanes[0].call.arguments  # type: ignore[union-attr]
    window.doc.seek(5)
    assert len(window.lanes.lanes) == 1
    partial = window.lanes.lanes[0].buffer.toPlainText()
    assert final.startswith(partial) and len(partial) < len(final)
    assert "streaming" in window.lanes.lanes[0].status.text()
    window.doc.seek(26)
    assert len(window.lanes.lanes) == 2


def test_replay_plays_to_the_end_then_stops_its_clock(window: MainWindow, qtbot: Any) -> None:
    window.open(str(real_fixture("deepseek-reasoner-token-args")))
    window.doc.speed = 1.0  # 53 events, about 2.5 s: a flush comes mid-way even when loaded
    window.doc.replay()
    assert window.doc.playing
    seen: list[int] = []
    window.doc.position_changed.connect(lambda pos, _total: seen.append(pos))
    qtbot.waitUntil(lambda: not window.doc.playing, timeout=WAIT_MS)
    assert window.doc.replayer is not None and window.doc.replayer.at_end
    # flushes in order, one at least before the end (how many: the machine's speed says; a
    # loaded one catches up in bigger steps: 48 then 53 at 5x)
    assert seen == sorted(seen) and seen[0] < seen[-1] == window.doc.replayer.position
    assert "✔ valid" in window.lanes.lanes[0].status.text()
    assert not running_timers()


def test_corrupt_file_shows_a_dialog_and_the_app_keeps_working(
    window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a: shown.append(a[2]))
    bad = tmp_path / "broken.jsonl"
    bad.write_text('{"format": "toolcall-inspector-capture", "version": 1}\n{oops\n{}\n')
    assert not window.open(str(bad))
    assert len(shown) == 1 and "broken.jsonl" in shown[0] and "line 2" in shown[0]
    assert window.open(str(real_fixture("anthropic-tool-use")))
    assert len(window.lanes.lanes) == 1


def test_compare_marks_the_calls_that_differ(window: MainWindow, glm_file: str) -> None:
    window.open(glm_file)
    window.open_compare()
    cmp = window._compare
    assert cmp is not None
    assert cmp.comparison is not None and cmp.comparison.differs
    left = [lane.status.text() for lane in cmp.left.lanes.lanes]  # type: ignore[attr-defined]
    right = [lane.status.text() for lane in cmp.right.lanes.lanes]  # type: ignore[attr-defined]
    assert all("✔ valid" in t and "≠" in t for t in left)
    assert all("INVALID" in t and "≠" in t for t in right)
    assert cmp.summary.count() >= 2  # type: ignore[attr-defined]


def test_recent_files_are_remembered(window: MainWindow) -> None:
    path = str(real_fixture("anthropic-tool-use"))
    window.open(path)
    assert window.recent.paths()[0] == path
    assert window.recent_menu.actions()[0].text() == path


def test_the_recent_and_samples_menus_open_their_file(window: MainWindow) -> None:
    """A menu item's ``triggered`` carries a ``checked`` flag: it must not reach the path."""
    path = str(real_fixture("anthropic-tool-use"))
    window.open(path)
    window.close_document()
    window.recent_menu.actions()[0].trigger()
    assert window.doc.path == path and window.lanes.lanes
    sample = window.samples_menu.actions()[0]
    sample.trigger()
    assert window.doc.path is not None and window.doc.path.endswith(sample.text() + ".jsonl")
    window.doc.pause()


def test_timer_guard_sees_a_running_timer(qtbot: Any) -> None:
    """The guard the whole UI suite relies on actually notices a running timer."""
    timer = QTimer()
    timer.start(1000)
    assert timer in running_timers()
    timer.stop()
    assert timer not in running_timers()


def test_screenshot_mode_writes_a_png(tmp_path: Path) -> None:
    out = tmp_path / "shot.png"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "inspector",
            "open",
            str(real_fixture("qwen3-max-empty-id-continuations")),
            "--screenshot",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_replay_from_zero_fills_the_raw_pane_and_lanes(window: MainWindow) -> None:
    """Regression: before the first chunk there is no attempt; views must bind once it exists."""
    window.open(str(real_fixture("gpt-4o-two-tools-usage-chunk")), play=True)
    window.doc.pause()
    window.doc.seek(0)
    assert window.raw.model.rowCount() == 0 and not window.lanes.lanes
    window.doc.step(3)
    assert window.raw.model.rowCount() == 3
    assert len(window.lanes.lanes) == 1
    window.doc.step(30)
    assert window.raw.model.rowCount() == 26 and len(window.lanes.lanes) == 2


def test_a_rewound_replay_reuses_its_lanes_and_shows_the_same(window: MainWindow) -> None:
    window.open(str(real_fixture("gpt-4o-two-tools-usage-chunk")))
    before = list(window.lanes.lanes)
    texts = lane_texts(window.lanes)
    buffers = [lane.buffer.toPlainText() for lane in before]
    window.doc.seek(0)
    assert not window.lanes.lanes and all(lane.isHidden() for lane in before)
    assert all(lane.call is None and lane.model.rowCount() == 0 for lane in before)
    assert all(lane.sizePolicy().retainSizeWhenHidden() for lane in before)  # places kept
    window.doc.step(3)  # the attempt and its first call are back; the second keeps its place
    assert window.lanes.lanes == [before[0]] and before[1].isHidden()
    assert before[1].sizePolicy().retainSizeWhenHidden()
    window.doc.seek(len(window.doc.replayer.plan))
    assert sorted(map(id, window.lanes.lanes)) == sorted(map(id, before))  # no new widgets
    assert not any(lane.isHidden() for lane in window.lanes.lanes)
    assert lane_texts(window.lanes) == texts
    assert [lane.buffer.toPlainText() for lane in window.lanes.lanes] == buffers


def test_every_sample_opens_with_lanes(window: MainWindow) -> None:
    samples = sorted(resource("samples").glob("*.jsonl"))
    assert len(samples) >= 8
    assert len(window.samples_menu.actions()) == len(samples)
    for path in samples:
        assert window.open(str(path)), path
        assert window.lanes.lanes, path
        assert window.raw.model.rowCount() > 0


def test_dropping_a_file_opens_it(window: MainWindow, qtbot: Any) -> None:
    from PySide6.QtCore import QMimeData, QPointF, QUrl
    from PySide6.QtGui import QDropEvent

    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(real_fixture("anthropic-tool-use")))])
    event = QDropEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )
    window.dropEvent(event)
    assert window.doc.path and window.doc.path.endswith("anthropic-tool-use.sse")
    assert len(window.lanes.lanes) == 1


def test_unknown_dialect_offers_the_choice(window: MainWindow, tmp_path: Path) -> None:
    odd = tmp_path / "odd.sse"
    odd.write_bytes(b'event: mystery\ndata: {"hello": 1}\n\n')
    window.open(str(odd))
    assert (window.doc.notice or "").startswith("unknown dialect: ")
    box = window.dialect_box  # asked without blocking the loop
    assert box is not None and box.isVisible()
    assert "openai-chat" in box.comboBoxItems() and "anthropic" in box.comboBoxItems()
    box.setTextValue("anthropic")
    box.accept()
    assert window.doc.settings.dialect == "anthropic" and window.doc.notice is None


def test_excepthook_shows_a_message_instead_of_a_traceback(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    from inspector.ui.shell.app import install_excepthook

    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "critical", lambda *a: shown.append(a[2]))
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    install_excepthook(window)
    try:
        raise ValueError("boom")
    except ValueError as exc:
        sys.excepthook(type(exc), exc, exc.__traceback__)
    assert shown and "boom" in shown[0]
    err = capsys.readouterr().err
    assert "ValueError: boom" in err and "Traceback" not in err


def test_export_view_as_png(window: MainWindow, tmp_path: Path) -> None:
    window.open(str(real_fixture("anthropic-tool-use")))
    out = tmp_path / "view.png"
    assert window.export_png(str(out))
    assert out.read_bytes()[:4] == b"\x89PNG"


def test_spare_lanes_are_capped_and_lanes_stay_in_order(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    from inspector.ui.lanes import lanes as lanes_module

    monkeypatch.setattr(lanes_module, "MAX_SPARE", 1)
    window.open(str(real_fixture("gpt-4o-two-tools-usage-chunk")))
    texts = lane_texts(window.lanes)
    window.doc.seek(0)
    assert len(window.lanes._spare) == 1  # the other lane was let go
    window.doc.seek(len(window.doc.replayer.plan))
    assert lane_texts(window.lanes) == texts  # call 0 in the kept lane, call 1 in a new one
    row = window.lanes._row
    shown = [
        row.itemAt(i).widget()
        for i in range(row.count())
        if row.itemAt(i).widget() in window.lanes.lanes
    ]
    assert shown == window.lanes.lanes  # layout order is lane order


# -- the screen it opens on, the status line while replaying, no display ---------------------


def test_the_window_fits_the_screen_it_opens_on_and_a_remembered_one_is_kept_on_it(
    qtbot: Any,
) -> None:
    from PySide6.QtCore import QByteArray, QRect, QSettings, QSize
    from PySide6.QtGui import QGuiApplication

    available = QGuiApplication.primaryScreen().availableGeometry()
    QSettings("toolcall-inspector", "toolcall-inspector").remove("geometry")  # a first start
    first = MainWindow()
    qtbot.addWidget(first)
    assert available.contains(first.geometry())  # no fixed 1400×900
    # a first start: 90 % of the available area each way, centred (never maximized)
    assert first.geometry().size() == QSize(
        int(available.width() * 0.9), int(available.height() * 0.9)
    )
    assert first.geometry().center() == available.center() and not first.isMaximized()
    first.setGeometry(QRect(-300, -200, 2400, 1500))  # as if saved on a larger screen
    first.settings.setValue("geometry", first.saveGeometry())
    second = MainWindow()
    qtbot.addWidget(second)
    assert isinstance(second.settings.value("geometry"), QByteArray)
    assert available.contains(second.geometry()), second.geometry()
    assert second.minimumWidth() <= available.width()
    first.settings.remove("geometry")


def test_screen_fit_takes_90_percent_of_any_screen_centred() -> None:
    from PySide6.QtCore import QRect

    from inspector.ui.base import screenfit

    assert screenfit.default_geometry(QRect(0, 0, 1280, 800)) == QRect(64, 40, 1152, 720)
    assert screenfit.default_geometry(QRect(0, 0, 1600, 1000)) == QRect(80, 50, 1440, 900)
    assert screenfit.default_geometry(QRect(0, 0, 2560, 1440)) == QRect(128, 72, 2304, 1296)
    shrunk = screenfit.clamped(QRect(900, 700, 1400, 900), QRect(0, 0, 1280, 800))
    assert shrunk == QRect(0, 0, 1280, 800)


def test_the_status_line_says_what_is_replaying_before_its_first_event(
    window: MainWindow,
) -> None:
    name = "glm-empty-string-continuations.jsonl"
    window.open(str(REPO / "resources" / "samples" / name), play=True)
    assert window.doc.playing and window.doc.replayer.position == 0
    window.views.show_status()
    assert window.statusBar().currentMessage() == f"{name} · replaying · no event yet (at chunk 0)"
    window.doc.pause()
    assert window.bar.play.text() == "Replay"  # at chunk 0, Replay starts it
    window.doc.step(3)
    assert window.bar.play.text() == "Resume" and not window.doc.playing
    window.bar.play.click()  # goes on from chunk 3, not from 0
    assert window.doc.playing and window.doc.replayer.position >= 3
    window.doc.pause()


def test_without_a_display_open_says_what_is_missing_before_any_qt_app(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from inspector import cli

    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    ran: list[str | None] = []

    def run(path: str | None, screenshot: str | None, **_kw: Any) -> int:
        ran.append(os.environ.get("QT_QPA_PLATFORM"))
        return 0

    monkeypatch.setattr("inspector.ui.shell.app.run", run)
    assert cli.main(["open"]) == 2
    assert cli.main([]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and err[0] == err[1]
    line = err[0]
    assert line.startswith("toolcall-inspector: no display")
    assert "apt-get install xvfb" in line and "xvfb-run" in line
    assert "scripts/qt-system-libs.sh" in line and "analyze" in line
    assert ran == []  # no Qt application was made
    assert cli.main(["open", "--screenshot", "x.png"]) == 0  # a picture renders offscreen
    assert ran == ["offscreen"]
