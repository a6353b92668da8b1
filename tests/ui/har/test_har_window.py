"""HAR files in the window: opened through File ▸ Open's door (one session at once, a picker
for several, a one-line notice for a body the exporter left out) and File ▸ Export as HAR….
Every button of the picker is pressed here; headless use never waits on it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import REPO, real_fixture
from har import shapes
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFileDialog, QMessageBox

from inspector.core.replay.harsessions import load_sessions
from inspector.ui.base import dialogs
from inspector.ui.har import har as harui
from inspector.ui.har.har import HarPicker
from inspector.ui.shell.mainwindow import MainWindow

SAMPLE = REPO / "resources" / "samples" / "anthropic-parallel-tool-use.jsonl"


@pytest.fixture
def window(qtbot: Any) -> MainWindow:
    w = MainWindow()
    w.persist_layout = False
    qtbot.addWidget(w)
    w.show()
    return w


def har_file(tmp_path: Path, *, missing: bool = False, two: bool = False) -> Path:
    """A Chrome DevTools HAR of a real stream (``missing``: its body left out; ``two``: a
    second POST after it, whose body is left out)."""
    body = real_fixture("gpt-4o-two-tools-usage-chunk").read_bytes()
    w = shapes.wire("openai-chat", "gpt-4o")
    har = shapes.chrome(None if missing else body, w)
    if two:
        har["log"]["entries"].append(shapes.chrome(None, w)["log"]["entries"][1])
    path = tmp_path / "devtools.har"
    path.write_bytes(orjson.dumps(har))
    return path


def test_a_har_with_one_session_opens_as_its_replay(window: MainWindow, tmp_path: Path) -> None:
    path = har_file(tmp_path)
    assert window.open(str(path))
    assert window.doc.replayer is not None and window.doc.notice is None
    assert len(window.lanes.lanes) == 2
    analysis = window.doc.analysis
    assert analysis is not None and any(w.startswith("no timing") for w in analysis.warnings)
    assert window.windowTitle().startswith("devtools.har")
    assert window.recent.paths()[0] == str(path)


def test_a_body_left_out_is_a_notice_naming_the_exporter(
    window: MainWindow, tmp_path: Path
) -> None:
    assert not window.open(str(har_file(tmp_path, missing=True)))
    notice = window.doc.notice or ""
    assert notice.startswith("HAR entry 2: Chrome DevTools saved no response.content.text")
    assert window.views.notice.text() == notice and window.doc.source is None


def test_the_picker_lists_each_session_and_its_buttons_answer(qtbot: Any, tmp_path: Path) -> None:
    sessions = load_sessions(har_file(tmp_path, two=True))
    picker = HarPicker(sessions)
    qtbot.addWidget(picker)
    table = picker.table
    assert table.rowCount() == 2 and table.item(0, 0).text() == "2"
    assert [table.item(0, c).text() for c in (1, 2, 3, 4, 5)] == [
        "POST", "/v1/chat/completions", "gpt-4o", "200", "openai-chat"
    ]  # fmt: skip
    assert "Chrome DevTools saved no" in table.item(1, 6).text()
    assert picker.chosen is sessions.sessions[0]  # the first session that can be shown
    picker.show()
    picker.buttons.button(QDialogButtonBox.StandardButton.Open).click()
    assert picker.result() == QDialog.DialogCode.Accepted
    picker.open()
    picker.buttons.button(QDialogButtonBox.StandardButton.Cancel).click()
    assert picker.result() == QDialog.DialogCode.Rejected
    picker.open()
    table.selectRow(1)
    rect = table.visualItemRect(table.item(1, 0))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert picker.result() == QDialog.DialogCode.Accepted and picker.chosen is sessions.sessions[1]


def test_opening_a_har_with_several_sessions_asks_which(
    window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[int] = []

    def pick_second(picker: HarPicker) -> int:
        asked.append(picker.table.rowCount())
        picker.table.selectRow(1)
        return int(QDialog.DialogCode.Accepted)

    monkeypatch.setattr(HarPicker, "exec", pick_second)
    assert not window.open(str(har_file(tmp_path, two=True)))  # the one left out: a notice
    assert asked == [2] and (window.doc.notice or "").startswith("HAR entry 4: Chrome DevTools")
    monkeypatch.setattr(HarPicker, "exec", lambda picker: int(QDialog.DialogCode.Rejected))
    assert not window.open(str(har_file(tmp_path, two=True)))


def test_headless_never_waits_on_the_picker(tmp_path: Path) -> None:
    said: list[str] = []
    dialogs.go_headless(said.append)
    try:
        sessions = load_sessions(har_file(tmp_path, two=True))
        assert harui.choose_session(None, sessions) is None  # type: ignore[arg-type]
    finally:
        dialogs.go_headless(None)
    assert len(said) == 1 and "2 LLM sessions among 4 entries" in said[0]
    assert "analyze devtools.har --entry N" in said[0]


def test_a_file_that_is_no_har_inside_is_one_error(
    window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a: shown.append(a[2]))
    path = tmp_path / "broken.har"
    path.write_text('{"log": {"entries": 7}}')
    assert not window.open(str(path))
    assert shown == [f"{path}\n\n{path}: not a HAR file: 'log.entries' is no list"]


def export_action(window: MainWindow) -> Any:
    return next(a for a in window.findChildren(type(window.menuBar().actions()[0]))
                if a.objectName() == "action-export-as-har")  # fmt: skip


def test_file_export_as_har_writes_what_is_on_show(
    window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out.har"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), ""))
    assert window.open(str(SAMPLE))
    export_action(window).trigger()
    har = json.loads(out.read_text())
    assert [e["request"]["url"] for e in har["log"]["entries"]] == [
        "https://api.anthropic.com/v1/messages"
    ]
    assert "Exported 1 entry" in window.statusBar().currentMessage()
    assert window.open(str(out))  # and it opens again, with its chunk times
    replayer = window.doc.replayer
    assert replayer is not None and replayer.capture.timed and len(window.lanes.lanes) == 2


def test_export_with_nothing_open_says_so_and_a_failed_write_is_a_message(
    window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    boxes: list[tuple[str, str]] = []
    monkeypatch.setattr(QMessageBox, "information", lambda *a: boxes.append(("info", a[2])))
    monkeypatch.setattr(QMessageBox, "warning", lambda *a: boxes.append(("warning", a[2])))
    export_action(window).trigger()
    assert boxes == [("info", "Nothing to export: open a capture or run a session first.")]
    window.open(str(SAMPLE))
    nowhere = tmp_path / "no" / "such" / "dir" / "x.har"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(nowhere), ""))
    export_action(window).trigger()
    assert boxes[-1][0] == "warning" and "cannot write" in boxes[-1][1]


def test_a_running_or_proxied_sessions_capture_is_exported_as_it_stands(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from types import SimpleNamespace

    from inspector.core.analysis.session import Analysis
    from inspector.core.base.settings import Settings
    from inspector.core.providers import REGISTRY

    live, proxied = (Analysis(Settings(), providers=REGISTRY) for _ in range(2))
    other = tmp_path / "proxied.jsonl"
    other.write_bytes(SAMPLE.read_bytes())
    session = SimpleNamespace(analysis=live, capture_path=SAMPLE)
    monkeypatch.setattr(window.live, "session", session)
    monkeypatch.setattr(
        window.proxies, "shown", SimpleNamespace(analysis=proxied, capture_path=other)
    )
    try:
        window.doc.attach_live(live, "live session")
        from_live = harui.current_capture(window)
        window.doc.attach_live(proxied, "proxy: POST /v1/messages")
        from_proxy = harui.current_capture(window)
        window.doc.attach_live(Analysis(Settings(), providers=REGISTRY), "neither")
        neither = harui.current_capture(window)
    finally:
        window.doc.close()
        monkeypatch.undo()  # before the window closes: closing stops the session it holds
    assert from_live is not None and from_live.path == str(SAMPLE) and from_live.attempts
    assert from_proxy is not None and from_proxy.path == str(other) and neither is None


def test_export_proposes_a_file_outside_the_working_directory(
    window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []
    monkeypatch.chdir(tmp_path)  # as `make run` starts it: inside the checkout

    def ask(_parent: Any, _title: str, start: str, _filter: str) -> tuple[str, str]:
        asked.append(start)
        return "", ""  # cancelled

    monkeypatch.setattr(QFileDialog, "getSaveFileName", ask)
    assert window.open(str(SAMPLE))
    export_action(window).trigger()
    (start,) = asked
    proposed = Path(start)
    assert proposed.is_absolute() and proposed.name == SAMPLE.with_suffix(".har").name
    assert tmp_path not in proposed.parents and proposed.parent.is_dir()
