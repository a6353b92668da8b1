"""One coroutine run as a task exactly once, cancellable from outside.

Invariant: cancelling through :meth:`RunOnce.cancel` makes :meth:`RunOnce.run` return
normally (the owner's state says how it ended); only the cancellation of ``run``'s own caller
propagates. The task is strongly referenced until it finishes, and always awaited.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any


class RunOnce:
    """The task behind a session runner (a live session, a tool loop)."""

    def __init__(self, name: str) -> None:
        self.name = name
        """Task name (shows in asyncio debug output)."""
        self.task: asyncio.Task[None] | None = None
        """The task, once started."""

    async def run(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run ``coro`` to its end; a second call is a programming error."""
        if self.task is not None:
            coro.close()
            raise RuntimeError(f"{self.name} runs only once")
        self.task = asyncio.create_task(coro, name=self.name)
        try:
            await self.task
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise  # our caller was cancelled: honour it (the inner task has finished)

    def cancel(self) -> None:
        """Cancel the task if it is running (nothing happens before start or after the end)."""
        if self.task is not None and not self.task.done():
            self.task.cancel()
