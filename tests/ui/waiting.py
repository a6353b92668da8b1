"""Waiting in the window's tests: for a condition, never for a time.

A test that sleeps "one more flush tick" after a session's state turned final races the
window: the state turns final inside the session's run, and the window's last flush (the
lanes, the attempts, the clock stopped) comes after the run returns, which on a loaded machine
can be much later than 50 ms. :func:`live_ended` is that last flush done; :func:`until` polls a
condition with a bound that only a hang reaches.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from inspector.ui.shell.mainwindow import MainWindow

HANG = 60.0
"""Seconds a condition may take before the test fails as hung (a bound, not a speed)."""


async def until(predicate: Callable[[], object], timeout: float = HANG) -> None:
    """Poll ``predicate`` on the loop until it holds; ``TimeoutError`` after ``timeout``."""
    async with asyncio.timeout(timeout):
        while not predicate():
            await asyncio.sleep(0.02)


def live_ended(window: MainWindow) -> bool:
    """Has the window's live session ended and the window shown its end? Its state is final
    and the document no longer streams: ``stop_live_view`` made its last flush and stopped the
    clock (the clock runs from the session's start until then)."""
    session = window.live.session
    return session is not None and session.state.final and not window.doc.streaming


WAIT_MS = int(HANG * 1000)
""":data:`HANG` for ``qtbot.waitUntil`` (milliseconds): its default, 5 s, is a speed."""


def run_live(window: MainWindow, qloop: object, start: Callable[[], object] | None = None) -> None:
    """Start a live session (``window.start_live()`` unless ``start`` is given) and return
    once the window has shown its end (:func:`live_ended`), never after a fixed sleep."""

    async def scenario() -> None:
        (start or window.start_live)()
        await until(lambda: live_ended(window))

    qloop.run_until_complete(scenario())  # type: ignore[attr-defined]
