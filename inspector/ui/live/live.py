"""Live sessions in the window: the controller that runs them (the Live toolbar that sets them
up is :mod:`.bar`).

Invariants:
- Network work runs as asyncio tasks on the Qt loop (qasync). Every task is kept in
  ``LiveController._tasks`` until it finishes, and :meth:`LiveController.aclose` cancels and
  awaits them, so nothing outlives the window.
- The session feeds the core directly; the window hears about it only through the
  Document's 60 Hz flush (never per chunk), and through ``state_changed`` once per change of
  state or "round R · attempt N".
- ``running`` is true in every state of the session that is not final (connecting, streaming,
  running tools, retrying), and false once it is done, failed or cancelled.
- API keys come from the environment or the OS keyring at start time and live only in the
  session object; nothing here writes them anywhere.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QStandardPaths, Signal

from inspector.core.analysis.numbering import RoundAttempt
from inspector.core.analysis.session import Analysis
from inspector.core.base.errors import InspectorError
from inspector.core.capture.claim import discard_claim
from inspector.core.capture.writer import new_capture_path
from inspector.core.providers import REGISTRY
from inspector.core.requests.scenarios import Scenario, build_request, find_profile
from inspector.net.demo.applies import NotPlayed
from inspector.net.policy import LoopSettings
from inspector.net.runner import SessionRunner
from inspector.net.runstate import RunState
from inspector.net.session import LiveSession, require_key
from inspector.ui.document.document import Document
from inspector.ui.live.scenario import Timeouts

DEFAULT_PROFILE = "demo"
DEFAULT_MODEL = "demo-glm-retry"
DEFAULT_SCENARIO = "filesystem"


def captures_dir() -> Path:
    """Where live sessions are recorded (created on demand)."""
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    path = Path(base or Path.home() / ".toolcall-inspector") / "captures"
    path.mkdir(parents=True, exist_ok=True)
    return path


@dataclass(frozen=True)
class RunChoice:
    """What the user asked to run: the Live bar's choices, carried from Run to the session."""

    profile: str
    model: str
    scenario: Scenario
    retry: bool
    loop: bool = False
    """Run the streaming-dispatch tool loop."""
    sequential: bool = False
    """In a tool loop, run tools after the stream instead of as their calls close."""


class LiveController(QObject):
    """Starts and stops live sessions; owns the embedded demo provider."""

    status = Signal(str)
    """One line for the user: connecting, streaming, the attempt summary, or the error."""
    failed = Signal(str)
    """The session could not start or ended with an error: one line plus the details."""
    running_changed = Signal(bool)
    state_changed = Signal(str)
    """What the session is doing and where: "streaming · round 1 · attempt 2"."""
    models_changed = Signal(list)
    """The models the demo provider offers (its scenarios): its ``GET /v1/models`` entries,
    each a dict with at least an ``id``."""

    def __init__(self, doc: Document, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.doc = doc
        self.session: SessionRunner | None = None
        """The running (or last) session."""
        self.demo: Any = None
        """The embedded demo provider, started on first use."""
        self.demo_url: str | None = None
        self._demo_started: asyncio.Future[str] | None = None
        self.timeouts = Timeouts()
        """Connect / read-idle timeouts and the attempt budget for the next session."""
        self.demo_chunk_delay = 0.03
        """Seconds between the demo provider's SSE writes (tests make it faster)."""
        self._tasks: set[asyncio.Task[Any]] = set()
        self._current: asyncio.Task[Any] | None = None  # the latest start's task
        self._listing: asyncio.Task[Any] | None = None  # the demo models' listing
        self._listed = False

    @property
    def running(self) -> bool:
        """Is a session under way (any state but done, failed and cancelled)?"""
        return self.session is not None and not self.session.state.final

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def start(
        self,
        profile: str,
        model: str,
        scenario: Scenario,
        retry: bool,
        *,
        loop: bool = False,
        sequential: bool = False,
    ) -> None:
        """Start a session (the previous one is stopped first); ``loop`` runs the
        streaming-dispatch tool loop (tools run as their calls close, results feed the next
        round)."""
        self.stop()
        run = RunChoice(profile, model, scenario, retry, loop, sequential)
        self._current = self._spawn(self._run(run))

    def stop(self) -> None:
        """Cancel the running session (and its tools); the capture keeps every byte."""
        if self.session is not None:
            self.session.cancel()

    def list_demo_models(self) -> None:
        """Fill the model list from the demo provider's ``GET /v1/models`` (once: a listing
        under way or done is not asked for again)."""
        if self._listing is None or (self._listing.done() and not self._listed):
            self._listing = self._spawn(self._list_models())

    async def ensure_demo(self) -> str:
        """Start the embedded demo provider on a free loopback port (once: callers that ask
        while it is starting wait for the same start)."""
        if self.demo_url is None:
            if self.demo is None:
                from inspector.net.demo import DemoProvider

                self.demo = DemoProvider("127.0.0.1", port=0, chunk_delay=self.demo_chunk_delay)
                self._demo_started = asyncio.ensure_future(self.demo.start())
            assert self._demo_started is not None
            self.demo_url = await asyncio.shield(self._demo_started)
        return self.demo_url

    async def _list_models(self) -> None:
        import httpx

        url = await self.ensure_demo()
        try:
            async with httpx.AsyncClient(trust_env=False) as client:
                data = (await client.get(f"{url}/v1/models")).json().get("data", [])
        except (httpx.HTTPError, ValueError, AttributeError) as exc:
            self.status.emit(f"Cannot list the demo models: {exc}")
            return
        models = [m for m in data if isinstance(m, dict) and "id" in m]
        self._listed = True
        self.models_changed.emit(models)

    async def _run(self, run: RunChoice) -> None:
        profile_name, model = run.profile, run.model
        try:
            session = await self._prepare(run)
        except (InspectorError, OSError, ValueError) as exc:
            self.status.emit(f"Cannot start: {exc}")
            self.failed.emit(f"Cannot start the session:\n\n{exc}")
            return
        if asyncio.current_task() is not self._current:  # Start again while this one was
            path = session.capture_path  # being prepared: the newer one is the session;
            if path is not None:
                discard_claim(path)  # the name this one claimed never got a record
            return
        self.session = session
        session.on_state = lambda state, place: self._state(session, state, place)
        self.doc.attach_live(session.analysis, f"live: {profile_name} · {model}")
        self.running_changed.emit(True)
        self.status.emit(
            f"Streaming from {profile_name} ({model})… capture: {session.capture_path}"
        )
        try:
            await session.run()
        finally:
            if self.session is session:  # not replaced meanwhile by a newer session
                path = session.capture_path
                self.doc.stop_live_view(str(path) if path is not None and path.exists() else None)
                self.running_changed.emit(False)
            self.status.emit(ended_line(session, not_played(profile_name, model)))
            if session.error is not None:  # the error once, then the attempts without it
                said = f": {session.error}"
                lines = [line.removesuffix(said) for line in session.summary_lines()]
                self.failed.emit(
                    f"{session.error}\n\n"
                    + "\n".join(lines)
                    + f"\n\nEvery byte received is in {session.capture_path}"
                )

    def _state(self, session: SessionRunner, state: RunState, place: RoundAttempt) -> None:
        if session is self.session:  # a session replaced by a newer one is not shown
            self.state_changed.emit(f"{state.label} · {place}")

    async def _prepare(self, run: RunChoice) -> SessionRunner:
        model, scenario, retry, loop, sequential = (
            run.model,
            run.scenario,
            run.retry,
            run.loop,
            run.sequential,
        )
        profile = find_profile(run.profile)
        if profile.is_demo:
            profile = profile.resolved(await self.ensure_demo())
        key = require_key(profile)
        toolbox = None
        if loop:
            from inspector.net.tools import ToolBox

            toolbox = ToolBox.builtin()
            toolbox.configure(_loop_options(scenario, self.timeouts))
            if not scenario.tools:  # a loop needs tools: offer the built-in, safe ones
                scenario = replace(scenario, tools=toolbox.definitions(toolbox.names()))
            else:  # as record --loop does: a disabled tool is not offered at all
                scenario = replace(scenario, tools=toolbox.offered(scenario.tools))
        spec = build_request(profile, scenario, model=model or None)
        t = self.timeouts
        settings = LoopSettings(
            retry=retry,
            attempt_budget=t.budget,
            connect_timeout=t.connect,
            read_timeout=t.read,
            tool_argument_validation=self.doc.settings.validation,
        )
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = new_capture_path(captures_dir(), stamp, profile.name, model or profile.model)
        judged = replace(self.doc.settings, dialect=profile.dialect)
        analysis = Analysis(judged, self.doc.tools, providers=REGISTRY)
        meta = {"profile": profile.name, "scenario": scenario.name, "title": scenario.title}
        if toolbox is not None:
            from inspector.net.toolloop import ToolLoop

            tool_loop = ToolLoop(
                spec,
                dialect=profile.dialect,
                tools=toolbox,
                settings=settings,
                sequential=sequential,
                capture_path=path,
                key=key,
                analysis=analysis,
                meta=meta,
            )
            return tool_loop
        return LiveSession(
            spec,
            dialect=profile.dialect,
            settings=settings,
            capture_path=path,
            key=key,
            analysis=analysis,
            meta=meta,
        )

    async def aclose(self) -> None:
        """Stop everything: the session (capture ends "cancelled"), tasks, the demo server."""
        self.stop()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self.demo is not None:
            if self._demo_started is not None and not self._demo_started.done():
                await asyncio.gather(self._demo_started, return_exceptions=True)
            await self.demo.stop()
            self.demo, self.demo_url, self._demo_started = None, None, None


def not_played(profile_name: str, model: str) -> NotPlayed | None:
    """On a demo profile, the note for a model (a demo scenario) whose own behaviour is not
    played on the profile's dialect (from the scenario table the embedded provider serves)."""
    from inspector.net.demo.scenarios import SCENARIOS

    try:
        profile = find_profile(profile_name)
    except InspectorError:
        return None
    scenario = SCENARIOS.get(model or profile.model) if profile.is_demo else None
    return NotPlayed.of(scenario.to_model(), profile.dialect) if scenario else None


def ended_line(session: SessionRunner, note: NotPlayed | None = None) -> str:
    """The status line of a session that ended: what the model did not show on this dialect
    (``note``, first: it explains a clean run), its state, each attempt's summary, the error,
    and where the capture is. A session stopped before any attempt had an outcome says where
    it was stopped and what had arrived by then."""
    lines = session.summary_lines()
    if not lines:
        attempts = session.analysis.attempts
        events = len(attempts[-1].state.events) if attempts else 0
        lines = [f"stopped at {session.place} ({events} event(s) received)"]
    tail = f" — {session.error}" if session.error else ""
    path = session.capture_path
    kept = f" · capture: {path}" if path is not None and path.exists() else ""
    said = f"{note.not_shown()} · " if note is not None else ""
    return f"{said}{session.state.label}: " + "; ".join(lines) + tail + kept


def _loop_options(scenario: Scenario, timeouts: Timeouts) -> dict[str, Any]:
    """Disabled/slow tools: the user's edit if any, else the scenario file's ``loop`` key."""
    if timeouts.loop_options is not None:
        disabled, slow = timeouts.loop_options
        return {"disabled": list(disabled), "slow": dict(slow)}
    from inspector.net.tools import scenario_options

    return scenario_options(scenario.name)
