"""A tool loop's tool traffic: judge each call the moment it closes, run it, record the events.

After each chunk, calls the accumulator has CLOSED since the last look (next index, block stop,
``output_item.done``, the finish) are judged under the validation mode and dispatched at once,
each as its own asyncio task, while the stream keeps flowing. When a handler resolves, a
``tool_result`` event is recorded in the capture and added to the Analysis at once (record,
then feed), so views and replay see it in arrival order.

Invariants:
- Tool errors never end the loop: an unknown or disabled tool, arguments that are not a JSON
  object, and a raising handler each become a ``tool_result`` with ``is_error`` (no handler
  runs for the first three). An invalid call gets no dispatch: while the round can still be
  retried it is held, else it gets an ``invalid_arguments`` error result at once.
- Nameless calls keep the accumulator's dropped-call handling: they are never dispatched; nor
  are calls written in the text (a client hands them over as text).
- ``sequential=True`` holds every dispatch until the stream has ended (for comparison).
- Every dispatch is answered by exactly one ``tool_result`` (ok, error or cancelled). Tasks are
  held in :attr:`ToolDispatcher.tasks` (strong references); :meth:`ToolDispatcher.cancel_all`
  cancels them and answers any dispatch a task never got to.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from inspector.core.analysis.continuation import (
    CANCELLED,
    DISABLED,
    INVALID_ARGUMENTS,
    RAISED,
    UNKNOWN_TOOL,
    StreamPosition,
    ToolResult,
    parse_arguments,
)  # fmt: skip
from inspector.core.analysis.rounds import TOOL_DISPATCH, TOOL_RESULT, ToolEvent
from inspector.core.analysis.session import AttemptView, CallVerdict
from inspector.core.calls.textcalls import from_text

from .runner import SessionRunner
from .tools import ToolBox, ToolDisabled, UnknownTool


@dataclass
class _Live:
    """One attempt being streamed: where it is, and its tool traffic."""

    view: AttemptView
    t0: float
    can_retry: bool
    chunks: int = 0
    end_t: float = 0.0
    """Seconds from ``t0`` to the end of the body, once it ended."""
    handled: set[int] = field(default_factory=set)
    held: list[CallVerdict] = field(default_factory=list)
    """Invalid calls waiting for the retry decision; valid ones waiting (sequential)."""
    tasks: list[asyncio.Task[None]] = field(default_factory=list)


class ToolDispatcher:
    """The tools of one tool loop, run for the attempts of ``runner`` as their calls close."""

    def __init__(self, runner: SessionRunner, tools: ToolBox, *, sequential: bool,
                 on_event: Callable[[ToolEvent], None] | None = None) -> None:  # fmt: skip
        self.runner, self.tools, self.sequential = runner, tools, sequential
        self.on_event = on_event
        self.tasks: set[asyncio.Task[None]] = set()
        """Tool tasks still running (strong references)."""
        self._unanswered: dict[tuple[int, str], tuple[_Live, str, int, StreamPosition]] = {}
        self._live: _Live | None = None

    # -- the attempt's life --------------------------------------------------------------

    def begin(self, view: AttemptView, *, can_retry: bool) -> None:
        """``view`` starts streaming; ``can_retry``: a retry may still replace its response."""
        self._live = _Live(view, self.runner.clock(), can_retry)

    def chunk(self, t: float) -> None:
        """A chunk was fed: dispatch what it closed."""
        if self._live is not None:
            self._live.chunks += 1
            self._scan(self._live, t)

    def stream_ended(self) -> None:
        """The body ended: dispatch what the end closed."""
        if self._live is not None:
            live = self._live
            live.end_t = self.runner.clock() - live.t0
            self._scan(live, live.end_t)

    def accept(self) -> list[asyncio.Task[None]]:
        """The attempt is the round's final one: answer what was held; the tasks it started."""
        live = self._live
        if live is None:
            return []
        held, live.held = live.held, []
        for verdict in held:
            self._handle(live, verdict, live.end_t, final=True)
        return list(live.tasks)

    async def cancel_all(self) -> None:
        """Cancel every running tool; every dispatch gets its ``cancelled`` result."""
        tasks = list(self.tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        # a task cancelled before it started never ran its body: answer its dispatch here
        for (_, call_id), (live, name, slot, pos) in list(self._unanswered.items()):
            cancelled = ToolResult(call_id, name, "cancelled", is_error=True,
                                   error_kind=CANCELLED, slot=slot, dispatched=pos)  # fmt: skip
            self._result(live, cancelled)

    # -- dispatch --------------------------------------------------------------------------

    def _scan(self, live: _Live, t: float) -> None:
        """Judge and dispatch every call that closed since the last look."""
        acc = live.view.state.acc
        for call in live.view.state.calls:
            if call.open or call.slot in live.handled or from_text(call):
                continue  # a call written in the text is text to every client: not run
            live.handled.add(call.slot)
            verdict = self.runner.analysis.judge_call(live.view, call)
            if verdict.orphan or acc is None or acc.blank(call.name):
                continue  # nameless calls keep their dropped-call handling
            self._handle(live, verdict, t, final=False)

    def _handle(self, live: _Live, verdict: CallVerdict, t: float, *, final: bool) -> None:
        call, name = verdict.call, str(verdict.name)
        call_id = str(verdict.effective_id)
        if not final and (self.sequential or (live.can_retry and not verdict.valid)):
            live.held.append(verdict)  # sequential, or a retry may replace the response
            return
        error: tuple[str, str] | None = None
        args = parse_arguments(call.arguments)
        tool = self.tools.get(name)
        if not verdict.valid:
            problems = verdict.diagnostic()["problems"]
            message = "invalid arguments: " + "; ".join(p["message"] for p in problems)
            error = (INVALID_ARGUMENTS, message)
        elif tool is None:
            error = (UNKNOWN_TOOL, f"unknown tool {name!r}")
        elif not tool.enabled:
            error = (DISABLED, f"the tool {name!r} is disabled")
        elif args is None:
            error = (INVALID_ARGUMENTS, "the arguments are not a JSON object")
        if error is not None:
            result = ToolResult(call_id, name, error[1], is_error=True, error_kind=error[0],
                                slot=call.slot)  # fmt: skip
            self._result(live, result, t)
            return
        pos = self._position(live, t)
        self.event(TOOL_DISPATCH, {"call_id": call_id, "name": name, "slot": call.slot,
                                   "arguments": args, "position": pos.to_json()}, t)  # fmt: skip
        self._unanswered[(live.view.number, call_id)] = (live, name, call.slot, pos)
        task = asyncio.create_task(self._execute(live, call_id, name, call.slot, args or {}, pos),
                                   name=f"tool {name} {call_id}")  # fmt: skip
        live.tasks.append(task)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _execute(self, live: _Live, call_id: str, name: str, slot: int,
                       args: dict[str, Any], pos: StreamPosition) -> None:  # fmt: skip
        clock = self.runner.clock
        started = clock()
        fields: dict[str, Any] = {"slot": slot, "dispatched": pos}
        try:
            value = await self.tools.call(name, args)
            result = ToolResult.of(call_id, name, value, **fields)
        except asyncio.CancelledError:
            fields["duration"] = clock() - started
            self._result(live, ToolResult(call_id, name, "cancelled", is_error=True,
                                          error_kind=CANCELLED, **fields))  # fmt: skip
            raise
        except (UnknownTool, ToolDisabled) as exc:
            kind = UNKNOWN_TOOL if isinstance(exc, UnknownTool) else DISABLED
            result = ToolResult(call_id, name, str(exc), is_error=True, error_kind=kind, **fields)
        except Exception as exc:  # the handler raised: a tool error, fed back
            result = ToolResult(call_id, name, f"{type(exc).__name__}: {exc}", is_error=True,
                                error_kind=RAISED, **fields)  # fmt: skip
        result.duration = clock() - started
        self._result(live, result)

    def _result(self, live: _Live, result: ToolResult, t: float | None = None) -> None:
        pos = self._position(live, self.runner.clock() - live.t0 if t is None else t)
        result.completed, result.attempt = pos, live.view.number
        self._unanswered.pop((live.view.number, result.call_id), None)
        self.event(TOOL_RESULT, {**result.to_json(), "position": pos.to_json()}, pos.t, live)

    @staticmethod
    def _position(live: _Live, t: float) -> StreamPosition:
        state = live.view.state
        return StreamPosition(t, live.chunks, len(state.events), state.ended)

    # -- recording -----------------------------------------------------------------------

    def event(self, kind: str, data: dict[str, Any], t: float | None = None,
              live: _Live | None = None) -> None:  # fmt: skip
        """Record a synthetic event of the current attempt (or ``live``'s) at once, then show
        it to the Analysis (record, then feed). Nothing happens before the first attempt."""
        live = live or self._live
        if live is None:
            return
        runner = self.runner
        if t is None:
            t = runner.clock() - live.t0
        n = live.view.number
        data = {**data, "session_t": runner.clock() - runner.started_at}
        if runner.writer is not None:
            runner.writer.event(n, t, kind, data)
        record = {"type": "event", "attempt": n, "t": t, "kind": kind, "data": data}
        if live.view.source is not None:
            live.view.source.events.append(record)
        event = ToolEvent(kind, n, t, data)
        runner.analysis.add_event(event)
        if self.on_event is not None:
            self.on_event(event)
        runner.notify()
