"""One rule for which attempt the clients judge, in the real window over the real demo
provider: the final attempt (of each round), unless the user selects another; a flip of the
settings never changes it, the Clients view's header says it, and a stopped stream judges no
client."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QSettings, Qt

from inspector.core.reports.words import CLIENT_BREAKS
from inspector.ui.shell.mainwindow import MainWindow
from ui.waiting import live_ended, until


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
    w.show()
    yield w
    qloop.run_until_complete(w.aclose())


def run(window: MainWindow, qloop: qasync.QEventLoop, model: str, *, stop: bool = False) -> None:
    window.live_bar.select("demo", model, "weather")

    async def scenario() -> None:
        window.start_live()
        await until(lambda: window.live.session is not None and window.live.running)
        if stop:
            await until(lambda: bool(window.doc.view and window.doc.view.state.events))
            window.live_bar.stop.click()
        await until(lambda: live_ended(window))
        await until(lambda: window.views.clients_follower.verdict is not None)

    qloop.run_until_complete(scenario())


def judged(window: MainWindow) -> tuple[set[int | None], str, str]:
    """(the attempts the results describe, the Clients view's header, the headline)."""
    window.views.show_clients()
    follower = window.views.clients_follower
    follower.refresh()
    verdict = follower.verdict
    assert verdict is not None
    attempts = {r.attempt for r in verdict.results.values() if r.applies}
    return attempts, window.views.clients.judged.text(), follower.headline


def test_a_flip_of_validation_never_changes_which_attempt_the_clients_judge(
    window: MainWindow, qloop: qasync.QEventLoop
) -> None:
    run(window, qloop, "demo-glm-retry")  # the default: attempt 1 cut off, attempt 2 whole
    a = window.doc.analysis
    assert a is not None and len(a.attempts) == 2
    before = judged(window)
    assert before[0] == {2} and before[1] == "Judging the final attempt (attempt 2)"
    window._apply(persist=False, validation="off")
    after = judged(window)
    assert after[0] == {2} and after[1] == before[1]
    # the headline's client half is the same: only the session's word follows the mode
    assert after[2].split(" — ", 1)[1] == before[2].split(" — ", 1)[1]
    ids = {c.id for c in window.views.clients_follower.verdict.expected["openai-python"]}
    assert ids == {v.call.id for v in a.attempts[1].verdicts if not v.orphan}  # the lanes'


def click(qtbot: Any, window: MainWindow, row: int) -> None:
    """The user clicks attempt ``row`` (0-based) in the Attempts pane."""
    tree = window.attempts
    rect = tree.visualItemRect(tree.topLevelItem(row))
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def test_selecting_an_attempt_judges_that_one_and_the_header_says_so(
    window: MainWindow, qloop: qasync.QEventLoop, qtbot: Any
) -> None:
    run(window, qloop, "demo-glm-retry")
    window.attempts_dock.show()
    click(qtbot, window, 0)  # the user picks attempt 1
    assert window.doc.attempt == 1
    attempts, header, _ = judged(window)
    assert attempts == {1}
    assert header == "Judging attempt 1, as selected (the final attempt is attempt 2)"
    click(qtbot, window, 1)  # back to the final one
    attempts, header, _ = judged(window)
    assert attempts == {2} and header == "Judging the final attempt (attempt 2)"


def test_a_users_stop_is_never_reported_as_client_breakage(
    window: MainWindow, qloop: qasync.QEventLoop
) -> None:
    run(window, qloop, "fault-stall", stop=True)
    verdict = window.views.clients_follower.verdict
    assert verdict is not None
    applicable = verdict.applicable
    assert applicable and all(verdict.words[n] == "stopped" for n in applicable)
    assert not verdict.broken and not (set(verdict.words.values()) & CLIENT_BREAKS)
    assert "no client judged" in window.views.clients_follower.headline
    judged(window)  # the Clients view on show, filled
    pane = window.views.clients
    pane.table.selectRow(0)  # its detail compares nothing: a cut stream judges no client
    assert pane.table.currentRow() == 0 and pane.calls.rowCount() == 0
    assert all(not lane.clients.isVisible() for lane in window.lanes.lanes)
