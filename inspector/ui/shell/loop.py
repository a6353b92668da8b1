"""The window's event loop: qasync's, except that a task never steps inside another task.

Why: Qt delivers qasync's timer events (every ``call_soon`` / ``call_later`` handle is one)
from whatever Qt event loop is spinning. When code running in an asyncio task spins a nested
one (``QApplication.processEvents()``, a modal ``exec()``, a ``QMenu.exec()``, a file dialog,
a test driver or a plug-in doing either), qasync runs the handles that come due right there,
inside the running task's step. A handle that steps another task then fails with
``RuntimeError: Cannot enter into task … while another task … is being executed`` and that
task is never woken again: a live session stopped mid-stream ("streaming · round 1 ·
attempt 1" for ever, or "retrying", or "connecting"), with the window's loop still running
and Stop / Quit waiting on a task that would never end. That was the stall of the scripted
walkthroughs (their screenshot step called ``processEvents()`` from a coroutine).

Invariants (:class:`OneTaskAtATime`, installed by :func:`new_loop`):
- A handle that would step a task while a task is being executed is held, not run, and run
  in the order it came as soon as the running handle returns: a task is never lost, only
  late by as long as the nested loop lasts.
- Every other handle (a transport's reads and writes, a future's callbacks, a plain
  ``call_soon``) runs when it is due, in a nested loop too, as qasync runs it.
- A cancelled handle never runs; after :meth:`OneTaskAtATime.stop` (the loop closing) no
  handle runs.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import qasync
from PySide6.QtCore import QObject, QTimerEvent
from PySide6.QtWidgets import QApplication

_log = logging.getLogger(__name__)


def _steps_a_task(handle: asyncio.Handle) -> bool:
    """Does this handle step (or wake) a task? (A task's ``__step`` wrapper and its
    ``__wakeup`` method both carry the task as ``__self__``.)"""
    callback = getattr(handle, "_callback", None)
    return isinstance(getattr(callback, "__self__", None), asyncio.Task)


class OneTaskAtATime(QObject):
    """qasync's timer (one Qt timer per handle, the handle run when it fires), holding back
    task steps that come due inside another task's step (see the module docstring)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__()
        self._loop = loop
        self._handles: dict[int, asyncio.Handle] = {}
        self._held: list[asyncio.Handle] = []
        """Task steps that came due inside another task's step, oldest first."""
        self._stopped = False
        self._debug = False

    def add_callback(self, handle: asyncio.Handle, delay: float = 0) -> asyncio.Handle:
        """Run ``handle`` once ``delay`` seconds have passed (qasync's ``call_later``)."""
        self._handles[self.startTimer(int(max(0.0, delay) * 1000))] = handle
        return handle

    def timerEvent(self, event: QTimerEvent) -> None:
        timer = event.timerId()
        self.killTimer(timer)  # one shot, killed first: a nested loop never sees it again
        handle = self._handles.pop(timer, None)
        if handle is None or self._stopped or handle.cancelled():
            return
        if self._inside_a_task() and _steps_a_task(handle):
            self._held.append(handle)
            return
        self._run(handle)
        while self._held and not self._inside_a_task():
            held = self._held.pop(0)
            if not held.cancelled() and not self._stopped:
                self._run(held)

    def _inside_a_task(self) -> bool:
        return asyncio.current_task(self._loop) is not None

    def _run(self, handle: asyncio.Handle) -> None:
        if not self._debug:
            handle._run()
            return
        loop: Any = self._loop  # asyncio's debug mode: say which callbacks hold the loop
        loop._current_handle = handle
        began = time.monotonic()
        try:
            handle._run()
        finally:
            loop._current_handle = None
        took = time.monotonic() - began
        if took >= loop.slow_callback_duration:
            _log.warning("Executing %s took %.3f seconds", handle, took)

    def stop(self) -> None:
        """The loop is closing: no handle runs any more."""
        self._stopped = True
        for timer in list(self._handles):
            self.killTimer(timer)
        self._handles.clear()
        self._held.clear()

    def set_debug(self, enabled: bool) -> None:
        self._debug = enabled


def new_loop() -> qasync.QEventLoop:
    """The qasync loop the window (and the UI tests) run on, with :class:`OneTaskAtATime` as
    its timer."""
    loop = qasync.QEventLoop(QApplication.instance())
    loop._timer.stop()  # qasync's own, still empty
    loop._timer = OneTaskAtATime(loop)
    return loop
