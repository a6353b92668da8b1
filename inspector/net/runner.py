"""One session runner: connect, stream, record, retry, cancel — for every kind of live session.

Flow of a round: its first request is sent (``connecting``) and its response streams
(``streaming``): every chunk is recorded, then fed to :attr:`SessionRunner.analysis`, then
shown to the round hooks. When the body ends, the Analysis judges it and the retry rule
(:mod:`inspector.net.policy`) may ask for ONE streaming retry of the same request
(``retrying``, then ``streaming``; the capture gets an ``attempt`` record with the attempt
reason and ``retry_streaming``). The round's final attempt is accepted: the hooks may hand back
work to wait for (``running_tools``), then give the next round's request, or None to end.
States and the "round R · attempt N" numbering: :mod:`inspector.net.runstate`.

The round hooks (methods under "round hooks" below) do nothing here, which is a plain session:
one round, at most two physical requests. The tool loop overrides them; a recording proxy or a
compatibility matrix can drive a runner as it is, through ``on_state`` and ``on_update``.

Decisions and invariants:
- Attempt records always come from the core (``analysis.records``): a retry that is still
  invalid is ``accepted_degraded`` there, with its raw arguments.
- Transport and provider errors are not retried: the session ends ``failed`` with
  :attr:`SessionRunner.error` set; :meth:`SessionRunner.run` does not raise it.
- Cancellation: :meth:`SessionRunner.cancel` ends the session ``cancelled`` (the attempt's
  capture gets an ``end`` record ``cancelled``) and :meth:`run` returns normally. If the task
  awaiting :meth:`run` is itself cancelled, the session is cancelled the same way and the
  CancelledError propagates.
- :meth:`run` creates one task, keeps a strong reference to it and has always awaited it when
  it returns or raises; a client the runner created is closed, the capture is closed.
- An exception that is not an InspectorError (a bug, e.g. in a callback) ends the session
  ``failed`` with the capture closed (its ``end`` record says ``internal error``) and
  propagates out of :meth:`run`.
- ``on_state(state, place)`` is called at every change of state or place, the final state
  last, once the capture is closed; ``on_update()`` whenever the views have something new
  (a state, a chunk, an attempt's end).
- The key is held in memory only: it is refused as a header or URL parameter value of the
  request spec (compared whole, never as a substring: short keys such as ``x`` work), and the
  capture writer redacts it wherever it shows as a whole token (header values, the URL, the
  meta, the request body's strings: :mod:`inspector.core.capture.redaction`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import httpx

from inspector.core.analysis.numbering import RoundAttempt
from inspector.core.analysis.session import Analysis, AttemptView
from inspector.core.base.errors import InspectorError
from inspector.core.base.settings import Settings
from inspector.core.capture.format import CaptureError
from inspector.core.capture.records import Attempt
from inspector.core.capture.redaction import key_exposure, redact_meta, request_credentials
from inspector.core.capture.writer import CaptureWriter
from inspector.core.providers import REGISTRY
from inspector.core.requests.scenarios import RequestSpec
from inspector.core.verdicts import attempts as core_attempts
from inspector.core.verdicts.attempts import AttemptRecord
from inspector.core.verdicts.tools import ToolRegistry

from .client import AttemptOutcome, MirroredWriter, stream_attempt
from .errors import LiveError
from .policy import LoopSettings
from .runonce import RunOnce
from .runstate import RunState

StateCallback = Callable[[RunState, RoundAttempt], None]


class SessionRunner:
    """One session: one capture, one Analysis, one round or more (see the module docstring)."""

    task_name = "toolcall-inspector session"
    """The name of the task :meth:`run` creates (shows in asyncio debug output)."""

    def __init__(
        self,
        spec: RequestSpec,
        *,
        dialect: str,
        settings: LoopSettings,
        capture_path: str | Path | None,
        key: str | None,
        analysis: Analysis | None = None,
        meta: Mapping[str, Any] | None = None,
        on_update: Callable[[], None] | None = None,
        on_state: StateCallback | None = None,
        client: httpx.AsyncClient | None = None,
        clock: Callable[[], float] = time.monotonic,
        secrets: Sequence[str] = (),
    ) -> None:
        """``secrets``: credentials besides ``key`` that the request carried (the proxy's
        route knows them; its ``spec`` is already redacted), masked wherever they show."""
        self.spec, self.dialect, self.settings = spec, dialect, settings
        self.capture_path = Path(capture_path) if capture_path is not None else None
        self.meta = capture_meta(spec, dialect, settings, key, meta)
        self.on_update, self.on_state = on_update, on_state
        self.clock = clock
        self.analysis: Analysis = _live_analysis(analysis, spec, dialect, settings)
        """Fed live, chunk by chunk; judged with the session's validation mode."""
        self.outcomes: list[AttemptOutcome] = []
        """How each physical request went (status, bytes, duration, error), in order."""
        self.state = RunState.IDLE
        self.place = RoundAttempt()
        """The current attempt's place: "round R · attempt N"."""
        self.error: InspectorError | None = None
        """Why the session failed: a LiveError, or a CaptureError when the capture cannot be
        written. None unless ``state`` is ``failed``."""
        self.writer: CaptureWriter | None = None
        """The capture, while the session runs."""
        self.started_at = 0.0
        """``clock()`` when :meth:`run` began."""
        self._key, self._client = key, client
        extra = [*secrets, *request_credentials(spec.headers, spec.body)]  # ``api_key`` …
        self._secrets = tuple(dict.fromkeys([key, *extra] if key else extra))
        self._once = RunOnce(self.task_name)
        self._cancel_requested = False

    # -- public ----------------------------------------------------------------------------

    @property
    def records(self) -> list[AttemptRecord]:
        """The attempt records, one per attempt (from the core)."""
        return self.analysis.records

    @property
    def round(self) -> int:
        """The current round (1-based; 0 before the first request)."""
        return self.place.round

    def cancel(self) -> None:
        """Cancel the session (before or while it runs); does nothing once it has finished."""
        self._cancel_requested = True
        self._once.cancel()

    async def run(self) -> None:
        """Run the session to its end (see the module docstring for errors and cancelling)."""
        await self._once.run(self._run())

    def summary_lines(self) -> list[str]:
        """One line per attempt: transport facts, then the attempt's outcome."""
        lines = []
        for rec, out in zip(self.records, self.outcomes, strict=False):
            status = f"HTTP {out.status}" if out.status is not None else "no response"
            line = (f"attempt {rec.attempt}: {status}, {out.bytes} bytes in "
                    f"{out.duration:.2f} s ({out.ended_by}) → {rec.outcome}")  # fmt: skip
            if rec.reason:
                line += f", reason {rec.reason}"
            if rec.recovery_action and rec.outcome == core_attempts.RETRIED:
                line += f", recovery {rec.recovery_action}"
            if out.error is not None:
                line += f": {out.error}"
            lines.append(line)
        return lines

    def notify(self) -> None:
        """Tell ``on_update`` the views have something new."""
        if self.on_update is not None:
            self.on_update()

    # -- round hooks (a plain session: one round, nothing else) ------------------------------

    def attempt_started(self, view: AttemptView) -> None:
        """``view`` was opened at :attr:`place`; its request is about to be sent."""

    def chunk_fed(self, view: AttemptView, data: bytes, t: float) -> None:
        """A chunk was recorded and fed to the Analysis (``t``: seconds since the request)."""

    def stream_ended(self, view: AttemptView) -> None:
        """The attempt's body ended normally (before the retry decision)."""

    async def attempt_replaced(self, view: AttemptView) -> None:
        """The attempt will be retried: what it started is to be dropped."""

    def attempt_accepted(self, view: AttemptView) -> Sequence[asyncio.Future[Any]]:
        """The round's final attempt: what the round waits for before it ends."""
        return ()

    def next_request(self, view: AttemptView, spec: RequestSpec) -> RequestSpec | None:
        """The next round's request after a round whose final attempt is ``view``; None ends."""
        return None

    async def finishing(self) -> None:
        """The session is ending (``state`` is final); the capture is still open."""

    # -- the rounds ------------------------------------------------------------------------

    async def _run(self) -> None:
        self.started_at = self.clock()
        final = RunState.FAILED  # unless set below: an unexpected exception is on its way out
        try:
            if self._cancel_requested:
                raise asyncio.CancelledError
            self._enter(RunState.CONNECTING, RoundAttempt(1, 1))
            if self.capture_path is not None:
                self.writer = CaptureWriter(
                    self.capture_path, meta=self.meta, secrets=self._secrets
                )
            async with contextlib.AsyncExitStack() as stack:
                client = await open_client(stack, self._client, self.spec.url)
                await self._rounds(client)
            final = RunState.DONE
        except InspectorError as exc:
            self.error = exc
        except OSError as exc:  # the capture could not be written (disk full, ...)
            self.error = capture_write_error(exc, self.capture_path)
        except asyncio.CancelledError:
            final = RunState.CANCELLED
            raise
        finally:
            self.state = final
            try:
                await self.finishing()
            finally:
                if self.writer is not None:
                    self.writer.close()
                self._announce()

    async def _rounds(self, client: httpx.AsyncClient) -> None:
        spec: RequestSpec | None = self.spec
        number = 1
        while spec is not None:
            view = await self._round(client, spec, number)
            spec, number = self.next_request(view, spec), number + 1

    async def _round(self, client: httpx.AsyncClient, spec: RequestSpec,
                     number: int) -> AttemptView:  # fmt: skip
        started = self.clock()
        self._enter(RunState.CONNECTING, RoundAttempt(number, 1))
        view = await self._attempt(client, spec, None, None)
        remaining = self.settings.attempt_budget - (self.clock() - started)
        reason = self.settings.retry_reason(
            self.analysis.records[-1], attempt_in_round=1, remaining=remaining
        )
        if reason is not None:
            await self.attempt_replaced(view)  # its results are never fed back
            if self.writer is not None:
                self.writer.attempt(view.number + 1, reason, core_attempts.RETRY_STREAMING)
            self._enter(RunState.RETRYING, RoundAttempt(number, 2))
            view = await self._attempt(client, spec, reason, self.clock() + remaining)
        pending = self.attempt_accepted(view)
        if pending:
            self._enter(RunState.RUNNING_TOOLS)
            await asyncio.gather(*pending)
        return view

    async def _attempt(self, client: httpx.AsyncClient, spec: RequestSpec, reason: str | None,
                       deadline: float | None) -> AttemptView:  # fmt: skip
        recovery = core_attempts.RETRY_STREAMING if reason else None
        source = Attempt(len(self.analysis.attempts) + 1, reason=reason, recovery_action=recovery)
        view = self.analysis.begin_attempt(source)
        self.attempt_started(view)

        def sink(data: bytes, t: float) -> None:
            self.analysis.feed(data, t)
            self.chunk_fed(view, data, t)
            self.notify()

        on_response = lambda: self._enter(RunState.STREAMING)  # noqa: E731
        writer = MirroredWriter(self.writer, source, on_response, self._secrets)
        try:
            outcome = await stream_attempt(
                client, spec, self._key, attempt=view.number, writer=writer, sink=sink,
                clock=self.clock, read_timeout=self.settings.read_timeout,
                connect_timeout=self.settings.connect_timeout, deadline=deadline,
            )  # fmt: skip
        except LiveError as exc:
            if isinstance(exc.outcome, AttemptOutcome):
                self.outcomes.append(exc.outcome)
            raise
        finally:
            self.analysis.end()
        self.outcomes.append(outcome)
        self.notify()
        self.stream_ended(view)
        return view

    def _enter(self, state: RunState, place: RoundAttempt | None = None) -> None:
        place = place or self.place
        if (state, place) != (self.state, self.place):
            self.state, self.place = state, place
            self._announce()

    def _announce(self) -> None:
        if self.on_state is not None:
            self.on_state(self.state, self.place)
        self.notify()


def _live_analysis(
    analysis: Analysis | None, spec: RequestSpec, dialect: str, settings: LoopSettings
) -> Analysis:
    """The Analysis a session feeds: ``analysis`` (without attempts) or a new one, judged with
    the session's dialect and validation mode, and the request's tools unless it has its own."""
    validation = settings.tool_argument_validation
    if analysis is None:
        analysis = Analysis(Settings(dialect=dialect, validation=validation), providers=REGISTRY)
    elif analysis.attempts:
        raise ValueError("a live session needs an Analysis without attempts")
    else:
        analysis.apply(replace(analysis.settings, dialect=dialect, validation=validation))
    if analysis.user_tools is None and spec.body.get("tools"):
        analysis.user_tools = ToolRegistry.from_definitions(spec.body, analysis.providers)
    return analysis


class KeyInRequest(InspectorError, ValueError):
    """The key shows in the request spec's headers or URL (it belongs in the key header only)."""

    def __init__(self, where: str) -> None:
        super().__init__(
            f"the key must not appear in the request spec: it shows in {where} "
            "(the key goes in the profile's key variable only)"
        )


def capture_meta(
    spec: RequestSpec,
    dialect: str,
    settings: LoopSettings,
    key: str | None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A live capture's header meta (its URL redacted, and the key wherever it shows).

    The key check: :class:`KeyInRequest` if ``key`` is a header value or URL parameter value
    of ``spec`` (compared whole or as a whole token, as ``Bearer KEY``; never a substring, and
    never over the body: a short key such as ``x`` or ``user`` works). The key belongs in the
    provider's key header, added when the request is sent.
    """
    where = key_exposure(spec.url, spec.headers, key)
    if where is not None:
        raise KeyInRequest(where)
    secrets = (key,) if key else ()
    meta = {
        "source": "live",
        "dialect": dialect,
        "model": _model(spec),
        "url": spec.url,
        "validation": settings.tool_argument_validation,
        **(extra or {}),
    }
    return redact_meta(meta, secrets)


async def open_client(
    stack: contextlib.AsyncExitStack, client: httpx.AsyncClient | None, url: str
) -> httpx.AsyncClient:
    """``client``, or a new one closed with ``stack``: a loopback server (the demo) is never
    reached through a proxy from the environment."""
    if client is not None:
        return client
    local = httpx.URL(url).host in ("127.0.0.1", "localhost", "::1")
    return await stack.enter_async_context(httpx.AsyncClient(trust_env=not local))


def capture_write_error(exc: OSError, path: Path | None) -> CaptureError:
    """The capture could not be written (disk full, …): a one-line CaptureError."""
    return CaptureError(f"cannot write the capture: {exc.strerror or exc}", path=str(path))


def _model(spec: RequestSpec) -> str | None:
    model = spec.body.get("model")
    if isinstance(model, str):
        return model
    path = spec.url.split("?")[0]
    if "/models/" in path:  # Gemini's /models/NAME:method
        return unquote(path.rsplit("/models/", 1)[1].split(":")[0])
    if "/model/" in path:  # Bedrock's /model/NAME/converse-stream
        return unquote(path.rsplit("/model/", 1)[1].split("/")[0]) or None
    return None
