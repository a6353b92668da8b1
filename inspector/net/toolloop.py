"""The streaming-dispatch tool loop: run each tool the moment its call closes, round after round.

Flow of a round: the request streams (every chunk recorded, then fed to :attr:`ToolLoop.analysis`);
after each chunk, calls the accumulator has CLOSED since the last look (next index, block stop,
``output_item.done``, the finish) are judged under the validation mode and dispatched at once,
each as its own asyncio task, while the stream keeps flowing. When a handler resolves, a
``tool_result`` event is recorded in the capture and added to the Analysis at once, so views
and replay see it in arrival order. A round that ends with a tool-calls finish and at least one
result builds the continuation (:func:`inspector.core.analysis.continuation.build_continuation`)
and the
next round streams; any other finish, ``max_steps`` rounds, :meth:`ToolLoop.stop` or an error
ends the loop (a ``loop_end`` event says which).

Decisions and invariants:
- Tool errors never end the loop: an unknown or disabled tool, arguments that are not a JSON
  object, and a raising handler each become a ``tool_result`` with ``is_error`` (no handler
  runs for the first three). An invalid call (seed 1) gets no dispatch: while the round can
  still be retried it is held, else it gets an ``invalid_arguments`` error result at once.
- Seed 1's single streaming retry applies per round, decided by
  :func:`inspector.core.verdicts.attempts.should_retry` over the Analysis' records; the retried
  attempt's running tools are cancelled and its results are not fed back.
- ``sequential=True`` holds every dispatch until the stream has ended (for comparison).
- Every dispatch is answered by exactly one ``tool_result`` (ok, error or cancelled). Tasks are
  held in :attr:`ToolLoop.tasks` (strong references) and are all finished when :meth:`run`
  returns: :meth:`stop` cancels the loop and every running tool, and the capture ends with a
  ``cancelled`` ``loop_end``.
- Events of an attempt are all recorded before the next attempt's request (the continuation
  waits for every result), which is what lets a capture place them by attempt.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import httpx

from inspector.core.analysis.continuation import (
    CANCELLED,
    DISABLED,
    INVALID_ARGUMENTS,
    RAISED,
    UNKNOWN_TOOL,
    StreamPosition,
    ToolResult,
    build_continuation,
    is_tool_finish,
    parse_arguments,
)  # fmt: skip
from inspector.core.analysis.rounds import LOOP_END, ROUND, TOOL_DISPATCH, TOOL_RESULT, ToolEvent
from inspector.core.analysis.session import Analysis, AttemptView, CallVerdict, Settings
from inspector.core.base.errors import InspectorError
from inspector.core.capture.reader import Attempt, CaptureWriter
from inspector.core.requests.scenarios import Profile, RequestSpec, Scenario
from inspector.core.verdicts import attempts as core_attempts
from inspector.core.verdicts.tools import ToolRegistry

from .client import MirroredWriter, stream_attempt
from .runonce import RunOnce
from .session import (
    LoopSettings,
    capture_meta,
    capture_write_error,
    headless_request,
    open_client,
)
from .tools import ToolBox, ToolDisabled, UnknownTool


@dataclass
class _Live:
    """One attempt being streamed: where it is, and its tool traffic."""

    view: AttemptView
    t0: float
    can_retry: bool
    chunks: int = 0
    retry: tuple[str, float] | None = None
    """(seed 1 reason, seconds of budget left) when this attempt is to be retried."""
    handled: set[int] = field(default_factory=set)
    held: list[CallVerdict] = field(default_factory=list)
    """Invalid calls waiting for the retry decision; valid ones waiting (sequential)."""
    tasks: list[asyncio.Task[None]] = field(default_factory=list)


class ToolLoop:
    """A multi-round tool-loop session: one capture, one Analysis, any number of rounds."""

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
        on_update: Callable[[], None] | None = None,
        on_event: Callable[[ToolEvent], None] | None = None,
        client: httpx.AsyncClient | None = None,
        clock: Callable[[], float] = time.monotonic,
        meta: Mapping[str, Any] | None = None,
    ) -> None:
        if max_steps < 1:
            raise ValueError("max_steps must be at least 1")
        self.spec, self.dialect, self.tools = spec, dialect, tools
        self.settings = settings or LoopSettings()
        self.max_steps, self.sequential = max_steps, sequential
        self.capture_path = Path(capture_path) if capture_path is not None else None
        loop_meta = {"mode": self.mode, "max_steps": max_steps, "tools": tools.names(),
                     "disabled": [n for n, t in tools.tools.items() if not t.enabled],
                     "slow": {n: t.slow for n, t in tools.tools.items() if t.slow}}  # fmt: skip
        self.meta = capture_meta(
            spec, dialect, self.settings, key, {"loop": loop_meta, **(meta or {})}
        )
        self._key, self._client, self._clock = key, client, clock
        self._on_update, self._on_event = on_update, on_event
        self.analysis = Analysis(
            Settings(dialect=dialect, validation=self.settings.tool_argument_validation)
        )
        """Fed live: chunks and tool events, in arrival order, over every round."""
        if spec.body.get("tools"):
            self.analysis.user_tools = ToolRegistry.from_definitions(spec.body)
        self.state = "idle"
        """idle | streaming | retrying | tools | done | failed | cancelled."""
        self.round = 0
        """The round streaming now (1-based; 0 before the first)."""
        self.end_reason: str | None = None
        """finish | max_steps | cancelled | error, once the loop has stopped."""
        self.error: InspectorError | None = None
        """Why the loop failed (``state == "failed"``)."""
        self.tasks: set[asyncio.Task[None]] = set()
        """Tool tasks still running (strong references)."""
        self._unanswered: dict[tuple[int, str], tuple[_Live, str, int, StreamPosition]] = {}
        self._once = RunOnce("toolcall-inspector tool loop")
        self._writer: CaptureWriter | None = None
        self._live: _Live | None = None
        self._attempts = 0
        self._start = 0.0
        self._stop_requested = False

    # -- public ----------------------------------------------------------------------------

    @property
    def mode(self) -> str:
        """``streaming`` (dispatch when a call closes) or ``sequential`` (after the stream)."""
        return "sequential" if self.sequential else "streaming"

    @property
    def final_text(self) -> str:
        """The text of the last attempt (the answer, once the loop ended on a text finish)."""
        return self.analysis.attempts[-1].state.full_text if self.analysis.attempts else ""

    def cancel(self) -> None:
        """The same as :meth:`stop` (the name a :class:`LiveSession` uses)."""
        self.stop()

    def summary_lines(self) -> list[str]:
        """How the loop ended, one line each (a LiveSession gives one line per attempt)."""
        rounds = len(self.analysis.rounds) if self.analysis.attempts else 0
        lines = [f"{rounds} round(s), ended by {self.end_reason or self.state}"]
        if self.final_text:
            lines.append(f"final text: {self.final_text[:80]!r}")
        return lines

    def stop(self) -> None:
        """Stop the loop and cancel running tools (before or while it runs)."""
        self._stop_requested = True
        self._once.cancel()

    async def run(self) -> None:
        """Run every round (see the module docstring); returns normally after :meth:`stop`."""
        await self._once.run(self._run())

    # -- the rounds ------------------------------------------------------------------------

    async def _run(self) -> None:
        self._start = self._clock()
        try:
            if self._stop_requested:
                raise asyncio.CancelledError
            if self.capture_path is not None:
                self._writer = CaptureWriter(self.capture_path, meta=self.meta)
            async with contextlib.AsyncExitStack() as stack:
                client = await open_client(stack, self._client, self.spec.url)
                await self._rounds(client)
            self.state = "done"
        except InspectorError as exc:
            self.error, self.state, self.end_reason = exc, "failed", "error"
        except OSError as exc:  # the capture could not be written (disk full, ...)
            self.error = capture_write_error(exc, self.capture_path)
            self.state, self.end_reason = "failed", "error"
        except asyncio.CancelledError:
            self.state, self.end_reason = "cancelled", "cancelled"
            raise
        finally:
            await self._cancel_tools()
            if self.state not in ("done", "failed", "cancelled"):
                self.state, self.end_reason = "failed", "error"  # a bug on its way out
            with contextlib.suppress(OSError):
                self._loop_end()
            if self._writer is not None:
                self._writer.close()
            self._notify()

    async def _rounds(self, client: httpx.AsyncClient) -> None:
        spec = self.spec
        for number in range(1, self.max_steps + 1):
            self.round = number
            view = await self._round(client, spec, number)
            turn = self.analysis.assistant_turn(view)
            results = {r.call_id: r for r in view.results}
            finish = view.state.finish_reason
            if not is_tool_finish(view.state.dialect_name, finish, len(turn.calls)) or not results:
                self.end_reason = "finish"
                return
            if number == self.max_steps:
                self.end_reason = "max_steps"
                return
            answers = [
                results.get(c.id)
                or ToolResult(
                    c.id,
                    c.name,
                    "no result for this call",
                    is_error=True,
                    error_kind=CANCELLED,
                    slot=c.slot,
                )
                for c in turn.calls
            ]
            body = build_continuation(self.dialect, spec.body, turn, answers)
            spec = replace(spec, body=body)

    async def _round(self, client: httpx.AsyncClient, spec: RequestSpec,
                     number: int) -> AttemptView:  # fmt: skip
        live = await self._attempt(client, spec, None, None, number, self._clock())
        if live.retry is None:
            return live.view
        reason, remaining = live.retry
        await self._cancel_tools()  # the retried response's results are never fed back
        if self._writer is not None:
            self._writer.attempt(self._attempts + 1, reason, core_attempts.RETRY_STREAMING)
        self.state = "retrying"
        deadline = self._clock() + remaining
        return (await self._attempt(client, spec, reason, deadline, None, 0.0)).view

    async def _attempt(
        self,
        client: httpx.AsyncClient,
        spec: RequestSpec,
        reason: str | None,
        deadline: float | None,
        new_round: int | None,
        started: float,
    ) -> _Live:
        self._attempts += 1
        n = self._attempts
        source = Attempt(
            n, reason=reason, recovery_action=core_attempts.RETRY_STREAMING if reason else None
        )
        view = self.analysis.begin_attempt(source)
        live = self._live = _Live(view, self._clock(), self.settings.retry and reason is None)
        self.state = "streaming"
        if new_round is not None:
            self._event(ROUND, {"round": new_round, "mode": self.mode})

        def sink(data: bytes, t: float) -> None:
            self.analysis.feed(data, t)
            live.chunks += 1
            self._scan(live, t)
            self._notify()

        try:
            await stream_attempt(
                client, spec, self._key, attempt=n, writer=MirroredWriter(self._writer, source),
                sink=sink, clock=self._clock, read_timeout=self.settings.read_timeout,
                connect_timeout=self.settings.connect_timeout, deadline=deadline,
            )  # fmt: skip
        finally:
            self.analysis.end()
        end_t = self._clock() - live.t0
        self._scan(live, end_t)
        if live.can_retry:  # seed 1, per round: one streaming retry within the budget
            rec = self.analysis.records[-1]
            remaining = self.settings.attempt_budget - (self._clock() - started)
            if rec.reason is not None and core_attempts.should_retry(
                rec, retries_done=0, remaining_budget=remaining
            ):
                live.retry = (rec.reason, remaining)
                return live
        held, live.held = live.held, []
        for verdict in held:
            self._handle(live, verdict, end_t, final=True)
        self.state = "tools"
        self._notify()
        if live.tasks:
            await asyncio.gather(*live.tasks)
        return live

    # -- dispatch ------------------------------------------------------------------------------

    def _scan(self, live: _Live, t: float) -> None:
        """Judge and dispatch every call that closed since the last look."""
        acc = live.view.state.acc
        for call in live.view.state.calls:
            if call.open or call.slot in live.handled:
                continue
            live.handled.add(call.slot)
            verdict = self.analysis.judge_call(live.view, call)
            if verdict.orphan or acc is None or acc.blank(call.name):
                continue  # seed 1: nameless calls keep their dropped-call handling
            self._handle(live, verdict, t, final=False)

    def _handle(self, live: _Live, verdict: CallVerdict, t: float, *, final: bool) -> None:
        call, name = verdict.call, str(verdict.name)
        call_id = str(verdict.effective_id)
        if not final and (self.sequential or (live.can_retry and not verdict.valid)):
            live.held.append(verdict)  # sequential, or seed 1: a retry may replace the response
            return
        if not verdict.valid:
            diag = verdict.diagnostic()
            message = "invalid arguments: " + "; ".join(p["message"] for p in diag["problems"])
            self._result(
                live,
                ToolResult(
                    call_id,
                    name,
                    message,
                    is_error=True,
                    error_kind=INVALID_ARGUMENTS,
                    slot=call.slot,
                ),
                t,
            )
            return
        tool = self.tools.get(name)
        args = parse_arguments(call.arguments)
        error = (UNKNOWN_TOOL, f"unknown tool {name!r}") if tool is None else (
            (DISABLED, f"the tool {name!r} is disabled") if not tool.enabled else (
                (INVALID_ARGUMENTS, "the arguments are not a JSON object")
                if args is None else None))  # fmt: skip
        if error is not None:
            self._result(
                live,
                ToolResult(
                    call_id, name, error[1], is_error=True, error_kind=error[0], slot=call.slot
                ),
                t,
            )
            return
        pos = self._position(live, t)
        self._event(TOOL_DISPATCH, {"call_id": call_id, "name": name, "slot": call.slot,
                                    "arguments": args, "position": pos.to_json()}, t)  # fmt: skip
        self._unanswered[(live.view.number, call_id)] = (live, name, call.slot, pos)
        task = asyncio.create_task(self._execute(live, call_id, name, call.slot, args or {}, pos),
                                   name=f"tool {name} {call_id}")  # fmt: skip
        live.tasks.append(task)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _execute(self, live: _Live, call_id: str, name: str, slot: int,
                       args: dict[str, Any], pos: StreamPosition) -> None:  # fmt: skip
        started = self._clock()
        fields: dict[str, Any] = {"slot": slot, "dispatched": pos}
        try:
            value = await self.tools.call(name, args)
            result = ToolResult.of(call_id, name, value, **fields)
        except asyncio.CancelledError:
            fields["duration"] = self._clock() - started
            self._result(
                live,
                ToolResult(
                    call_id, name, "cancelled", is_error=True, error_kind=CANCELLED, **fields
                ),
            )
            raise
        except (UnknownTool, ToolDisabled) as exc:
            kind = UNKNOWN_TOOL if isinstance(exc, UnknownTool) else DISABLED
            result = ToolResult(call_id, name, str(exc), is_error=True, error_kind=kind, **fields)
        except Exception as exc:  # the handler raised: a tool error, fed back
            result = ToolResult(
                call_id,
                name,
                f"{type(exc).__name__}: {exc}",
                is_error=True,
                error_kind=RAISED,
                **fields,
            )
        result.duration = self._clock() - started
        self._result(live, result)

    def _result(self, live: _Live, result: ToolResult, t: float | None = None) -> None:
        pos = self._position(live, self._clock() - live.t0 if t is None else t)
        result.completed, result.attempt = pos, live.view.number
        self._unanswered.pop((live.view.number, result.call_id), None)
        self._event(TOOL_RESULT, {**result.to_json(), "position": pos.to_json()}, pos.t, live)

    def _position(self, live: _Live, t: float) -> StreamPosition:
        state = live.view.state
        return StreamPosition(t, live.chunks, len(state.events), state.ended)

    # -- recording -----------------------------------------------------------------------------

    def _event(self, kind: str, data: dict[str, Any], t: float | None = None,
               live: _Live | None = None) -> None:  # fmt: skip
        """Record a synthetic event at once, then show it to the Analysis (record, then feed)."""
        live = live or self._live
        if live is None:
            return
        if t is None:
            t = self._clock() - live.t0
        n = live.view.number
        data = {**data, "session_t": self._clock() - self._start}
        if self._writer is not None:
            self._writer.event(n, t, kind, data)
        record = {"type": "event", "attempt": n, "t": t, "kind": kind, "data": data}
        if live.view.source is not None:
            live.view.source.events.append(record)
        event = ToolEvent(kind, n, t, data)
        self.analysis.add_event(event)
        if self._on_event is not None:
            self._on_event(event)
        self._notify()

    def _loop_end(self) -> None:
        if self._live is None:
            return
        self._event(LOOP_END, {"reason": self.end_reason, "rounds": self.round,
                               "error": str(self.error) if self.error else None,
                               "final_text": self.final_text})  # fmt: skip

    async def _cancel_tools(self) -> None:
        tasks = list(self.tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        # a task cancelled before it started never ran its body: answer its dispatch here
        for (_, call_id), (live, name, slot, pos) in list(self._unanswered.items()):
            self._result(
                live,
                ToolResult(
                    call_id,
                    name,
                    "cancelled",
                    is_error=True,
                    error_kind=CANCELLED,
                    slot=slot,
                    dispatched=pos,
                ),
            )

    def _notify(self) -> None:
        if self._on_update is not None:
            self._on_update()


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
