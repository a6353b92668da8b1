"""The streaming-dispatch tool loop: run each tool the moment its call closes, round after round.

A :class:`ToolLoop` is a :class:`~inspector.net.runner.SessionRunner` whose round hooks run
tools (:mod:`inspector.net.dispatch`: calls are dispatched as they close, results recorded as
they land) and build the next round's request. A round that ends with a tool-calls finish and
at least one result builds the continuation
(:func:`inspector.core.analysis.continuation.build_continuation`) and the next round streams;
any other finish, ``max_steps`` rounds, :meth:`ToolLoop.stop` or an error ends the loop (a
``loop_end`` event says which).

Decisions and invariants:
- The retry rule applies per round (:mod:`inspector.net.policy`); while a round may still be
  retried its invalid calls are held, and when it is retried the replaced attempt's running
  tools are cancelled and its results are not fed back.
- Each round begins with a ``round`` event in its first attempt; the round waits for every
  tool it started before the next request (state ``running_tools``), so events of an attempt
  are all recorded before the next attempt's request, which is what lets a capture place them
  by attempt.
- Every dispatch is answered by exactly one ``tool_result`` (ok, error or cancelled), and every
  tool task has finished when :meth:`run` returns: :meth:`stop` cancels the loop and every
  running tool, and the capture ends with a ``cancelled`` ``loop_end``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx

from inspector.core.analysis.continuation import (
    CANCELLED,
    AssistantCall,
    ToolResult,
    build_continuation,
)
from inspector.core.analysis.rounds import LOOP_END, ROUND, ToolEvent
from inspector.core.analysis.session import Analysis, AttemptView
from inspector.core.requests.scenarios import Profile, RequestSpec, Scenario

from .dispatch import ToolDispatcher
from .policy import LoopSettings
from .runner import SessionRunner, StateCallback
from .runstate import RunState
from .session import headless_request
from .tools import ToolBox


class ToolLoop(SessionRunner):
    """A multi-round tool-loop session: one capture, one Analysis, any number of rounds."""

    task_name = "toolcall-inspector tool loop"

    def __init__(
        self,
        spec: RequestSpec,
        *,
        dialect: str,
        tools: ToolBox,
        settings: LoopSettings | None = None,
        max_steps: int = 10,
        sequential: bool = False,
        capture_path: str | Path | None = None,
        key: str | None = None,
        analysis: Analysis | None = None,
        on_update: Callable[[], None] | None = None,
        on_event: Callable[[ToolEvent], None] | None = None,
        on_state: StateCallback | None = None,
        client: httpx.AsyncClient | None = None,
        clock: Callable[[], float] = time.monotonic,
        meta: Mapping[str, Any] | None = None,
    ) -> None:
        if max_steps < 1:
            raise ValueError("max_steps must be at least 1")
        self.tools, self.max_steps, self.sequential = tools, max_steps, sequential
        loop_meta = {"mode": self.mode, "max_steps": max_steps, "tools": tools.names(),
                     "disabled": [n for n, t in tools.tools.items() if not t.enabled],
                     "slow": {n: t.slow for n, t in tools.tools.items() if t.slow}}  # fmt: skip
        super().__init__(
            spec, dialect=dialect, settings=settings or LoopSettings(), capture_path=capture_path,
            key=key, analysis=analysis, meta={"loop": loop_meta, **(meta or {})},
            on_update=on_update,
            on_state=on_state, client=client, clock=clock,
        )  # fmt: skip
        self.dispatcher = ToolDispatcher(self, tools, sequential=sequential, on_event=on_event)
        self._finished_by: str | None = None

    # -- public ----------------------------------------------------------------------------

    @property
    def mode(self) -> str:
        """``streaming`` (dispatch when a call closes) or ``sequential`` (after the stream)."""
        return "sequential" if self.sequential else "streaming"

    @property
    def tasks(self) -> set[asyncio.Task[None]]:
        """Tool tasks still running (strong references)."""
        return self.dispatcher.tasks

    @property
    def end_reason(self) -> str | None:
        """finish | max_steps | cancelled | error, once the loop has stopped."""
        if self.state is RunState.FAILED:
            return "error"
        if self.state is RunState.CANCELLED:
            return "cancelled"
        return self._finished_by

    @property
    def final_text(self) -> str:
        """The text of the last attempt (the answer, once the loop ended on a text finish)."""
        return self.analysis.attempts[-1].state.full_text if self.analysis.attempts else ""

    def summary_lines(self) -> list[str]:
        """How the loop ended, one line each (a LiveSession gives one line per attempt)."""
        rounds = len(self.analysis.rounds) if self.analysis.attempts else 0
        lines = [f"{rounds} round(s), ended by {self.end_reason or self.state}"]
        if self.final_text:
            lines.append(f"final text: {self.final_text[:80]!r}")
        return lines

    def stop(self) -> None:
        """Stop the loop and cancel running tools (before or while it runs): :meth:`cancel`."""
        self.cancel()

    # -- round hooks -----------------------------------------------------------------------

    def attempt_started(self, view: AttemptView) -> None:
        self.dispatcher.begin(view, can_retry=self.settings.may_retry(self.place.attempt))
        if self.place.attempt == 1:
            self.dispatcher.event(ROUND, {"round": self.place.round, "mode": self.mode})

    def chunk_fed(self, view: AttemptView, data: bytes, t: float) -> None:
        self.dispatcher.chunk(t)

    def stream_ended(self, view: AttemptView) -> None:
        self.dispatcher.stream_ended()

    async def attempt_replaced(self, view: AttemptView) -> None:
        await self.dispatcher.cancel_all()  # the retried response's results are never fed back

    def attempt_accepted(self, view: AttemptView) -> Sequence[asyncio.Future[Any]]:
        return self.dispatcher.accept()

    def next_request(self, view: AttemptView, spec: RequestSpec) -> RequestSpec | None:
        turn = self.analysis.assistant_turn(view)
        results = {r.call_id: r for r in view.results}
        provider = view.state.provider  # the stream's own provider judges its finish
        finish = view.state.finish_reason
        if provider is None or not provider.is_tool_finish(finish, len(turn.calls)) or not results:
            self._finished_by = "finish"
            return None
        if self.round == self.max_steps:
            self._finished_by = "max_steps"
            return None
        answers = [results.get(c.id) or _unanswered(c) for c in turn.calls]
        return replace(spec, body=build_continuation(provider, spec.body, turn, answers))

    async def finishing(self) -> None:
        await self.dispatcher.cancel_all()
        with contextlib.suppress(OSError):
            self.dispatcher.event(LOOP_END, {"reason": self.end_reason, "rounds": self.round,
                                             "error": str(self.error) if self.error else None,
                                             "final_text": self.final_text})  # fmt: skip


def _unanswered(call: AssistantCall) -> ToolResult:
    """What the next round is told for a call no result answered."""
    return ToolResult(call.id, call.name, "no result for this call", is_error=True,
                      error_kind=CANCELLED, slot=call.slot)  # fmt: skip


async def record_loop(
    profile: Profile,
    scenario: Scenario,
    out: str | Path | None,
    settings: LoopSettings,
    *,
    tools: ToolBox,
    max_steps: int = 10,
    sequential: bool = False,
    model: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> ToolLoop:
    """Run ``scenario`` as a tool loop against ``profile`` headlessly (``record --loop``).

    The scenario's tools are offered, minus those disabled in ``tools``. A demo profile starts
    the embedded demo provider for the session. Raises MissingKey before anything is sent;
    every later problem is in ``loop.error``.
    """
    scenario = replace(scenario, tools=tools.offered(scenario.tools))
    async with headless_request(profile, scenario, model=model, headers=headers) as ready:
        spec, key, profile, meta = ready
        loop = ToolLoop(spec, dialect=profile.dialect, tools=tools, settings=settings,
                        max_steps=max_steps, sequential=sequential, capture_path=out, key=key,
                        meta=meta)  # fmt: skip
        await loop.run()
    return loop
