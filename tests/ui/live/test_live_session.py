"""A live session in the real window: demo provider on loopback, qasync loop, clean stop.

One qasync loop serves the whole test session (like the app: Qt and asyncio as one loop).
"""

from __future__ import annotations

import asyncio
import gc
from dataclasses import replace
from typing import Any

import pytest
import qasync
from PySide6.QtCore import Qt

from inspector.core.capture.reader import load
from inspector.core.providers import REGISTRY
from inspector.core.reports import words
from inspector.ui.live.widgets import ABOUT_ROLE
from inspector.ui.shell.mainwindow import MainWindow
from ui.waiting import live_ended, until


def test_live_retry_shows_two_attempts_with_their_attempt_reasons(
    window: MainWindow, qloop: qasync.QEventLoop
) -> None:
    window.live_bar.select("demo", "demo-truncated-then-valid", "weather")

    async def scenario() -> None:
        window.start_live()
        await until(lambda: live_ended(window))

    qloop.run_until_complete(scenario())
    session = window.live.session
    assert session is not None and session.state == "done", session.error
    records = [(r.outcome, r.reason, r.recovery_action) for r in session.records]
    assert records[0] == ("retried", "stream_invalid_tool_call", "retry_streaming")
    assert records[1][0] == "accepted"
    tree = window.attempts
    assert tree.topLevelItemCount() == 2
    assert "retried · stream_invalid_tool_call" in tree.topLevelItem(0).text(1)
    assert tree.topLevelItem(1).text(1).startswith(words.label("accepted"))
    assert window.lanes.lanes and "✔ valid" in window.lanes.lanes[0].status.text()
    capture = load(session.capture_path)  # type: ignore[arg-type]
    assert [a.number for a in capture.attempts] == [1, 2]
    assert capture.attempts[1].reason == "stream_invalid_tool_call"
    assert not window.live.running and not window.doc._timer.isActive()


def test_stop_mid_stream_cancels_cleanly(window: MainWindow, qloop: qasync.QEventLoop) -> None:
    window.live_bar.select("demo", "fault-stall", "weather")

    async def scenario() -> None:
        window.start_live()
        await until(
            lambda: (
                window.live.session is not None
                and window.live.session.analysis.attempts
                and window.live.session.analysis.attempts[-1].state.events
            )
        )
        assert window.live.running and window.live_bar.stop.isEnabled()
        assert not window.bar.play.isEnabled()  # a streaming session has no replay
        window.live_bar.stop.click()
        await until(lambda: live_ended(window))

    qloop.run_until_complete(scenario())
    session = window.live.session
    assert session is not None
    capture = load(session.capture_path)  # type: ignore[arg-type]
    assert capture.attempts[0].end is not None
    assert capture.attempts[0].end["reason"] == "cancelled"
    assert capture.attempts[0].body  # every byte that arrived is kept
    assert window.live_bar.start.isEnabled() and not window.live_bar.stop.isEnabled()
    assert not window.doc._timer.isActive()
    assert window.bar.play.isEnabled()  # the session became its capture: replayable


def test_missing_key_is_a_message_not_a_crash(
    window: MainWindow, qloop: qasync.QEventLoop, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setattr("inspector.net.session.resolve_key", lambda _p: None)

    messages: list[str] = []
    window.live.status.connect(messages.append)
    window.live_bar.select("anthropic", "claude-3-5-haiku-latest", "weather")

    async def scenario() -> None:
        window.start_live()
        await until(lambda: bool(messages))

    qloop.run_until_complete(scenario())
    assert "ANTHROPIC_API_KEY" in messages[0]
    assert window.live.session is None
    box = window.live_error_box
    assert box is not None and "ANTHROPIC_API_KEY" in box.text()  # shown, and not blocking


def test_tool_loop_shows_rounds_results_and_timeline(
    window: MainWindow, qloop: qasync.QEventLoop
) -> None:
    window.live_bar.select("demo", "demo-parallel", "tool-loop")
    window.live_bar.loop.setChecked(True)

    async def scenario() -> None:
        window.start_live()
        await until(lambda: live_ended(window))

    qloop.run_until_complete(scenario())
    loop = window.live.session
    assert loop is not None and loop.state == "done", loop.error
    tree = window.attempts
    assert [tree.topLevelItem(i).text(0) for i in range(tree.topLevelItemCount())] == [
        "Round 1",
        "Round 2",
    ]
    round1 = tree.topLevelItem(0).child(0)
    calls = [round1.child(i) for i in range(round1.childCount())]
    assert len(calls) == 3 and all(c.child(0).text(1).startswith("✔ ok") for c in calls)
    window._attempt_changed(1)  # show round 1's lanes
    assert len(window.lanes.lanes) == 3
    for lane in window.lanes.lanes:
        assert lane.result_line.isVisible() or not lane.result_line.isHidden()
        line = lane.result_line.text()
        assert "✔ result" in line and "dispatched at chunk" in line
    window.tabs.setCurrentIndex(window.tabs.count() - 1)
    bands = window.timeline.bands
    assert [b.title for b in bands] == ["round 1 · attempt 1", "round 2 · attempt 1"]
    assert (
        sum(
            1
            for bar in bands[0].bars
            if bar.text.startswith("✔ get_") or bar.text.startswith("✔ search")
        )
        == 3
    )  # one tool span per call
    assert window.doc.replayer is not None  # the recorded loop is now replayable


def test_running_while_tools_run_and_the_toolbar_says_round_and_attempt(
    window: MainWindow, qloop: qasync.QEventLoop
) -> None:
    window.live_bar.select("demo", "demo-clean", "weather")
    window.live_bar.loop.setChecked(True)
    slow = ((), (("get_weather", 1.0),))  # the tool outlives its round's stream
    window.live.timeouts = replace(window.live.timeouts, loop_options=slow)
    states: list[str] = []
    window.live.state_changed.connect(states.append)

    async def scenario() -> None:
        window.start_live()
        await until(
            lambda: window.live.session is not None and window.live.session.state == "running_tools"
        )
        assert window.live.running and window.live_bar.stop.isEnabled()
        assert window.live_bar.state_label.text().strip() == "running tools · round 1 · attempt 1"
        await until(lambda: live_ended(window))

    qloop.run_until_complete(scenario())
    loop = window.live.session
    assert loop is not None and loop.state == "done", loop.error
    assert not window.live.running and window.live_bar.start.isEnabled()
    assert states == [
        "connecting · round 1 · attempt 1",
        "streaming · round 1 · attempt 1",
        "running tools · round 1 · attempt 1",
        "connecting · round 2 · attempt 1",
        "streaming · round 2 · attempt 1",
        "done · round 2 · attempt 1",
    ]
    assert window.live_bar.state_label.text().strip() == "done · round 2 · attempt 1"


def test_scenario_dialog_edits_tools_timeouts_and_loop_options(window: MainWindow) -> None:
    from inspector.ui.live.scenario import ScenarioDialog, Timeouts

    scenario = window.live_bar.current_scenario()
    dialog = ScenarioDialog(scenario, Timeouts(), window)
    dialog.tools.setPlainText("[not json")
    dialog._accept()
    assert dialog.result_scenario is None and "not valid JSON" in dialog.problem.text()
    dialog.tools.setPlainText('[{"name": "only_one", "input_schema": {"type": "object"}}]')
    dialog.read_s.setValue(7)
    dialog.disabled.setText("fail")
    dialog.slow.setText("get_weather:1.5")
    dialog._accept()
    assert dialog.result_scenario is not None
    assert dialog.result_scenario.tools[0]["name"] == "only_one"
    options = (("fail",), (("get_weather", 1.5),))
    assert dialog.result_timeouts == Timeouts(10.0, 7.0, 120.0, options)
    dialog.slow.setText("oops")
    dialog._accept()
    assert "name:seconds" in dialog.problem.text()


def test_default_start_and_a_double_start_run_one_provider_and_one_session(
    window: MainWindow, qloop: qasync.QEventLoop, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from inspector.net.demo import DemoProvider

    started: list[DemoProvider] = []
    real_start = DemoProvider.start

    async def counting_start(self: DemoProvider) -> str:
        started.append(self)
        return await real_start(self)

    monkeypatch.setattr(DemoProvider, "start", counting_start)
    window.live_bar.select("demo", "demo-clean", "weather")

    async def scenario() -> None:
        window.start_default_live()  # lists the models and starts a session at once
        window.start_live()  # and Start again before the first one is prepared
        # the session shown ended, and so did the start it replaced (its claim discarded)
        await until(lambda: live_ended(window) and not window.live._tasks)

    qloop.run_until_complete(scenario())
    assert len(started) == 1, "one demo provider, however many callers asked at once"
    assert not window.live.running and window.bar.play.isEnabled()
    files = sorted((tmp_path / "captures").glob("*.jsonl"))
    assert len(files) == 1 and files[0].stat().st_size > 0  # one session, one capture


def test_a_failed_request_says_only_what_failed_and_the_raw_pane_starts_empty(
    window: MainWindow, qloop: qasync.QEventLoop, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []
    monkeypatch.setattr(
        "inspector.ui.base.dialogs.choose_dialect", lambda *a: asked.append("dialect") or None
    )
    window.live_bar.select("demo", "demo-clean", "weather")

    async def run_to_end() -> None:
        before = window.live.session
        window.start_live()
        await until(lambda: window.live.session is not before and live_ended(window))

    qloop.run_until_complete(run_to_end())
    window.views.select(0)  # an event of this session in the raw pane's detail
    assert window.raw.detail.toPlainText().startswith("#0")
    window.live_bar.select("demo", "fault-401", "weather")
    qloop.run_until_complete(run_to_end())
    session = window.live.session
    assert session is not None and session.state == "failed"
    assert asked == [], "a failed request is no dialect question"
    box = window.live_error_box
    assert box is not None and "401" in box.text()
    error = str(session.error)
    said = box.text() + "\n" + box.informativeText() + "\n" + box.detailedText()
    assert said.count(error) == 1, said  # the error once, not again in the attempt's line
    # the lanes say the request failed, not that the model answered without tools
    assert window.lanes._empty.text().startswith("The request failed (HTTP 401)")
    assert window.raw.detail.toPlainText() == ""  # nothing of the last session
    view = window.doc.view
    assert window.raw.model.rowCount() == (len(view.state.events) if view else 0)
    assert window.statusBar().currentMessage().startswith("failed: attempt 1: HTTP 401")


def test_stop_on_a_stalled_stream_then_quit_leaves_no_task_pending(
    window: MainWindow, qloop: qasync.QEventLoop, caplog: pytest.LogCaptureFixture
) -> None:
    window.live_bar.select("demo", "fault-stall", "weather")

    async def scenario() -> None:
        window.start_live()
        await until(lambda: window.live.running and window.doc.view is not None)
        window.live_bar.stop.click()
        await until(lambda: not window.live.running)
        window.close()  # File ▸ Quit closes the window; the app then awaits aclose()
        await window.aclose()

    qloop.run_until_complete(scenario())
    pending = [t for t in asyncio.all_tasks(qloop) if not t.done()]
    assert pending == []
    gc.collect()
    assert "Task was destroyed" not in caplog.text
    status = window.statusBar().currentMessage()
    assert status.startswith("cancelled: stopped at round 1 · attempt 1 (")
    assert "capture: " in status


def test_enter_in_the_model_box_runs_the_model_chosen_from_the_list(
    window: MainWindow, qloop: qasync.QEventLoop, qtbot: Any
) -> None:
    lb = window.live_bar
    lb.select("demo", "", "weather")

    async def listed() -> None:
        window.live.list_demo_models()
        await until(lambda: lb.model.count() > 10)

    qloop.run_until_complete(listed())
    i = lb.model.findText("demo-null-id")
    about = lb.model.itemData(i, ABOUT_ROLE)
    assert about and "null" in about  # each demo model says what it does
    lb.model.setCurrentIndex(i)  # chosen from the list
    assert lb.about.text().strip() == about  # and the line beside says it too
    qtbot.keyClick(lb.model.edit, Qt.Key.Key_Return)

    async def ran() -> None:
        await until(lambda: live_ended(window))

    qloop.run_until_complete(ran())
    assert [r["model"] for r in window.live.demo.requests if r.get("model")] == ["demo-null-id"]
    again = MainWindow()  # the choices are remembered for the next window
    assert again.live_bar.profile.currentData() == "demo"
    assert again.live_bar.model.currentText() == "demo-null-id"
    assert again.live_bar.scenario.currentData() == "weather"
    again.close()


def test_edit_opens_the_scenario_without_blocking_and_the_profile_says_where_it_runs(
    window: MainWindow,
) -> None:
    lb = window.live_bar
    lb.edit.click()  # a modal exec() here would stall the loop a session runs on
    dialog = window.scenario_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.read_s.setValue(7)
    dialog._accept()
    assert window.live.timeouts.read == 7 and not dialog.isVisible()
    lb.profile.setCurrentIndex(lb.profile.findData("openai"))
    assert [lb.model.itemText(i) for i in range(lb.model.count())] == ["gpt-4o-mini"]
    assert lb.about.text().strip() == (
        "openai-chat at https://api.openai.com/v1 · key from $OPENAI_API_KEY"
    )
    lb.loop.setChecked(True)
    assert lb.options.text() == "⚙ loop · retry" and lb.sequential.isEnabled()


def test_a_remembered_fault_scenario_is_shown_but_not_run_at_launch(
    window: MainWindow, qloop: qasync.QEventLoop, qtbot: Any
) -> None:
    window.live_bar.select("demo", "fault-401", "weather")
    window.live_bar.remember(window.settings)  # quit with a fault scenario chosen
    again = MainWindow()
    qtbot.addWidget(again)
    try:
        again.start_default_live()  # what `toolcall-inspector open` does at launch
        assert again.live_bar.model.currentText() == "fault-401"  # the choice is kept
        assert again.live.session is None and not again.live._current  # but nothing runs
        assert again.live_error_box is None
        assert "press Run" in again.statusBar().currentMessage()
        window.live_bar.select("demo", "demo-null-id", "weather")
        window.live_bar.remember(window.settings)
        third = MainWindow()
        qtbot.addWidget(third)
        third.live.demo_chunk_delay = 0.002
        third.start_default_live()  # a quirk scenario runs at launch, as remembered

        async def ran() -> None:
            await until(lambda: live_ended(third))

        qloop.run_until_complete(ran())
        runs = [r["model"] for r in third.live.demo.requests if r.get("model")]
        assert runs == ["demo-null-id"]
        qloop.run_until_complete(third.aclose())
    finally:
        qloop.run_until_complete(again.aclose())


def test_a_demo_model_for_another_dialect_says_it_plays_the_conforming_stream(
    window: MainWindow, qloop: qasync.QEventLoop
) -> None:
    lb = window.live_bar
    lb.select("demo-anthropic", "demo-glm-empty-string", "weather")

    async def listed() -> None:
        window.live.list_demo_models()
        await until(lambda: lb.model.count() > 10)

    qloop.run_until_complete(listed())
    said = "demo-glm-empty-string: its quirks are openai-chat only — on anthropic it plays"
    about = lb.about.text().strip()  # before the run, beside the model (elided: in short)
    assert about.startswith("⚠ openai-chat only (on anthropic: conforming) · ") and said in about
    lb.start.click()

    async def ran() -> None:
        await until(lambda: live_ended(window))

    qloop.run_until_complete(ran())
    status = window.statusBar().currentMessage()
    assert status.startswith(
        "empty_string_continuation_id/_name not shown on anthropic (openai-chat only) · done: "
    )
    lb.profile.setCurrentIndex(lb.profile.findData("demo"))  # on its own dialect: no note
    assert "only" not in lb.about.text() and "glm" in lb.about.text().lower()


def test_a_tool_loop_is_judged_against_the_tools_the_user_loaded(
    window: MainWindow, qloop: qasync.QEventLoop
) -> None:
    """As a plain live session is: the window hands both the same Analysis."""
    from inspector.core.verdicts.tools import ToolRegistry

    mine = ToolRegistry.from_definitions(
        [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}], REGISTRY
    )
    window.doc.set_tools(mine)
    window.live_bar.select("demo", "demo-parallel", "tool-loop")
    window.live_bar.loop.setChecked(True)

    async def scenario() -> None:
        window.start_live()
        await until(lambda: live_ended(window))

    qloop.run_until_complete(scenario())
    loop = window.live.session
    assert loop is not None and type(loop).__name__ == "ToolLoop"
    assert loop.analysis.user_tools is mine
