"""A nested Qt event loop inside an asyncio task (``processEvents()``, a modal ``exec()``) never
stalls another task: the window's loop (``ui/shell/loop.py``) holds a task's step until the
running one returns, where qasync's ran it inside and lost the task for good ("Cannot enter
into task … while another task … is being executed"): a live run stopped mid-stream."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from inspector.ui.shell.mainwindow import MainWindow


@pytest.fixture
def errors(qloop: qasync.QEventLoop) -> Iterator[list[str]]:
    """What reached the loop's exception handler during the test."""
    said: list[str] = []
    qloop.set_exception_handler(lambda _loop, context: said.append(str(context.get("exception"))))
    yield said
    qloop.set_exception_handler(None)


def test_a_task_woken_inside_another_tasks_nested_loop_still_runs(
    qloop: qasync.QEventLoop, errors: list[str]
) -> None:
    app = QApplication.instance()
    assert app is not None
    woken = asyncio.Event()
    steps: list[str] = []

    async def waiter() -> None:
        await woken.wait()
        steps.append("waiter woke")

    async def spinner() -> None:
        woken.set()  # the waiter's wake-up is now due …
        for _ in range(20):  # … while this task spins a nested Qt loop
            app.processEvents()
        steps.append("spinner returned")

    async def scenario() -> None:
        waiting = asyncio.ensure_future(waiter())
        await asyncio.sleep(0)  # the waiter is parked on the event
        await spinner()
        await asyncio.wait_for(waiting, 5)

    qloop.run_until_complete(scenario())
    assert errors == []
    assert steps == ["spinner returned", "waiter woke"]  # held, then run: not inside


def test_other_callbacks_still_run_inside_a_nested_loop(
    qloop: qasync.QEventLoop, errors: list[str]
) -> None:
    app = QApplication.instance()
    assert app is not None
    ran: list[str] = []

    async def scenario() -> None:
        qloop.call_soon(ran.append, "plain callback")
        for _ in range(20):
            app.processEvents()
        ran.append("task went on")

    qloop.run_until_complete(scenario())
    assert errors == []
    assert ran == ["plain callback", "task went on"]  # as qasync runs it: when it is due


def test_a_live_run_ends_while_a_script_spins_the_loop_from_a_coroutine(
    qtbot: Any,
    qloop: qasync.QEventLoop,
    tmp_path: Any,
    monkeypatch: pytest.MonkeyPatch,
    errors: list[str],
) -> None:
    """The walkthrough's stall: a driver coroutine calling processEvents() (to take a
    screenshot) while the default demo run streams from the embedded provider."""
    QSettings("toolcall-inspector", "toolcall-inspector").clear()
    monkeypatch.setattr("inspector.ui.live.live.captures_dir", lambda: tmp_path)
    window = MainWindow()
    window.persist_layout = False
    window.live.demo_chunk_delay = 0.002
    qtbot.addWidget(window)
    window.show()
    app = QApplication.instance()
    assert app is not None

    async def scenario() -> None:
        window.start_default_live()
        async with asyncio.timeout(30):
            while not (window.live.session is not None and window.live.running):
                await asyncio.sleep(0.01)
            while window.live.running:
                app.processEvents()  # what the screenshot step did
                await asyncio.sleep(0.005)

    try:
        qloop.run_until_complete(scenario())
        session = window.live.session
        assert session is not None
        assert [r.outcome for r in session.records] == ["retried", "accepted"]
        assert errors == []
    finally:
        qloop.run_until_complete(window.aclose())
